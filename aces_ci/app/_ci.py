"""``app.ci``: one workflow step's run, from the GitHub event and a :class:`~aces_ci.config.CiConfig` to its outcome.

The event's plan (:func:`aces_ci.github.plan_run`) picks the work; this module walks it through the
rooms once, in order: the trust guard (:mod:`._ci_trust`), aces.yml read once, the scan
(:func:`aces_ci.app.scan`), the paid path when the plan has one (:mod:`._ci_paid`, :mod:`._ci_value`;
``mode: compress``'s proposal in :mod:`._ci_compress`), the gate's decision, the reports (:mod:`._ci_results`),
then GitHub (:func:`aces_ci.github.publish_result`).
The ``workflow_run`` commenter is GitHub's alone (:func:`aces_ci.github.post_prepared_comment`); an
``/aces trial`` approval has its own path (:mod:`._ci_approved`).

Reports, outputs and the job summary are written before any comment or check-run call: a GitHub
failure there costs the comment only, and turns a passing gate's 0 into 3 (a failed gate keeps its 1).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import CiConfig, Project, find_project, resolve_bands, resolve_scan
from ..errors import EXIT_PASS, ConfigError, InputError
from ..gate import GateDecision, decide, scan_criteria
from ..github import (
    ChangeSet,
    CommentInputs,
    GitHubClient,
    GitHubContext,
    Plan,
    Work,
    annotate,
    exit_code_after_publishing,
    finding_annotations,
    marker_for,
    outputs,
    plan_run,
    post_prepared_comment,
    publish_check_run,
    publish_result,
    render_comment,
    say,
    write_step_outputs,
)
from ..redact import command_writer
from ..report import SourceLinks
from ..scan import RuleRegistry, ScanResult, default_registry
from ..stats import Bands
from ._ci_results import (
    Shown,
    comment_inputs,
    compile_notes,
    earlier,
    lift_annotations,
    links_for,
    relative_skills,
    scan_changes,
    scan_named,
    scan_relative,
    skill_dirs,
    write_html_report,
    write_markdown,
    write_reports,
)
from ._ci_trust import guard_untrusted
from ._scan import scan

if TYPE_CHECKING:  # the paid paths load the trials, the engine and the statistics: only paid runs import them
    from ._ci_outcome import PaidOutcome


@dataclass(frozen=True)
class CiOutcome:
    """What one ``ci`` run did: the work its event called for, the gate's decision (when it gated), its exit code."""

    work: Work
    exit_code: int
    decision: GateDecision | None = None


@dataclass(frozen=True)
class Measured:
    """The checked-out tree's scan and, on a paid path, what it measured: what the gate, reports and comment read."""

    plan: Plan
    registry: RuleRegistry
    result: ScanResult
    scan_root: Path
    links: SourceLinks
    changes: ChangeSet
    decision: GateDecision
    notes: tuple[str, ...]
    outcome: PaidOutcome | None
    compressions: tuple[str, ...] = ()
    """``mode: compress``'s proposal sections for the comment (:mod:`._ci_compress`)."""


def ci(context: GitHubContext, config: CiConfig) -> CiOutcome:
    """Do the work ``context``'s event calls for with ``config``; the exit code follows the contract."""
    plan = plan_run(context, mode=config.mode, trial_label=config.trial_label)
    say(f"{context.event_name}: {plan.reason}")
    for note in plan.notes:
        say(note)
    if plan.work == "nothing":
        write_step_outputs(context, outputs(None, work="nothing") | {"verdict": "skipped"})
        return CiOutcome("nothing", EXIT_PASS)
    if plan.work == "comment":
        code = post_prepared_comment(context, config.results, config.path, config.github.comment_key)
        return CiOutcome("comment", code)
    if not config.path.exists():
        raise InputError("path does not exist", path=str(config.path))
    if plan.work == "approval":
        from ._ci_approved import run_approved

        return CiOutcome("approval", run_approved(context, config, plan))
    plan, config, _ = guard_untrusted(context, plan, config)
    if config.trial_parts or (plan.paid and config.scan.shard is not None):
        from ._ci_shard import check_shardable, run_shard  # a paid run over a workflow matrix

        if config.scan.shard is not None and config.trial_parts:
            raise ConfigError("--shard runs one shard and --trial-parts merges them: give one", field="--trial-parts")
        if config.scan.shard is not None:
            return CiOutcome(plan.work, run_shard(context, config, plan, config.scan.shard))
        check_shardable(plan, "--trial-parts")
    measured = _measure(context, config, plan)
    failed = _publish(context, config, measured)
    decision = measured.decision
    say(
        f"gate: {decision.verdict} ({len(decision.with_status('fail'))} failed, "
        f"{len(decision.with_status('error'))} not measured (infrastructure), {len(decision.with_status('warn'))} "
        "warnings)"
    )
    return CiOutcome(plan.work, exit_code_after_publishing(decision, failed), decision)


def _measure(context: GitHubContext, config: CiConfig, plan: Plan) -> Measured:
    """Scan the checked-out tree, run the plan's paid work on it, and gate both."""
    registry = default_registry()
    project = find_project(config.path, config.config_file)  # the run's one reading of aces.yml
    bands = resolve_bands(project.config, config.gate)
    scanning = scan(resolve_scan(project.config, config.scan), registry, project)
    for line in scanning.notes:
        print(f"aces-ci: note: {line}", file=sys.stderr)
    result, scan_root = scanning.result, scanning.root
    links, repo = links_for(context, scan_root)
    top = repo or scan_root.resolve()
    if not plan.paid:
        changes = scan_changes(plan, repo, links, result)
        decision = decide(scan_criteria(result))
        return Measured(plan, registry, result, scan_root, links, changes, decision, tuple(plan.notes), None)
    if plan.work == "compress":  # a proposal, never trials: its own room
        from ._ci_compress import CompressRun

        done = CompressRun(config, plan, project, top, links).run(skill_dirs(result, links))
        decision = decide(scan_criteria(result), scan_relative(done.paid.criteria, links))
        notes = (*plan.notes, *done.paid.notes)
        return Measured(
            plan, registry, result, scan_root, links, done.paid.changes, decision, notes, done.paid, done.sections
        )
    outcome, decision, notes = _paid(context, config, plan, project, top=top, links=links, result=result, bands=bands)
    return Measured(plan, registry, result, scan_root, links, outcome.changes, decision, notes, outcome)


