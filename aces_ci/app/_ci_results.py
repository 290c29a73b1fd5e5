"""What a ``ci`` run writes and shows: its reports, the comment's inputs, skills named from the scanned root.

Shared by the event's own path (:mod:`._ci`) and the approved trial (:mod:`._ci_approved`), so both
write the same reports and build the comment from a paid outcome in one place
(:func:`comment_inputs`). Trial criteria and stored results name skills from the repository root;
the comment names them from the scanned root, as the scan tables do (:func:`scan_named`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..atomic import write_output
from ..config import CiReports, repository_root
from ..errors import InputError
from ..gate import GateCriterion, GateDecision
from ..github import (
    Annotation,
    ChangeSet,
    CommentInputs,
    EarlierTrials,
    GitHubClient,
    GitHubContext,
    GitHubError,
    Plan,
    change_set,
    earlier_trials,
    say,
)
from ..redact import environment_secrets, redact_text
from ..report import (
    SourceLinks,
    append_gate_suite,
    render_junit,
    scan_result_to_dict,
    skill_title,
    write_json,
    write_sarif,
)
from ..scan import RuleRegistry, ScanResult
from ..skillsv import compile_skill, compile_summary

if TYPE_CHECKING:  # the paid paths load the trials, the engine and the statistics: only paid runs import them
    from ..trials import TrialResult
    from ._ci_outcome import PaidOutcome

MAX_COMPILE_NOTES = 20
"""Changed skills whose SkillSV compile summary the log lists; the rest are counted."""


@dataclass(frozen=True)
class Shown:
    """Where the comment points and what it is keyed by: shared by every path that comments."""

    registry: RuleRegistry
    links: SourceLinks
    reason: str
    marker: str
    commit: str | None
    full_report_url: str | None
    artifacts_url: str | None


def links_for(context: GitHubContext, scan_root: Path) -> tuple[SourceLinks, Path | None]:
    """Links at the commit under test, with the scanned root's place in the repository."""
    top = repository_root(scan_root.resolve()) or context.workspace
    prefix = ""
    if top is not None:
        try:
            prefix = scan_root.resolve().relative_to(top.resolve()).as_posix()
        except ValueError:
            prefix = ""
    return SourceLinks(context.server_url, context.repository, context.head_sha, "" if prefix == "." else prefix), top


def skill_dirs(result: ScanResult, links: SourceLinks) -> list[str]:
    """The scanned skills' folders relative to the repository (``.`` for a skill at its root)."""
    dirs = [links.path(report.skill) if report.skill != "." else links.path("") for report in result.skills]
    return [d.rstrip("/") or "." for d in dirs]


def scan_changes(plan: Plan, repo: Path | None, links: SourceLinks, result: ScanResult) -> ChangeSet:
    """The skills this change touched, for a scan-only run."""
    return change_set(repo, plan.base, plan.head, skill_dirs(result, links))


def relative_skills(changes: ChangeSet, links: SourceLinks) -> tuple[str, ...]:
    return tuple(links.scanned(skill) for skill in changes.skills)


