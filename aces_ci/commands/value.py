"""``aces-ci value``: what is each unit of a skill worth? (SkillSV)

Compiles the skill, samples feasible insertion orders, scores every prefix of each order on a
shared window of cases with an oracle, under deletion (ρ_del) and length-neutral padding (ρ_pad),
and reports first what to do — per unit keep / delete / negligible / compress / unresolved, read off
its 95% interval against the margin δ (``--margin``, aces.yml ``value.margin``), with the scores an
unresolved unit would need — then its net effect, content value and context cost, the anchors
V(∅), V({m}), V(N), the content lift, the whole skill's score per case, and what it cost (rollouts
paid, scores served by the caches). The plan (design, scores, rollouts) is printed before anything
is spent, sized down to ``--max-rollouts``; ``--plan`` prints only the plan.

The oracle is the live agent by default: each coalition's rendered skill is run on the cases a
trial would run (the skill's dataset, or the file ``--evals`` names) through one rollout engine
with the run settings of ``rollout`` (provider, model, harness, runs, budget, journal; aces.yml
``run:`` fills the gaps) and graded as a trial grades, with the trial's judge, on ``--metric``: a
metric, ``composite`` or ``outcome`` (``app/_value_live.py``; the report's
``settings.score`` states the definition). ``--oracle python:MODULE:FUNC`` scores with a
function instead, on the cases of ``--evals`` as written.
Every score is kept in a cache on disk as it arrives, and every rollout in the engine's cache and
journal, so a killed valuation loses nothing and an unchanged rerun calls the model zero times.

``--shard I/N`` splits the valuation over a workflow matrix: the shard draws the whole design from the
seed and scores only its share (each coalition with every case the design scores it on, balanced by
expected cost), writing a part to ``--json``; ``aces-ci merge part-*.json --json value.json`` replays the
valuation from the parts into the report an unsharded run gives. Settings whose scores depend on earlier
scores (``--tolerance``, ``--holdout``, ``--budget-usd``, aces.yml ``value.adaptive``) are refused with
``--shard`` (exit 2). A shard exits 3 when its oracle failed, its part written with what it scored.

Exit codes: 0 the valuation ran (a budget stop after a completed chain included: the values so far
are reported, with their wider intervals); 2 bad input or configuration (no skill, no cases, a bad ``--oracle``, an
oracle module that cannot be imported, a case the live agent's answer cannot be scored on with
the chosen metric and judge, a judge that cannot run, settings out of range); 3 the oracle
failed while scoring (it raised or returned a non-number, or every chain of a wave failed; a single
rollout's timeout or infrastructure error is retried, then its chains left out, and said), or no
chain completed at all (nothing measured: the report says what ran and concludes nothing); what was
scored is kept.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from .. import app
from ..config import Project, ValueConfig, ValueFlags
from ..errors import EXIT_PASS, EXIT_RUNTIME_ERROR, ConfigError
from ..report import render_value_plan, render_value_text, write_value_part, write_value_reports
from ..scan import Shard
from ._run_options import _COUNT, add_judge_options, add_run_options
from ._value_options import DEFAULTS, FRACTION, add_valuation_options, valuation_flags


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "value",
        help="estimate what each unit of a skill is worth (SkillSV)",
        description="Value every unit of the skill in SKILL_DIR: net effect (deletion), content value "
        "(length-neutral padding) and context cost, each with a 95% interval and a decision.",
    )
    parser.add_argument("skill_dir", type=Path, metavar="SKILL_DIR", help="folder holding SKILL.md")
    add_valuation_options(parser)
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the value report as JSON to FILE")
    parser.add_argument("--html", type=Path, metavar="FILE", help="write the self-contained HTML report to FILE")
    parser.add_argument(
        "--tolerance",
        type=FRACTION,
        metavar="TAU",
        help="truncate a chain once a prefix is within τ of the full skill (the paper's τ = 0.05); default off: "
        "truncation pulls every value toward 0",
    )
    parser.add_argument(
        "--gate-hits", type=_COUNT, default=DEFAULTS.gate_hits, metavar="N", help="prefixes within τ before truncating"
    )
    parser.add_argument(
        "--no-antithetic", action="store_true", help="draw every order independently (default: pairs from u, 1 − u)"
    )
    parser.add_argument(
        "--pairs-per-window",
        type=_COUNT,
        default=DEFAULTS.pairs_per_window,
        metavar="N",
        help="chains (antithetic pairs) scored on one window of cases (default 2)",
    )
    parser.add_argument(
        "--exact", action="store_true", help=f"enumerate μ-exact values (≤ {app.MAX_EXACT_UNITS} units)"
    )
    parser.add_argument(
        "--holdout",
        type=FRACTION,
        default=DEFAULTS.holdout,
        metavar="SHARE",
        help="hold out this share of cases for the pruning test against Closure-LOO and random (default: no test)",
    )
    parser.add_argument("--max-evaluations", type=_COUNT, metavar="N", help="stop after N coalition scores")
    parser.add_argument(
        "--plan",
        action="store_true",
        help="print the design and what it will cost (scores, rollouts), sized to the budget, and spend nothing",
    )
    parser.add_argument(
        "--shard",
        type=Shard.parse,
        metavar="I/N",
        help="score only shard I of N of the valuation's design and write its part to --json; "
        "`aces-ci merge part-*.json` replays the whole valuation from the N parts",
    )
    add_run_options(parser)
    add_judge_options(parser)
    parser.set_defaults(run=run)


def value_flags(args: argparse.Namespace) -> ValueFlags:
    """What this verb's command line gave, for :func:`aces_ci.config.resolve_value`."""
    return replace(
        valuation_flags(args),
        tolerance=args.tolerance,
        gate_hits=args.gate_hits,
        antithetic=not args.no_antithetic,
        pairs_per_window=args.pairs_per_window,
        exact=bool(args.exact),
        holdout=args.holdout,
        max_evaluations=args.max_evaluations,
    )