def _paid(
    context: GitHubContext,
    config: CiConfig,
    plan: Plan,
    project: Project,
    *,
    top: Path,
    links: SourceLinks,
    result: ScanResult,
    bands: Bands,
) -> tuple[PaidOutcome, GateDecision, tuple[str, ...]]:
    """The plan's trials (and SkillSV), gated with the scan; a release's results stored on the results branch."""
    from ._ci_paid import PaidRun
    from ._ci_shard import read_ci_parts

    parts = read_ci_parts(config.trial_parts) if config.trial_parts else ()
    paid = PaidRun(config, context, plan, project, top, links=links, parts=parts)
    outcome = paid.run(skill_dirs(result, links), bands)
    decision = decide(scan_criteria(result), scan_relative(outcome.criteria, links))
    notes = (*plan.notes, *outcome.notes)
    if plan.work == "release":
        stored = paid.store_release(outcome, decision)
        notes = (*notes, stored) if stored else notes
    return outcome, decision, notes


def _compile_notes(measured: Measured) -> tuple[str, ...]:
    """When SkillSV ran, how it cut each changed skill goes to the log, and the skills it refused to the comment."""
    outcome = measured.outcome
    if outcome is None or not outcome.values:
        return measured.notes
    scanned = tuple(report.skill for report in measured.result.skills)
    changes = measured.changes
    compiled = relative_skills(changes, measured.links) if changes.known else scanned
    cut, refused = compile_notes(measured.scan_root, [skill for skill in compiled if skill in scanned])
    for line in cut:
        say(line)
    return (*measured.notes, *refused)


def _inputs(context: GitHubContext, config: CiConfig, measured: Measured) -> CommentInputs:
    changes = measured.changes
    shown = Shown(
        registry=measured.registry,
        links=measured.links,
        reason=measured.plan.reason,
        marker=marker_for(config.github.comment_key or (str(config.scan.shard) if config.scan.shard else None)),
        commit=context.head_sha,
        full_report_url=config.github.report_url or context.run_url,
        artifacts_url=f"{context.run_url}#artifacts" if context.run_url and config.reports.html else None,
    )
    changed = relative_skills(changes, measured.links) if changes.known else None
    notes = _compile_notes(measured)
    inputs = comment_inputs(
        shown, measured.decision, result=measured.result, notes=notes, changed=changed, outcome=measured.outcome
    )
    return replace(inputs, compressions=measured.compressions)


def _publish(context: GitHubContext, config: CiConfig, measured: Measured) -> str:
    """Reports, annotations, outputs, then the comment and check run; why publishing failed, else empty."""
    say(f"changed skills: {', '.join(measured.changes.skills) or 'none'} ({measured.changes.reason})")
    inputs = _inputs(context, config, measured)
    client = GitHubClient(context.api_url, context.token) if context.token else None
    try:
        # Every report, the outputs and the job summary are written before the first comment or check-run
        # call: a GitHub API failure then costs the comment, never the results.
        return _write_and_publish(context, config, measured, inputs, client)
    finally:
        if client is not None:
            client.close()


def _write_and_publish(
    context: GitHubContext, config: CiConfig, measured: Measured, inputs: CommentInputs, client: GitHubClient | None
) -> str:
    result, decision, outcome, plan = measured.result, measured.decision, measured.outcome, measured.plan
    paths = write_reports(config.reports, result, measured.registry, decision)
    if outcome is None or outcome.trials is None:
        kept = earlier(client, context, plan, inputs.marker)
        inputs = replace(inputs, kept=kept.kept, notes=(*inputs.notes, *kept.ignored))
    body = render_comment(replace(inputs, keep_digest=context.pull_request is not None))
    paths |= write_markdown(config.reports, body)
    if outcome is not None:
        paths |= dict(outcome.reports)
    skill_reports = outcome.skill_reports if outcome is not None else None
    paths |= write_html_report(config.reports, result, paths, measured.links, skill_reports)
    annotations = finding_annotations(result, measured.links)
    if outcome is not None:
        from ._ci_value import delete_annotations

        shown = scan_named(outcome, measured.links)
        annotations = (
            lift_annotations(decision.criteria, measured.links, shown)
            + delete_annotations(shown.values, measured.links)
            + annotations
        )
    if config.github.annotations:
        annotate(annotations, command_writer(sys.stdout))
    scores = [report.score.value for report in result.skills]
    values = outputs(
        decision,
        work="scan" if outcome is None else plan.work,
        score=min(scores) if scores else None,
        reports=paths,
        changed=measured.changes.skills,
        lift=outcome.lift if outcome is not None else None,
        lift_contrast=outcome.lift_contrast if outcome is not None else None,
    )
    pr = plan.pull_request
    return publish_result(
        context,
        client,
        pr.number if pr else None,
        body,
        inputs.marker,
        values=values,
        full_report=inputs.full_report_url,
        want_comment=config.github.comment,
        check_run=(
            (lambda: publish_check_run(context, client, decision, body, annotations))
            if config.github.check_run
            else None
        ),
    )
