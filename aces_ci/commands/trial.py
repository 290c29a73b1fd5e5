"""``aces-ci trial``: paired trials of one or more skills on a live agent, with a verdict read off each interval.

``aces-ci trial SKILL_DIR… [--evals PATH] [--against REF] [--runs N] [--seed S] [--mode isolation|group]
[--control aa] [--metadata-only] [--sequential] [--plan]`` plus the run flags of ``rollout`` and
``--json --markdown --junit --html``. Each skill's cases run with it and without it (or against its
version at REF), ``--runs`` times per case and condition; the lift of every metric comes with
its case-clustered interval, n, runs, coupling and smallest detectable effect, and the verdict
reads the gated metric's interval against the bands of aces.yml ``gate:``.

Exit codes:

* 0 — every skill ``pass`` or ``neutral``; ``underpowered`` is 0 too, with a warning on stderr,
  because "this design could not tell" is not evidence of harm (aces.yml ``gate.underpowered:
  fail`` makes it 1). ``--plan`` is 0 once it printed a plan.
* 1 — a skill fails: its interval lies at or below the fail band.
* 2 — bad input or configuration, before anything is paid for (a missing skill or dataset, a bad
  ref, a skill absent at the ref, a leaked baseline, a bad flag); ``--plan`` with no pilot.
* 3 — no skill fails, but some rollouts ended as infrastructure errors or their grading failed:
  the verdicts use the rest, and a rerun retries exactly those (completed rollouts come from the
  cache). A budget stop is not an error: the report says what ran and what did not. The circuit breaker
  (consecutive infrastructure errors, :mod:`aces_ci.engine._breaker`) is one: exit 3, the rest not run.

An identical rerun with the same cache makes zero model calls. ``--shard I/N --part FILE`` runs one
matrix job's share of a fixed design and writes its part instead of a verdict
(:mod:`aces_ci.commands._trial_shard`); ``aces-ci merge`` replays the trial over every part.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import app
from ..config import NOT_GIVEN, Given, TrialFlags, TrialReports, given
from ..errors import EXIT_GATE_FAILED, EXIT_PASS, EXIT_RUNTIME_ERROR, InputError
from ..report import render_plan_text, render_trial_text, trial_warnings, write_plan_json, write_trial_reports
from ..scan import Shard
from ..trials import TRIAL_METRICS, TrialResult
from ._run_options import add_judge_options, add_run_options, band, judge_flags, positive, run_flags, stress_levels
from ._trial_shard import run_shard
from ._trial_triggers import recall_floor, run_triggers


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "trial",
        help="measure each skill's lift on a live agent: with it against without it (or an earlier version)",
        description="Run each skill's eval cases with and without the skill (or against its version at a git "
        "ref), several runs per case, and report every metric's lift with its interval; the verdict reads the "
        "interval against the gate's bands (aces.yml gate:).",
    )
    parser.add_argument("skill_dirs", nargs="+", type=Path, metavar="SKILL_DIR", help="folder holding SKILL.md")
    protocol = parser.add_argument_group("protocol (override aces.yml trial:)")
    protocol.add_argument("--evals", type=Path, metavar="PATH", help="dataset to use instead of SKILL_DIR/evals/")
    protocol.add_argument(
        "--against", metavar="REF", help="control: the skill as it was at git ref REF (--triggers: its description)"
    )
    protocol.add_argument("--mode", choices=("isolation", "group"), help="group: decoys in every condition")
    protocol.add_argument("--coupling", choices=("independent", "shared-seed"), help="how conditions share seeds")
    protocol.add_argument(
        "--decoys", nargs="*", type=Path, metavar="PATH", help="decoy skills (none given: the repository's others)"
    )
    protocol.add_argument("--support", nargs="+", type=Path, metavar="PATH", help="skills staged in every condition")
    protocol.add_argument("--control", choices=("aa",), help="aa: add an A/A control (the noise floor)")
    protocol.add_argument("--metadata-only", action="store_true", help="split the lift into presence and content")
    protocol.add_argument(
        "--stress", type=stress_levels, metavar="N,N,…", help="routing stress test at N visible decoys"
    )
    protocol.add_argument("--sequential", action="store_true", help="add runs until the verdict is settled")
    protocol.add_argument(
        "--cap-tokens", type=positive(int), metavar="N", help="ex-ante cap per rollout (tokens in + out), both arms"
    )
    protocol.add_argument("--cap-usd", type=positive(float), metavar="X", help="ex-ante cap per rollout in dollars")
    protocol.add_argument("--plan", action="store_true", help="from cached runs, size a design; run nothing")
    protocol.add_argument(
        "--triggers",
        action="store_true",
        help="trigger trial: each query of evals/eval_queries.json runs to the agent's first decision only",
    )
    protocol.add_argument(
        "--host",
        choices=tuple(app.HOSTS),
        default=TrialFlags.host,
        help="--triggers: list the skills as this host does",
    )
    protocol.add_argument(
        "--min-recall", type=recall_floor, metavar="X", help="--triggers: fail a skill whose recall stays below X"
    )
    protocol.add_argument("--target-lift", type=band, metavar="X", help="the lift --plan sizes a design for")
    gate = parser.add_argument_group("gate (override aces.yml gate:)")
    gate.add_argument("--lift-metric", choices=TRIAL_METRICS, help="metric the verdict reads (default: outcome)")
    gate.add_argument("--pass-band", type=band, metavar="X", help="pass when the lift's lower bound >= X (+0.05)")
    gate.add_argument("--fail-band", type=band, metavar="X", help="fail when the lift's upper bound <= X (-0.10)")
    reports = parser.add_argument_group("reports")
    reports.add_argument(
        "--json", metavar="FILE", help="write the result (schemas/trial-result.schema.json; --triggers: trigger-result)"
    )
    reports.add_argument("--markdown", metavar="FILE", help="write the Markdown report")
    reports.add_argument("--junit", metavar="FILE", help="write JUnit XML (one testcase per skill)")
    reports.add_argument("--html", type=Path, metavar="FILE", help="write the self-contained HTML report to FILE")
    reports.add_argument("--quiet", action="store_true", help="do not print the report on stdout")
    scale = parser.add_argument_group("scale-out over a workflow matrix (README: Scale-out)")
    scale.add_argument(
        "--shard",
        type=Shard.parse,
        metavar="I/N",
        help="run only shard I of N of a fixed design ((skill, case) units balanced by expected cost) and write "
        "--part; `aces-ci merge` replays the trial over every part",
    )
    scale.add_argument("--part", type=Path, metavar="FILE", help="--shard: write the shard's part file here")
    add_run_options(parser)
    add_judge_options(parser)
    parser.set_defaults(run=run)


def trial_flags(args: argparse.Namespace) -> TrialFlags:
    """What this verb's command line gave, for :func:`aces_ci.config.resolve_trial`."""
    if args.decoys is None:
        decoys: Given[tuple[Path, ...] | None] = NOT_GIVEN
    else:
        decoys = tuple(args.decoys) or None  # ``--decoys`` with no path: the repository's other skills
    return TrialFlags(
        run=run_flags(args, args.cache_dir, args.no_cache),
        judge=judge_flags(args),
        coupling=given(args.coupling),
        mode=given(args.mode),
        against=args.against,
        aa=args.control == "aa",
        metadata_only=bool(args.metadata_only),
        stress=given(args.stress),
        sequential=bool(args.sequential),
        cap_tokens=given(args.cap_tokens),
        cap_usd=given(args.cap_usd),
        lift_metric=given(args.lift_metric),
        pass_band=given(args.pass_band),
        fail_band=given(args.fail_band),
        decoys=decoys,
        supporting=tuple(args.support) if args.support else NOT_GIVEN,
        evals=args.evals,
        target_lift=given(args.target_lift),
        reports=TrialReports(
            json=None if args.json is None else Path(args.json),
            markdown=None if args.markdown is None else Path(args.markdown),
            junit=None if args.junit is None else Path(args.junit),
            html=args.html,
        ),
        host=args.host,
        min_recall=args.min_recall,
    )


