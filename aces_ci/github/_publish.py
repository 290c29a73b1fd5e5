"""Where a CI run's results go on GitHub: sticky comment (or the job summary), annotations, check run, outputs.

Shared by every path of ``aces-ci ci`` (:mod:`aces_ci.app`'s scan, trials and SkillSV) and by the
``workflow_run`` commenter (:mod:`._workflow_run`). Each destination fails soft where GitHub's permissions are
the cause — a fork's read-only token, a workflow without ``checks: write`` — and says so in the
log, because the gate's verdict must not depend on whether a comment could be posted.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import EXIT_PASS, EXIT_RUNTIME_ERROR
from ..gate import GateDecision
from ..report import SourceLinks, by_severity_then_location, markdown_cell, skill_title
from ..scan import ScanResult, Severity
from ._body import output_number
from ._checks import create_check_run
from ._commands import Annotation, one_line_log
from ._context import GitHubContext
from ._files import append_step_summary, write_outputs
from ._rest import GitHubClient, GitHubError
from ._sticky import upsert_comment

_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def say(message: str) -> None:
    """One log line: a skill folder's newline cannot start a line of its own (a workflow command)."""
    print(f"aces-ci: {one_line_log(message)}", file=sys.stderr)


def finding_annotations(result: ScanResult, links: SourceLinks | None) -> list[Annotation]:
    """Every active finding as an annotation, worst first; paths relative to the repository."""
    findings = by_severity_then_location(f for skill in result.skills for f in skill.active_findings)
    titles = {skill.skill: skill_title(skill.skill, skill.name) for skill in result.skills}
    annotations = []
    for finding in findings:
        path = links.path(finding.location.path) if links else finding.location.path
        level = _LEVELS[finding.severity]
        title = f"{finding.rule_id} ({titles.get(finding.skill, finding.skill)})"
        annotations.append(Annotation(level, finding.message, path, finding.location.line, title))  # type: ignore[arg-type]
    return annotations


@dataclass(frozen=True)
class Published:
    comment_url: str | None = None
    failed: str = ""
    """Why the comment or check run could not be published (a GitHub API failure, not a permission), else empty."""


def summary_note(number: int | None, client: GitHubClient | None, want_comment: bool) -> str:
    """What the job summary says above the result when no comment will be tried (known before any API call)."""
    if number is None:
        return ""
    if not want_comment:
        return "PR comment disabled (comment: false)."
    if client is None:
        note = "No GITHUB_TOKEN: the PR comment was not posted; the result is in this job summary."
        say(note)
        return note
    return ""


def write_summary(context: GitHubContext, body: str, *, note: str, full_report: str | None) -> bool:
    """The job summary: the comment's body (after ``note``), written before any comment call so no API failure
    can cost it."""
    summary = f"> {note}\n\n{body}" if note else body
    return append_step_summary(context.summary_path, summary, full_report=full_report, extra_secrets=context.secrets())


def _summary_postscript(context: GitHubContext, note: str) -> None:
    """A line after the summary's result; escaped, since it quotes GitHub's answer (or a proxy's page)."""
    append_step_summary(context.summary_path, f"\n> {markdown_cell(note, 2000)}\n", extra_secrets=context.secrets())


def publish_comment(
    context: GitHubContext,
    client: GitHubClient | None,
    number: int | None,
    body: str,
    marker: str,
    *,
    want_comment: bool,
) -> Published:
    """Post ``body`` as the sticky comment; the summary (already written) gets a line when that fails.

    Never raises for GitHub: a read-only token is a note (the fork's case, not a failure); any other
    API failure is a note and :attr:`Published.failed`, which the caller turns into its exit code.
    """
    if number is None or not want_comment or client is None:
        return Published()
    try:
        outcome = upsert_comment(client, context.repository, number, body, marker)
    except GitHubError as exc:
        note = f"The PR comment could not be posted: {exc}. The result is in this job summary and the reports."
        say(note)
        _summary_postscript(context, note)
        return Published(failed=str(exc))
    if outcome.action == "refused":
        note = (
            "The PR comment could not be posted: this token may not write to the pull request "
            "(a fork's pull request gets a read-only token). The result is above, in this job summary; "
            "the workflow_run commenter can post it (see the README)."
        )
        say(f"{note} GitHub said: {outcome.reason}")
        _summary_postscript(context, note)
        return Published()
    say(f"PR comment {outcome.action}: {outcome.url or '(no URL returned)'}")
    return Published(outcome.url)


