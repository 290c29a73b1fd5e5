"""Where a CI run's results go on GitHub: sticky comment (or the job summary), annotations, check run, outputs.

Shared by every path of ``aces-ci ci`` (the scan now, trials and SkillSV when they are wired in)
and by the ``workflow_run`` commenter. Each destination fails soft where GitHub's permissions are
the cause — a fork's read-only token, a workflow without ``checks: write`` — and says so in the
log, because the gate's verdict must not depend on whether a comment could be posted.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..gate import GateDecision
from ..github import (
    Annotation,
    GitHubClient,
    GitHubContext,
    append_step_summary,
    create_check_run,
    upsert_comment,
    write_outputs,
)
from ..report import SourceLinks, by_severity_then_location, skill_title
from ..scan import ScanResult, Severity

_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def say(message: str) -> None:
    print(f"aces-ci: {message}", file=sys.stderr)


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
    summary_written: bool = False


def publish_comment(
    context: GitHubContext,
    client: GitHubClient | None,
    number: int | None,
    body: str,
    marker: str,
    *,
    full_report: str | None,
    want_comment: bool,
) -> Published:
    """Post ``body`` as the sticky comment; otherwise (or also) put it in the job summary, saying why."""
    hidden = context.secrets()
    note = ""
    url = None
    if number is None:
        note = ""
    elif not want_comment:
        note = "PR comment disabled (comment: false)."
    elif client is None:
        note = "No GITHUB_TOKEN: the PR comment was not posted; the result is in this job summary."
        say(note)
    else:
        outcome = upsert_comment(client, context.repository, number, body, marker)
        if outcome.action == "refused":
            note = (
                "The PR comment could not be posted: this token may not write to the pull request "
                "(a fork's pull request gets a read-only token). The result is in this job summary instead; "
                "the workflow_run commenter can post it (see the README)."
            )
            say(f"{note} GitHub said: {outcome.reason}")
        else:
            url = outcome.url
            say(f"PR comment {outcome.action}: {url or '(no URL returned)'}")
    summary = f"> {note}\n\n{body}" if note else body
    written = append_step_summary(context.summary_path, summary, full_report=full_report, extra_secrets=hidden)
    return Published(url, written)


def publish_check_run(
    context: GitHubContext,
    client: GitHubClient | None,
    decision: GateDecision,
    summary: str,
    annotations: Iterable[Annotation],
) -> None:
    if client is None:
        say("check run skipped: no GITHUB_TOKEN")
        return
    conclusion = {"fail": "failure", "warn": "neutral", "pass": "success"}[decision.verdict]
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
    if result.created:
        say(f"check run created with {result.annotations} annotation(s): {result.url or ''}")
    else:
        say(f"check run not created (the workflow needs `checks: write`): {result.reason}")


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
        "lift": "" if lift is None else f"{lift[0]:.6g}",
        "lift-ci-low": "" if lift is None else f"{lift[1]:.6g}",
        "lift-ci-high": "" if lift is None else f"{lift[2]:.6g}",
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
