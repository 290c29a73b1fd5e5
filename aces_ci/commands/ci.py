"""``aces-ci ci``: one command for a workflow step; it reads the GitHub event and does the right work.

* push / pull_request → the static scan (+ the LLM judge when aces.yml configures it and its key
  is set), the gate, annotations, the sticky PR comment (or the job summary on a fork), JUnit /
  SARIF / JSON / Markdown reports and the step outputs;
* a release or tag push → paired trials of the skills changed since the previous release tag,
  gated on each lift's interval, stored as the baselines on the results branch when the release
  passes, then SkillSV's valuation of their units on what the trials left of the budget; a
  same-repository pull request labelled with the trial label → its version of each
  changed skill against the base branch's, and with against without; a schedule or
  workflow_dispatch → a rerun of every skill's trial compared with the last release's baselines
  (:mod:`aces_ci.commands._ci_paid`). Each also runs the static scan, so one comment shows both;
* ``mode: value`` → SkillSV's valuation on the live agent of a same-repository pull request's
  changed skills, or of every skill under the path (:mod:`aces_ci.commands._ci_value`);
* a fork's pull request never gets paid work (its code runs without secrets): it is scanned, and
  the comment says why the trials did not run; nor does ``pull_request_target`` or any checkout of a
  fork's head, and there the LLM judge is off too and the model keys are withheld
  (:mod:`aces_ci.commands._ci_trust`);
* an ``/aces trial <sha>`` comment by a writer on a fork's pull request → the approved trial of the
  pinned commit, with the base's settings and the fork's files as data
  (:mod:`aces_ci.commands._ci_approved`);
* workflow_run of a pull request run → the fork-safe commenter: re-renders the comment from the
  scan JSON the pull request's run uploaded and posts it with this run's write token.

Exit codes are the contract's: 0 pass (warnings included), 1 gate failed (a scan criterion, a
lift whose interval lies at or below the fail band, a rerun's regression), 2 input or
configuration error, 3 GitHub or model API failure — including a gated measurement that could not
be made (verdict ``error``: a skill with no measured pair, or more than a tenth of its rollouts
lost to infrastructure; :func:`aces_ci.gate.infra_criterion`), from which nothing is stored.
Reports, outputs and the job summary are written before any comment or check-run call: a GitHub
failure there costs the comment only, and turns a passing gate's 0 into 3 (a failed gate keeps its 1).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .. import app
from ..atomic import write_output
from ..config import AcesConfig, find_project, repository_root, resolve_scan
from ..errors import EXIT_PASS, ConfigError, InputError
from ..gate import GateCriterion, GateDecision, decide, scan_criteria
from ..github import (
    DEFAULT_RESULTS_BRANCH,
    DEFAULT_TRIAL_LABEL,
    MODES,
    Annotation,
    ChangeSet,
    CommentInputs,
    EarlierTrials,
    GitHubClient,
    GitHubContext,
    GitHubError,
    Plan,
    annotate,
    change_set,
    earlier_trials,
    marker_for,
    plan_run,
    render_comment,
)
from ..redact import environment_secrets, redact_text
from ..report import SourceLinks, append_gate_suite, render_junit, skill_title, write_json, write_sarif
from ..scan import RuleRegistry, ScanResult, Shard, default_registry
from ..skillsv import compile_skill, compile_summary
from ..stats import Bands
from ._ci_trust import guard_untrusted
from ._publish import (
    exit_code_after_publishing,
    finding_annotations,
    outputs,
    publish_check_run,
    publish_result,
    say,
    write_step_outputs,
)
from ._run_options import _DOLLARS, _number, add_run_options
from ._scan_options import min_score, scan_flags, worker_count
from ._workflow_run import post_prepared_comment

if TYPE_CHECKING:  # the paid paths load the trials, the engine and the statistics: only paid runs import them
    from ..trials import TrialResult
    from ._ci_paid import PaidOutcome

DEFAULT_REPORTS = Path("aces-reports")
DEFAULT_VALUE_HOLDOUT = 0.25
"""Share of each valued skill's cases held out for SkillSV's pruning test (the comment's pruning chart)."""
_SHARE = _number(float, 0)


def _band(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not -1 <= value <= 1:
        raise argparse.ArgumentTypeError(f"a lift band lies in [-1, 1], got {value}")
    return value


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "ci",
        help="GitHub Actions entry point: pick the work from the event, gate, comment, annotate, write outputs",
        description="Read the GitHub Actions environment (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_REPOSITORY, "
        "GITHUB_SHA, GITHUB_API_URL, GITHUB_TOKEN, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY) and do the work its event "
        "calls for.",
    )
    parser.add_argument("path", nargs="?", default=Path("."), type=Path, metavar="PATH", help="skills repository")
    parser.add_argument("--mode", choices=MODES, default="auto", help="override the event's choice (default: auto)")
    parser.add_argument(
        "--trial-label", default=DEFAULT_TRIAL_LABEL, metavar="LABEL", help="PR label that asks for trials"
    )
    parser.add_argument("--config", type=Path, metavar="FILE", help="aces.yml to use (default: PATH/aces.yml)")
    parser.add_argument("--profile", choices=("strict", "lenient"), help="frontmatter profile (overrides aces.yml)")
    parser.add_argument("--min-score", type=min_score, metavar="N", help="gate's minimum structural score, 0-100")
    parser.add_argument("--baseline", type=Path, metavar="FILE", help="suppress the findings accepted in FILE")
    parser.add_argument("--judge", action=argparse.BooleanOptionalAction, default=None, help="LLM judge (as in scan)")
    parser.add_argument("--jobs", type=worker_count, default=None, metavar="N", help="scan worker processes")
    parser.add_argument("--shard", type=Shard.parse, metavar="I/N", help="scan only shard I of N (a matrix job)")
    parser.add_argument("--no-cache", action="store_true", help="read and write no scan result cache")
    parser.add_argument("--cache-dir", type=Path, metavar="DIR", help="scan result cache directory")
    reports = parser.add_argument_group("reports (an empty value turns one off)")
    reports.add_argument("--reports", type=Path, default=DEFAULT_REPORTS, metavar="DIR", help="default report folder")
    for name, default in (
        ("json", "results.json"),
        ("junit", "junit.xml"),
        ("sarif", "results.sarif"),
        ("markdown", "comment.md"),
    ):
        reports.add_argument(f"--{name}", metavar="FILE", help=f"default: DIR/{default}")
    github = parser.add_argument_group("GitHub")
    github.add_argument("--comment", action=argparse.BooleanOptionalAction, default=True, help="sticky PR comment")
    github.add_argument("--comment-key", metavar="KEY", help="keep one comment per KEY (e.g. per matrix job)")
    github.add_argument("--annotations", action=argparse.BooleanOptionalAction, default=True, help="::error lines")
    github.add_argument("--check-run", action="store_true", help="also publish a check run (needs checks: write)")
    github.add_argument("--report-url", metavar="URL", help="where the full report is (default: the run's page)")
    github.add_argument("--results", type=Path, metavar="DIR", help="workflow_run: the PR run's downloaded reports")
    gate = parser.add_argument_group("gate bands for trials (override aces.yml gate:)")
    gate.add_argument("--lift-metric", metavar="METRIC", help="metric the lift gate reads (default: outcome)")
    gate.add_argument("--pass-band", type=_band, metavar="X", help="pass when the lift's lower bound >= X (+0.05)")
    gate.add_argument("--fail-band", type=_band, metavar="X", help="fail when the lift's upper bound <= X (-0.10)")
    add_run_options(
        parser,
        title="run settings for trials (override aces.yml run:)",
        without=("--config", "--cache-dir", "--no-cache"),
    )
    trials = parser.add_argument_group("trial results")
    trials.add_argument("--rollout-cache", type=Path, metavar="DIR", help="rollout cache (default: aces.yml run:)")
    trials.add_argument("--no-rollout-cache", action="store_true", help="neither read nor write the rollout cache")
    value = parser.add_argument_group("SkillSV on a release and in mode value")
    value.add_argument(
        "--value",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="value the released skills' units after their trials (default: on)",
    )
    value.add_argument(
        "--value-budget-usd",
        type=_DOLLARS,
        metavar="X",
        help="at most X dollars for SkillSV (it only ever gets what the trials left of --budget-usd)",
    )
    value.add_argument(
        "--value-holdout",
        type=_holdout,
        default=DEFAULT_VALUE_HOLDOUT,
        metavar="SHARE",
        help="share of each skill's cases held out for the pruning test (default: %(default)s; 0: no curve)",
    )
    trials.add_argument(
        "--results-branch",
        default=DEFAULT_RESULTS_BRANCH,
        metavar="BRANCH",
        help="branch of origin keeping release baselines and rerun records ('' turns it off; default: %(default)s)",
    )
    parser.set_defaults(run=run, quiet=False, write_baseline=None)


def _holdout(text: str) -> float:
    share = _SHARE(text)
    if share >= 1:
        raise argparse.ArgumentTypeError(f"a held-out share lies in [0, 1), got {share}")
    return float(share)


def _bands(args: argparse.Namespace, config: AcesConfig) -> Bands:
    """The flags over aces.yml's ``gate:`` section (the bands ``aces-ci trial`` uses) over the defaults."""
    default = config.gate
    try:
        return dataclasses.replace(
            default,
            pass_band=default.pass_band if args.pass_band is None else args.pass_band,
            fail_band=default.fail_band if args.fail_band is None else args.fail_band,
            metric=args.lift_metric or default.metric,
        )
    except ValueError as error:
        raise ConfigError(str(error), field="gate.lift") from None


def _report_path(args: argparse.Namespace, name: str, default: str) -> Path | None:
    value: str | None = getattr(args, name)
    reports: Path = args.reports
    if value is None:
        return reports / default
    return Path(value) if value else None


def _links(context: GitHubContext, scan_root: Path) -> tuple[SourceLinks, Path | None]:
    """Links at the commit under test, with the scanned root's place in the repository."""
    top = repository_root(scan_root.resolve()) or context.workspace
    prefix = ""
    if top is not None:
        try:
            prefix = scan_root.resolve().relative_to(top.resolve()).as_posix()
        except ValueError:
            prefix = ""
    return SourceLinks(context.server_url, context.repository, context.head_sha, "" if prefix == "." else prefix), top


def _changes(plan: Plan, repo: Path | None, links: SourceLinks, result: ScanResult) -> ChangeSet:
    skill_dirs = [links.path(report.skill) if report.skill != "." else links.path("") for report in result.skills]
    return change_set(repo, plan.base, plan.head, [d.rstrip("/") or "." for d in skill_dirs])


def _relative_skills(changes: ChangeSet, links: SourceLinks) -> tuple[str, ...]:
    return tuple(links.scanned(skill) for skill in changes.skills)


MAX_COMPILE_NOTES = 20
"""Changed skills whose SkillSV compile summary the comment lists; the rest are counted."""


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


def _write_reports(
    args: argparse.Namespace, result: ScanResult, registry: RuleRegistry, decision: GateDecision
) -> dict[str, Path | None]:
    """The scan's reports; the JUnit file carries every gate criterion (a lift's failure names its metric and
    interval)."""
    paths = {
        "json": _report_path(args, "json", "results.json"),
        "junit": _report_path(args, "junit", "junit.xml"),
        "sarif": _report_path(args, "sarif", "results.sarif"),
    }
    if paths["json"] is not None:
        write_json(result, paths["json"])
    if paths["sarif"] is not None:
        write_sarif(result, registry, paths["sarif"])
    if paths["junit"] is not None:
        xml = append_gate_suite(render_junit(result, registry), decision.criteria, generated_at=result.generated_at)
        write_output(paths["junit"], redact_text(xml, environment_secrets()), "JUnit report")
    return paths


def _write_markdown(args: argparse.Namespace, body: str) -> dict[str, Path | None]:
    """The comment's body as the Markdown report (it waits for the earlier trials a comment may keep)."""
    path = _report_path(args, "markdown", "comment.md")
    if path is not None:
        write_output(path, redact_text(body, environment_secrets()), "Markdown report")
    return {"markdown": path}


def _client(context: GitHubContext) -> GitHubClient | None:
    return GitHubClient(context.api_url, context.token) if context.token else None


def _scan_relative(criteria: tuple[GateCriterion, ...], links: SourceLinks) -> tuple[GateCriterion, ...]:
    """Trial criteria name skills from the repository root; the scan's criteria and the links, from the scanned root."""
    return tuple(
        replace(c, subject=links.scanned(c.subject), file=None if c.file is None else links.scanned(c.file))
        for c in criteria
    )


def _scan_named(outcome: PaidOutcome, links: SourceLinks) -> PaidOutcome:
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


def _earlier(client: GitHubClient | None, context: GitHubContext, plan: Plan, marker: str) -> EarlierTrials:
    """The trials an earlier (labelled) run of this pull request left in our comment, to show again."""
    pr = plan.pull_request
    if client is None or pr is None:
        return EarlierTrials()
    try:
        earlier = earlier_trials(client, context.repository, pr.number, marker)
    except GitHubError as exc:
        say(f"the trials an earlier run kept in the comment could not be read: {exc}")
        return EarlierTrials()
    for note in earlier.ignored:
        say(note)
    kept = earlier.kept
    if kept is not None:
        stale = "" if kept.commit == context.head_sha else ", stale: the pull request changed since"
        say(f"the comment keeps the trials measured at {kept.commit[:12]}{stale}")
    return earlier


def _lift_annotations(criteria: tuple[GateCriterion, ...], links: SourceLinks, shown: PaidOutcome) -> list[Annotation]:
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


def run(args: argparse.Namespace) -> int:
    context = GitHubContext.from_env(os.environ)
    plan = plan_run(context, mode=args.mode, trial_label=args.trial_label)
    say(f"{context.event_name}: {plan.reason}")
    for note in plan.notes:
        say(note)
    if plan.work == "nothing":
        write_step_outputs(context, outputs(None, work="nothing") | {"verdict": "skipped"})
        return EXIT_PASS
    if plan.work == "comment":
        return post_prepared_comment(context, args)
    if not args.path.exists():
        raise InputError("path does not exist", path=str(args.path))
    if plan.work == "approval":
        from ._ci_approved import run_approved

        return run_approved(context, args, plan)
    plan, args, _ = guard_untrusted(context, plan, args)
    registry = default_registry()
    project = find_project(args.path, args.config)  # the run's one reading of aces.yml
    bands = _bands(args, project.config)
    scanning = app.scan(resolve_scan(project.config, scan_flags(args)), registry, project)
    for line in scanning.notes:
        print(f"aces-ci: note: {line}", file=sys.stderr)
    result, scan_root = scanning.result, scanning.root
    links, repo = _links(context, scan_root)
    notes: tuple[str, ...] = tuple(plan.notes)
    outcome: PaidOutcome | None
    if plan.paid:
        skill_dirs = [links.path(r.skill) if r.skill != "." else links.path("") for r in result.skills]
        from ._ci_paid import PaidRun

        paid = PaidRun(args, context, plan, project, repo or scan_root.resolve(), links=links)
        outcome = paid.run([d.rstrip("/") or "." for d in skill_dirs], bands)
        changes = outcome.changes
        decision = decide(scan_criteria(result), _scan_relative(outcome.criteria, links))
        notes = (*notes, *outcome.notes)
        if plan.work == "release":
            stored = paid.store_release(outcome, decision)
            notes = (*notes, stored) if stored else notes
    else:
        outcome = None
        changes = _changes(plan, repo, links, result)
        decision = decide(scan_criteria(result))
    say(f"changed skills: {', '.join(changes.skills) or 'none'} ({changes.reason})")
    scanned = tuple(report.skill for report in result.skills)
    compiled = _relative_skills(changes, links) if changes.known else scanned
    if outcome is not None and outcome.values:  # SkillSV ran: how it cut each skill explains its values
        cut, refused = compile_notes(scan_root, [skill for skill in compiled if skill in scanned])
        for line in cut:
            say(line)
        notes = (*notes, *refused)
    marker = marker_for(args.comment_key or (str(args.shard) if args.shard else None))
    full_report = args.report_url or context.run_url
    inputs = CommentInputs(
        decision=decision,
        registry=registry,
        scan=result,
        links=links,
        reason=plan.reason,
        notes=notes,
        changed=_relative_skills(changes, links) if changes.known else None,
        full_report_url=full_report,
        marker=marker,
        commit=context.head_sha,
    )
    if outcome is not None:
        shown = _scan_named(outcome, links)
        inputs = replace(
            inputs,
            trials=shown.trials,
            trials_title=shown.trials_title,
            more_trials=shown.more_trials,
            history=shown.history,
            trend=shown.trend,
            values=shown.values,
            lift=outcome.lift,
            lift_contrast=outcome.lift_contrast or "",
            triggers=outcome.triggers,
        )
    client = _client(context)
    try:
        # Every report, the outputs and the job summary are written before the first comment or check-run
        # call: a GitHub API failure then costs the comment, never the results.
        pr = plan.pull_request
        paths = _write_reports(args, result, registry, decision)
        if outcome is None or outcome.trials is None:
            earlier = _earlier(client, context, plan, marker)
            inputs = replace(inputs, kept=earlier.kept, notes=(*inputs.notes, *earlier.ignored))
        body = render_comment(inputs)
        paths |= _write_markdown(args, body)
        annotations = finding_annotations(result, links)
        if outcome is not None:
            from ._ci_value import delete_annotations

            annotations = (
                _lift_annotations(decision.criteria, links, shown)
                + delete_annotations(shown.values, links)
                + annotations
            )
            paths |= {f"{name}": path for name, path in outcome.reports.items()}
        if args.annotations:
            annotate(annotations, sys.stdout.write)
        scores = [report.score.value for report in result.skills]
        values = outputs(
            decision,
            work="scan" if outcome is None else plan.work,
            score=min(scores) if scores else None,
            reports=paths,
            changed=changes.skills,
            lift=outcome.lift if outcome is not None else None,
            lift_contrast=outcome.lift_contrast if outcome is not None else None,
        )
        failed = publish_result(
            context,
            client,
            pr.number if pr else None,
            body,
            marker,
            values=values,
            full_report=full_report,
            want_comment=args.comment,
            check_run=(
                (lambda: publish_check_run(context, client, decision, body, annotations)) if args.check_run else None
            ),
        )
    finally:
        if client is not None:
            client.close()
    say(
        f"gate: {decision.verdict} ({len(decision.with_status('fail'))} failed, "
        f"{len(decision.with_status('error'))} not measured (infrastructure), {len(decision.with_status('warn'))} "
        "warnings)"
    )
    return exit_code_after_publishing(decision, failed)