def exit_code(result: TrialResult) -> int:
    """The contract of the module docstring."""
    if result.verdict == "fail":
        return EXIT_GATE_FAILED
    if result.infra_errors or result.stopped_by == "circuit_breaker":
        return EXIT_RUNTIME_ERROR
    return EXIT_PASS


def run(args: argparse.Namespace) -> int:
    if args.shard is not None or args.part is not None:
        return run_shard(args, trial_flags(args))
    if args.html is not None and args.plan:
        raise InputError("--html renders a trial's result; --plan writes none", field="--html")
    skill_dirs, project, config = app.trial_request(args.skill_dirs, trial_flags(args), args.config)
    if args.triggers:
        return run_triggers(app.triggers(skill_dirs, project, config), config, quiet=args.quiet)
    if args.plan:
        plans = app.trial_plan(skill_dirs, project, config)
        gate = config.gate
        if not args.quiet:
            sys.stdout.write(render_plan_text(plans, gate.metric, 1.0 - gate.alpha))
        if config.reports.json is not None:
            write_plan_json(plans, gate.metric, 1.0 - gate.alpha, config.reports.json)
        return EXIT_PASS
    result = app.trial(skill_dirs, project, config)
    if not args.quiet:
        sys.stdout.write(render_trial_text(result))
        sys.stdout.flush()
    write_trial_reports(result, config.reports)
    for warning in trial_warnings(result):
        print(f"aces-ci: {warning}", file=sys.stderr)
    return exit_code(result)