def compile_notes(scan_root: Path, skills: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """How SkillSV cuts each skill (units, edges, tokens, contractions), and the skills it cannot cut. Fast, no model.

    ``skills`` are skill directories relative to ``scan_root`` (``.`` for the root itself). The first
    list is for the log: compile counts are SkillSV's working, not a finding, and would open the comment
    with jargon. The second (a skill the compiler refuses, with its reason) is for the comment too: its
    valuation is missing for that reason. Nothing here fails the run.
    """
    cut, refused = [], []
    for skill in skills[:MAX_COMPILE_NOTES]:
        try:
            game = compile_skill(scan_root / skill)
        except InputError as exc:
            refused.append(f"SkillSV cannot compile {skill_title(skill, (scan_root / skill).resolve().name)}: {exc}")
            continue
        cut.append(f"SkillSV compile of {skill_title(skill, game.name)}: {compile_summary(game)}.")
    if len(skills) > MAX_COMPILE_NOTES:
        cut.append(f"SkillSV compile: {len(skills) - MAX_COMPILE_NOTES} more changed skills not listed.")
    return tuple(cut), tuple(refused)


def write_reports(
    reports: CiReports, result: ScanResult, registry: RuleRegistry, decision: GateDecision
) -> dict[str, Path | None]:
    """The scan's reports; the JUnit file carries every gate criterion (a lift's failure names its metric and
    interval)."""
    paths = {"json": reports.json, "junit": reports.junit, "sarif": reports.sarif}
    if reports.json is not None:
        write_json(result, reports.json)
    if reports.sarif is not None:
        write_sarif(result, registry, reports.sarif)
    if reports.junit is not None:
        xml = append_gate_suite(render_junit(result, registry), decision.criteria, generated_at=result.generated_at)
        write_output(reports.junit, redact_text(xml, environment_secrets()), "JUnit report")
    return paths


def write_markdown(reports: CiReports, body: str) -> dict[str, Path | None]:
    """The comment's body as the Markdown report (it waits for the earlier trials a comment may keep)."""
    if reports.markdown is not None:
        write_output(reports.markdown, redact_text(body, environment_secrets()), "Markdown report")
    return {"markdown": reports.markdown}


def write_html_report(
    reports: CiReports,
    result: ScanResult,
    written: Mapping[str, Path | None],
    links: SourceLinks | None = None,
    skill_reports: Mapping[Path, str] | None = None,
) -> dict[str, Path | None]:
    """One page of everything this run measured: the scan, then each trial, the trigger trial and each SkillSV
    and compress report it wrote.

    Rendered from the same JSON documents the run wrote (:mod:`aces_ci.report.html`), so ``aces-ci
    report`` re-renders it from the artifact; here, where the run knows its repository (``links``, at the
    commit, prefixed with the scanned root) and which skill each SkillSV or compress report is about
    (``skill_reports``), every file:line on the page also links to its lines, as the comment's do.
    """
    if reports.html is None:
        return {}
    from ..report.html import document_from, read_documents, write_html

    files = [path for name, path in written.items() if name.startswith(("trial", "triggers")) and path is not None]
    for name in ("value", "compress"):
        folder = written.get(name)
        if folder is not None:
            files += sorted(folder.glob("*.json"))
    try:
        documents = [document_from(scan_result_to_dict(result), str(reports.json or "results.json"))]
        documents += read_documents(files)
    except InputError as exc:  # the page is a view of reports already written: never worth the comment
        say(f"the HTML report was not written: {exc}")
        return {"html": None}
    if links is not None:
        skills = {str(path): skill for path, skill in (skill_reports or {}).items()}
        documents = [replace(doc, links=document_links(doc.kind, doc.source, links, skills)) for doc in documents]
    write_html(reports.html, documents)
    return {"html": reports.html}


def document_links(kind: str, source: str, links: SourceLinks, skills: Mapping[str, str]) -> SourceLinks | None:
    """Where a result's paths start in the repository: a scan names files from the scanned root (``links``' own
    prefix), a SkillSV or compress report from its skill's folder (``skills``: report file → the skill's
    repository-relative folder, as the run that wrote it named it). None for a result the run did not write."""
    if kind == "scan":
        return links
    skill = skills.get(source) if kind in ("value", "compress") else None
    if skill is None:
        return None
    return links.under(skill)


def scan_relative(criteria: tuple[GateCriterion, ...], links: SourceLinks) -> tuple[GateCriterion, ...]:
    """Trial criteria name skills from the repository root; the scan's criteria and the links, from the scanned root."""
    return tuple(
        replace(c, subject=links.scanned(c.subject), file=None if c.file is None else links.scanned(c.file))
        for c in criteria
    )


def scan_named(outcome: PaidOutcome, links: SourceLinks) -> PaidOutcome:
    """The paid outcome as the comment shows it: every skill named from the scanned root, as the scan tables name
    them, so a skills folder's trial rows meet its scan rows (score vs lift). The stored results keep the
    repository's names."""

    def named(result: TrialResult) -> TrialResult:
        skills = tuple(
            replace(s, skill=links.scanned(s.skill), skill_md=links.scanned(s.skill_md)) for s in result.skills
        )
        return replace(result, skills=skills)

    return replace(
        outcome,
        trials=None if outcome.trials is None else named(outcome.trials),
        more_trials=tuple((title, named(result)) for title, result in outcome.more_trials),
        history=tuple(
            replace(item, skill=links.scanned(item.skill), skill_md=links.scanned(item.skill_md))
            for item in outcome.history
        ),
        values=tuple(
            replace(
                view,
                skill=links.scanned(view.skill),
                units=tuple(replace(unit, file=links.scanned(unit.file)) for unit in view.units),
            )
            for view in outcome.values
        ),
    )


def comment_inputs(
    shown: Shown,
    decision: GateDecision,
    *,
    result: ScanResult,
    notes: tuple[str, ...],
    changed: tuple[str, ...] | None,
    outcome: PaidOutcome | None,
) -> CommentInputs:
    """The comment's inputs, built once for every path: the scan, and a paid outcome's trials, history, trend,
    values and trigger trial as the comment names them (:func:`scan_named`)."""
    inputs = CommentInputs(
        decision=decision,
        registry=shown.registry,
        scan=result,
        links=shown.links,
        reason=shown.reason,
        notes=notes,
        changed=changed,
        full_report_url=shown.full_report_url,
        marker=shown.marker,
        commit=shown.commit,
        artifacts_url=shown.artifacts_url,
    )
    if outcome is None:
        return inputs
    named = scan_named(outcome, shown.links)
    return replace(
        inputs,
        trials=named.trials,
        trials_title=named.trials_title,
        more_trials=named.more_trials,
        history=named.history,
        trend=named.trend,
        values=named.values,
        lift=outcome.lift,
        lift_contrast=outcome.lift_contrast or "",
        triggers=outcome.triggers,
    )


def earlier(client: GitHubClient | None, context: GitHubContext, plan: Plan, marker: str) -> EarlierTrials:
    """The trials an earlier (labelled) run of this pull request left in our comment, to show again."""
    pr = plan.pull_request
    if client is None or pr is None:
        return EarlierTrials()
    try:
        kept = earlier_trials(client, context.repository, pr.number, marker)
    except GitHubError as exc:
        say(f"the trials an earlier run kept in the comment could not be read: {exc}")
        return EarlierTrials()
    for note in kept.ignored:
        say(note)
    if kept.kept is not None:
        stale = "" if kept.kept.commit == context.head_sha else ", stale: the pull request changed since"
        say(f"the comment keeps the trials measured at {kept.kept.commit[:12]}{stale}")
    return kept


def lift_annotations(criteria: tuple[GateCriterion, ...], links: SourceLinks, shown: PaidOutcome) -> list[Annotation]:
    """A failed or warned lift or regression on the skill's SKILL.md, so the run's page shows it (titled by the
    skill as the comment heads it)."""
    trials = [shown.trials] if shown.trials is not None else []
    trials += [result for _, result in shown.more_trials]
    titles = {s.skill: skill_title(s.skill, s.name) for result in trials for s in result.skills}
    titles |= {v.skill: skill_title(v.skill, v.name) for v in shown.values}
    out = []
    for criterion in criteria:
        if criterion.status not in ("fail", "error", "warn") or criterion.name.startswith("scan."):
            continue
        level: Literal["error", "warning"] = "error" if criterion.status in ("fail", "error") else "warning"
        path = links.path(criterion.file) if criterion.file else None
        title = f"{criterion.name} ({titles.get(criterion.subject, criterion.subject)})"
        out.append(Annotation(level, criterion.message, path, criterion.line, title))
    return out