def _print_plan(planned: app.ValuePlan) -> None:
    """The plan on stdout before anything is spent (flushed: a long valuation shows it at once)."""
    render_value_plan(planned.game, planned.plan, planned.settings, planned.runs, sys.stdout)
    sys.stdout.flush()


def _run_shard(args: argparse.Namespace, skill_dir: Path, project: Project, config: ValueConfig) -> int:
    """One shard: its share of the design scored, its part written to --json; exit 3 if the oracle failed."""
    shard: Shard = args.shard
    if args.json is None:
        raise ConfigError("a shard writes its part to --json FILE, which `aces-ci merge` reads", field="--shard")
    if args.html is not None:
        raise ConfigError("a shard has no values to show; --html goes to `aces-ci merge`", field="--html")
    part = app.value_shard(skill_dir, project, config, shard.index, shard.count, on_plan=_print_plan)
    write_value_part(part, args.json)
    scored = len(part.records)
    print(
        f"shard {shard}: {scored} of its {part.owned} scores ({part.identity.design_scores} in the whole design), "
        f"{part.paid} rollouts paid; part written to {args.json}"
    )
    if part.stopped_by is not None:
        print(f"stopped early ({part.stopped_by}): {part.error or 'no detail'}; run this shard again to resume")
    return EXIT_RUNTIME_ERROR if part.stopped_by == "oracle_error" else EXIT_PASS


def run(args: argparse.Namespace) -> int:
    skill_dir, project, config = app.value_request(args.skill_dir, value_flags(args), args.config)
    if args.plan:
        _print_plan(app.value_plan(skill_dir, project, config))
        return EXIT_PASS

    if args.shard is not None:
        return _run_shard(args, skill_dir, project, config)
    report = app.value(skill_dir, project, config, on_plan=_print_plan)
    render_value_text(report, sys.stdout)
    write_value_reports(report, args.json, args.html)
    measured = report.valuation.measured
    return EXIT_RUNTIME_ERROR if report.valuation.stopped_by == "oracle_error" or not measured else EXIT_PASS