def publish_check_run(
    context: GitHubContext,
    client: GitHubClient | None,
    decision: GateDecision,
    summary: str,
    annotations: Iterable[Annotation],
) -> str:
    """Create the check run; returns why it failed for a GitHub API failure (empty when created or refused)."""
    if client is None:
        say("check run skipped: no GITHUB_TOKEN")
        return ""
    conclusion = {"fail": "failure", "error": "failure", "warn": "neutral", "pass": "success"}[decision.verdict]
    try:
        result = create_check_run(
            client,
            context.repository,
            context.head_sha,
            name="aces-ci",
            conclusion=conclusion,  # type: ignore[arg-type]
            title=f"aces-ci gate: {decision.verdict}",
            summary=summary,
            annotations=list(annotations),
        )
    except GitHubError as exc:
        say(f"check run could not be created: {exc}")
        return str(exc)
    if result.created:
        say(f"check run created with {result.annotations} annotation(s): {result.url or ''}")
    else:
        say(f"check run not created (the workflow needs `checks: write`): {result.reason}")
    return ""


def outputs(
    decision: GateDecision | None,
    *,
    work: str,
    score: int | None = None,
    reports: Mapping[str, Path | None] | None = None,
    comment_url: str | None = None,
    changed: Iterable[str] | None = None,
    lift: tuple[float, float, float] | None = None,
    lift_contrast: str | None = None,
) -> dict[str, str]:
    """The step outputs: ``verdict``, ``score``, ``lift``/``lift-ci-low``/``lift-ci-high``/``lift-contrast``, reports.

    Lift outputs are empty unless a trial measured one: an empty string is "not measured", never 0.
    """
    values = {
        "work": work,
        "verdict": decision.verdict if decision is not None else "error",
        "score": "" if score is None else str(score),
        "lift": "" if lift is None else output_number(lift[0]),
        "lift-ci-low": "" if lift is None else output_number(lift[1]),
        "lift-ci-high": "" if lift is None else output_number(lift[2]),
        "lift-contrast": "" if lift is None else lift_contrast or "",
        "comment-url": comment_url or "",
        "changed-skills": "" if changed is None else "\n".join(changed),
    }
    for name, path in (reports or {}).items():
        values[f"{name}-report"] = "" if path is None else str(path)
    return values


def write_step_outputs(context: GitHubContext, values: Mapping[str, str]) -> None:
    if not write_outputs(context.output_path, values, context.secrets()):
        say(
            "GITHUB_OUTPUT is not set: outputs not written ("
            + ", ".join(f"{k}={v!r}" for k, v in values.items() if k in ("verdict", "score"))
            + ")"
        )


def publish_result(
    context: GitHubContext,
    client: GitHubClient | None,
    number: int | None,
    body: str,
    marker: str,
    *,
    values: Mapping[str, str],
    full_report: str | None,
    want_comment: bool,
    check_run: Callable[[], str] | None = None,
) -> str:
    """The outputs (all but ``comment-url``) and the job summary, then the comment and the check run, then
    ``comment-url``: in this order on every path of ``ci``, so a GitHub failure costs the comment, never the
    results. Returns why the comment or check run could not be published (empty when they were, or were refused).
    """
    write_step_outputs(context, {name: value for name, value in values.items() if name != "comment-url"})
    write_summary(context, body, note=summary_note(number, client, want_comment), full_report=full_report)
    published = publish_comment(context, client, number, body, marker, want_comment=want_comment)
    failed = published.failed
    if check_run is not None:
        failed = check_run() or failed
    write_step_outputs(context, {"comment-url": published.comment_url or ""})
    return failed


def exit_code_after_publishing(decision: GateDecision, failed: str) -> int:
    """The gate's exit code, except that a passing gate whose result could not be published is a runtime error."""
    if failed and decision.exit_code == EXIT_PASS:
        say("exit 3: the gate passed, but its result could not be published on GitHub (the reports hold it)")
        return EXIT_RUNTIME_ERROR
    return decision.exit_code
