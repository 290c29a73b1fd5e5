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
metric, ``composite`` or ``outcome`` (``commands/_value_live.py``; the report's
``settings.score`` states the definition). ``--oracle python:MODULE:FUNC`` scores with a
function instead, on the cases of ``--evals`` as written.
Every score is kept in a cache on disk as it arrives, and every rollout in the engine's cache and
journal, so a killed valuation loses nothing and an unchanged rerun calls the model zero times.

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
import dataclasses
import sys
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TextIO

from tabulate import tabulate

from ..atomic import write_output
from ..config import Project, find_project
from ..errors import EXIT_PASS, EXIT_RUNTIME_ERROR, ConfigError, InputError
from ..evals import Dataset, find_datasets
from ..report import json_bytes
from ..skillsv import (
    ORDER_DISTRIBUTIONS,
    CompiledSkill,
    DecisionRules,
    Estimate,
    EstimatorSettings,
    EvaluationStore,
    LiveScorer,
    Plan,
    PythonScorer,
    RenderingOracle,
    ScoreSettings,
    Sessions,
    SkillScorer,
    Task,
    TooLargeForExact,
    UniformIntractable,
    Valuation,
    ValueReport,
    ValueSettings,
    compile_skill,
    decision_line,
    decision_summary,
    load_tasks,
    plan_valuation,
    valuate,
    value_json,
)
from ._run_options import _COUNT, _number, add_run_options
from ._trial_judge import add_judge_options, configured_judge
from ._value_live import DEFAULT_METRIC, STORE_DIR, LivePanel, live_panel, live_session

ORACLE_KINDS = {
    "live": "live (the default) — the agent of the run settings runs each rendered skill on each case, "
    "graded as a trial grades (the judge included) on --metric",
    "python": "python:MODULE:FUNC — FUNC(skill_dir: str, case: dict, seed: int) -> float scores the rendered "
    "skill folder on one evals case (MODULE imported from PYTHONPATH and the working directory)",
}
"""The oracles ``--oracle`` accepts."""
MAX_EXACT_UNITS = 15
"""Players exact mode enumerates (the trigger and 14 execution units, the paper's scale for exact checks)."""
_FRACTION = _number(float, 0)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "value",
        help="estimate what each unit of a skill is worth (SkillSV)",
        description="Value every unit of the skill in SKILL_DIR: net effect (deletion), content value "
        "(length-neutral padding) and context cost, each with a 95% interval and a decision.",
    )
    parser.add_argument("skill_dir", type=Path, metavar="SKILL_DIR", help="folder holding SKILL.md")
    parser.add_argument(
        "--evals",
        type=Path,
        metavar="FILE",
        help="the cases: any dataset `trial --evals` reads (default: the skill's evals/, as a trial reads it)",
    )
    parser.add_argument(
        "--oracle",
        metavar="SPEC",
        help="how a rendered skill is scored on a case: live (default) or python:MODULE:FUNC",
    )
    parser.add_argument(
        "--metric",
        default=DEFAULT_METRIC,
        metavar="NAME",
        help="the live agent's score of a case: a metric of the grading seam, or composite / outcome (the means "
        "of the rollout-level metrics the case is graded on; default accuracy)",
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the value report as JSON to FILE")
    parser.add_argument("--orders", choices=ORDER_DISTRIBUTIONS, default="layer", help="μ: default layer (the paper's)")
    parser.add_argument("-K", "--chains", type=_COUNT, default=12, metavar="K", help="orders to sample (default 12)")
    parser.add_argument("--window", type=_COUNT, default=8, metavar="B", help="cases per order's window (default 8)")
    parser.add_argument(
        "--tolerance",
        type=_FRACTION,
        metavar="TAU",
        help="truncate a chain once a prefix is within τ of the full skill (the paper's τ = 0.05); default off: "
        "truncation pulls every value toward 0",
    )
    parser.add_argument("--gate-hits", type=_COUNT, default=1, metavar="N", help="prefixes within τ before truncating")
    parser.add_argument(
        "--pooling",
        choices=("pooled", "chain"),
        default="pooled",
        help="pooled: every scored prefix informs every unit (default); chain: Algorithm 1's adjacent differences",
    )
    parser.add_argument(
        "--estimator",
        choices=("interaction", "chain"),
        help="net effects from the pairwise interaction model or the chains alone (default: aces.yml value.estimator)",
    )
    parser.add_argument(
        "--no-antithetic", action="store_true", help="draw every order independently (default: pairs from u, 1 − u)"
    )
    parser.add_argument(
        "--pairs-per-window",
        type=_COUNT,
        default=2,
        metavar="N",
        help="chains (antithetic pairs) scored on one window of cases (default 2)",
    )
    parser.add_argument("--operators", choices=("both", "del"), default="both", help="del: deletion only")
    parser.add_argument("--exact", action="store_true", help=f"enumerate μ-exact values (≤ {MAX_EXACT_UNITS} units)")
    parser.add_argument(
        "--holdout",
        type=_FRACTION,
        default=0.0,
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
        "--margin",
        type=_FRACTION,
        metavar="DELTA",
        help="δ: a net effect whose interval lies inside ±δ is negligible (default: aces.yml value.margin, else 0.05)",
    )
    add_run_options(parser)
    add_judge_options(parser)
    parser.set_defaults(run=run)


def value_namespace(skill_dir: Path, **values: object) -> argparse.Namespace:
    """This verb's flags for ``skill_dir`` at their defaults, with ``values`` set over them.

    How ``aces-ci ci`` values a skill: the defaults stay in one place (this parser), and a name
    that is not one of the verb's flags is a programming error, refused at once.
    """
    parser = argparse.ArgumentParser(prog="aces-ci")
    add_parser(parser.add_subparsers())
    args = parser.parse_args(["value", str(skill_dir)])
    unknown = sorted(set(values) - set(vars(args)))
    if unknown:
        raise TypeError(f"not flags of aces-ci value: {', '.join(unknown)}")
    for name, value in values.items():
        setattr(args, name, value)
    return args


def oracle_kind(spec: str | None) -> str:
    """``live`` or ``python``; an unknown spec lists the kinds that exist."""
    kind = "live" if spec is None else spec.split(":", 1)[0]
    if kind not in ORACLE_KINDS or (kind == "live" and spec not in (None, "live")):
        kinds = "\n".join(f"  {text}" for text in ORACLE_KINDS.values())
        raise ConfigError(f"unknown oracle {spec!r}. Oracles:\n{kinds}", field="--oracle")
    return kind


def _evals_file(args: argparse.Namespace, skill_dir: Path) -> Path:
    if args.evals is not None:
        return Path(args.evals)
    found = find_datasets(skill_dir)
    if not found:
        raise InputError("no --evals given and the skill has no evals/evals.json", path=str(skill_dir))
    return found[0]


def cache_root(args: argparse.Namespace, skill_dir: Path, project: Project) -> Path | None:
    """Where scores (``skillsv/``) and rollouts live: --cache-dir, aces.yml ``run.cache_dir``, or beside the skill."""
    if args.no_cache:
        return None
    configured = project.config.run.cache_dir if "run.cache_dir" in project.config.field_lines else None
    root = (args.cache_dir or configured or skill_dir.parent / ".aces-cache").resolve()
    if root == skill_dir or skill_dir in root.parents:
        raise ConfigError("the score cache cannot live inside the skill it values", path=str(root))
    return root


def _seed(args: argparse.Namespace, project: Project) -> int:
    seed = args.seed if args.seed is not None else project.config.run.seed
    if seed < 0:
        raise ConfigError(f"the seed of a valuation is a whole number ≥ 0, got {seed}", field="--seed")
    return int(seed)


def _settings(
    args: argparse.Namespace, game: CompiledSkill, seed: int, score: ScoreSettings, project: Project
) -> ValueSettings:
    if args.exact and len(game.players) > MAX_EXACT_UNITS:
        raise ConfigError(
            f"--exact enumerates every feasible coalition; this skill has {len(game.players)} units "
            f"(at most {MAX_EXACT_UNITS})",
            field="--exact",
        )
    if args.holdout >= 1:
        raise ConfigError("--holdout is a share of the cases, below 1", field="--holdout")
    estimator = EstimatorSettings(
        orders=args.chains,
        window=args.window,
        tolerance=args.tolerance,
        operators=("del",) if args.operators == "del" else ("del", "pad"),
        distribution=args.orders,
        seed=seed,
        gate_hits=args.gate_hits,
        pooling=args.pooling,
        antithetic=not args.no_antithetic,
        pairs_per_window=args.pairs_per_window,
        max_evaluations=args.max_evaluations,
        max_usd=args.budget_usd,
        budget_scores=_budget_scores(args, project),
    )
    return ValueSettings(
        estimator=estimator,
        score=score,
        exact=args.exact,
        holdout=args.holdout,
        rules=DecisionRules(margin=args.margin if args.margin is not None else project.config.value.margin),
        values_from="chain" if (args.estimator or project.config.value.estimator) == "chain" else "interaction",
        adaptive=project.config.value.adaptive,
    )


def _runs(args: argparse.Namespace, project: Project) -> int:
    """Rollouts per coalition score: the live agent runs each case ``runs`` times; a Python oracle once."""
    if oracle_kind(args.oracle) != "live":
        return 1
    runs = getattr(args, "runs", None)
    return int(runs if runs is not None else project.config.run.runs)


def _budget_scores(args: argparse.Namespace, project: Project) -> int | None:
    """The scores ``--max-rollouts`` (or aces.yml ``run.max_rollouts``) pays for: what the design is sized to."""
    cap = getattr(args, "max_rollouts", None)
    cap = cap if cap is not None else project.config.run.max_rollouts
    return None if cap is None else max(0, int(cap) // _runs(args, project))


def render_plan(game: CompiledSkill, plan: Plan | None, settings: ValueSettings, runs: int, out: TextIO) -> None:
    """The design and what it will cost, before anything is spent."""
    if plan is None:
        out.write(f"plan for {game.name}: exact enumeration of every feasible coalition on every case\n")
        return
    design = plan.settings
    operators = "+".join(f"ρ_{op}" for op in design.operators)
    rollouts = plan.scores * runs
    out.write(
        f"plan for {game.name}: K={design.orders} orders × {design.window} cases a window, {operators}: "
        f"{plan.scores:,} coalition scores = up to {rollouts:,} rollouts ({runs} a score; scores already in the "
        "cache are free)"
    )
    if settings.holdout:
        out.write(", plus the pruning test on the held-out cases")
    cap = f"; --budget-usd ${design.max_usd:g} caps the dollars" if design.max_usd is not None else ""
    out.write(f"; dollars are counted as the rollouts are priced{cap}\n")
    if plan.notes:
        out.write(f"sized to the budget of {design.budget_scores:,} scores: {'; '.join(plan.notes)}\n")


def _shown(estimate: Estimate | None, signed: bool = True) -> str:
    if estimate is None:
        return "-"
    text = f"{estimate.value:+.3f}" if signed else f"{estimate.value:.3f}"
    if estimate.ci is not None:
        text += (
            f" [{estimate.ci.lo:+.3f}, {estimate.ci.hi:+.3f}]"
            if signed
            else f" [{estimate.ci.lo:.3f}, {estimate.ci.hi:.3f}]"
        )
    return text


def _paid(report: ValueReport) -> str:
    """Rollouts paid in every session and what this run added; what the cache and the journal served."""
    sessions = report.sessions
    if sessions is None:
        return f"{report.paid_now:,} rollouts paid"
    return (
        f"{report.paid:,} rollouts paid in every session ({report.paid_now:,} by this run, {sessions.earlier:,} by "
        f"earlier ones per the journal; {sessions.reused:,} served from the rollout cache or journal this run)"
    )


def _header(report: ValueReport, out: TextIO) -> None:
    game, valuation, settings = report.game, report.valuation, report.settings
    estimator = settings.estimator
    operators = "+".join(estimator.operators)
    method = (
        "exact enumeration"
        if valuation.method == "exact"
        else (
            f"K={estimator.orders} b={min(estimator.window, report.attribution_tasks)} "
            f"τ={estimator.tolerance if estimator.tolerance is not None else 'off'} "
            f"{valuation.pooling or estimator.pooling}"
            f"{' + interaction model' if valuation.estimator == 'interaction' else ''}"
        )
    )
    out.write(
        f"SkillSV values of {game.name} · oracle {report.oracle} · μ {estimator.distribution} · {method} · "
        f"{operators} · seed {estimator.seed}\n"
    )
    held = report.held_out.tasks if report.held_out else 0
    judge = f" · judge {settings.score.judge}" if settings.score.judge else ""
    out.write(f"score of a case: {settings.score.definition}{judge}\n")
    out.write(f"cases: {report.attribution_tasks} for attribution, {held} held out for the pruning test\n\n")


def _stop_reason(valuation: Valuation) -> str:
    return {
        "max_evaluations": "--max-evaluations",
        "budget_usd": "--budget-usd",
        "max_rollouts": "--max-rollouts",
        "max_wall": "--max-wall",
        "oracle_error": "an oracle failure",
    }.get(valuation.stopped_by or "", valuation.stopped_by or "")


def _decisions_text(report: ValueReport, out: TextIO) -> None:
    """What to do, first: the decision sentence, then the units to cut, compress and settle."""
    game, valuation = report.game, report.valuation
    summary = decision_summary(game, valuation)
    out.write(f"decisions (δ = {valuation.margin:g}): {decision_line(summary, valuation.margin)}\n")
    by_id = {unit.unit: unit for unit in valuation.units}
    for label, ids in (("cut", summary.cut), ("compress", summary.compress), ("unresolved", summary.unresolved)):
        for unit_id in ids:
            unit, player = by_id[unit_id], game.player(unit_id)
            need = f" (~{unit.scores_to_decide:,} more scores)" if unit.scores_to_decide else ""
            out.write(
                f"  {label:<10} {player.file}:{player.lines[0]}  {unit_id}  {_shown(unit.net_effect)}  "
                f"{unit.reason}{need}\n"
            )
    out.write("\n")


def render_value_text(report: ValueReport, out: TextIO) -> None:
    game, valuation = report.game, report.valuation
    _header(report, out)
    if not valuation.measured:
        _nothing_measured(report, out)
        return
    _decisions_text(report, out)
    anchors = valuation.anchors
    out.write(
        f"anchors (ρ_del): V(∅) {_shown(anchors['empty'], False)} · V({{m}}) {_shown(anchors['trigger_only'], False)}"
        f" · V(N) {_shown(anchors['full'], False)}\n"
        f"trigger value θ_m {_shown(valuation.trigger_value)} · content lift Λ = V(N) − V({{m}}) "
        f"{_shown(valuation.content_lift)}\n"
    )
    if report.settings.estimator.tolerance is not None and valuation.method == "estimate":
        # Without truncation the pooled values add up to the window means of Λ by construction: the
        # closure ratio would be an identity shown as a check, so it is shown only where τ can break it.
        out.write(
            f"sum of net effects {_shown(valuation.sum_values)} · closure Σφ/Λ "
            f"{_shown(valuation.closure_ratio, False)} (truncation can break it)\n"
        )
    _cases_text(valuation, out)
    out.write("\n")
    rows = []
    ordered = sorted(valuation.units, key=lambda u: -(u.net_effect.value if u.net_effect else float("-inf")))
    for unit in ordered:
        player = game.player(unit.unit)
        rows.append(
            [
                unit.unit,
                f"{player.file}:{player.lines[0]}",
                f"{player.tokens:,}",
                _shown(unit.net_effect),
                _shown(unit.content_value),
                _shown(unit.context_cost),
                unit.decision,
                player.preview[:40],
            ]
        )
    headers = ["unit", "where", "tokens", "net effect [95% CI]", "content value", "context cost", "decision", "preview"]
    out.write(tabulate(rows, headers=headers, disable_numparse=True) + "\n")
    if valuation.groups:
        out.write("\nby section and folder (sums of net effects):\n")
        for group in valuation.groups:
            out.write(f"  {group.label}: {_shown(group.net_effect)} over {len(group.units)} units\n")
    _cost_text(report, out)
    if report.held_out is not None:
        block = report.held_out
        out.write(
            f"\npruning test on {block.tasks} held-out cases (V(N) {block.full:.3f} → V({{m}}) "
            f"{block.trigger_only:.3f}); AUC, higher keeps more score while removing units:\n"
        )
        for curve in block.curves:
            out.write(f"  {curve.method}: {curve.auc:.3f}\n")
    if report.fitted:
        out.write(f"\ndesign sized to the budget: {'; '.join(report.fitted)}\n")
    if valuation.left_out:
        out.write(
            f"\n{valuation.left_out} chain(s) left out: a score they needed failed twice ({valuation.failure}); "
            "the values come from the other chains, and a rerun retries it\n"
        )
    elif valuation.failure:
        out.write(f"\na failed score was retried and then scored ({valuation.failure})\n")
    if valuation.stopped_by is not None:
        out.write(
            f"\nSTOPPED by {_stop_reason(valuation)} after {valuation.chains}/{valuation.chains_planned} chains: the "
            "values above come from the completed chains only and their intervals are wider. Every score is "
            "cached: a rerun resumes.\n"
        )
        if valuation.error:
            out.write(f"  {valuation.error}\n")


_CASES_SHOWN = 30


def _cases_text(valuation: Valuation, out: TextIO) -> None:
    """The whole skill's score per case beside the bare agent's: a unit is credited only where they differ."""
    cases = valuation.cases
    if not cases:
        return
    flat = [c.case for c in cases if c.full is not None and c.empty is not None and abs(c.full - c.empty) < 1e-12]
    if flat:
        shown = ", ".join(flat[:10]) + (f" and {len(flat) - 10} more" if len(flat) > 10 else "")
        out.write(
            f"on {len(flat)} of {len(cases)} cases the whole skill scores as the bare agent does ({shown}): no unit "
            "is credited there, whatever it says\n"
        )
    if len(cases) <= _CASES_SHOWN:
        scores = " · ".join(f"{c.case} {_score(c.empty)}→{_score(c.full)}" for c in cases)
        out.write(f"per case, bare agent → whole skill: {scores}\n")


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _cost_text(report: ValueReport, out: TextIO) -> None:
    valuation = report.valuation
    cost = valuation.cost
    if valuation.method == "estimate":
        out.write(
            f"\ncost: {_paid(report)} (${cost.cost_usd:.4f}); {cost.evaluations:,} coalition scores "
            f"asked of the oracle, {cost.served:,} of them served free from the caches (paid by an earlier run); "
            f"{cost.requested:,} scores used, repeats served by the in-run coalition cache\n"
            f"{valuation.chains}/{valuation.chains_planned} chains completed"
        )
        if valuation.truncation_rate is not None and report.settings.estimator.tolerance is not None:
            out.write(f"; {valuation.truncation_rate:.0%} of intermediate prefixes scored before truncation")
        out.write("\n")
    else:
        out.write(f"\ncost: {_paid(report)} for {cost.evaluations:,} coalition scores (exact)\n")


def _nothing_measured(report: ValueReport, out: TextIO) -> None:
    """No completed chain: say what ran and why it stopped, and nothing that reads like a finding."""
    valuation = report.valuation
    cost = valuation.cost
    why = _stop_reason(valuation) if valuation.stopped_by else "nothing to run"
    out.write(
        f"NO VALUES: the valuation stopped ({why}) before any of its {valuation.chains_planned} chains completed, "
        "so no unit has a value and nothing is concluded about any unit.\n"
        f"What ran: {cost.evaluations:,} coalition scores asked of the oracle, {cost.rollouts:,} rollouts paid, "
        f"${cost.cost_usd:.4f}. Every score is cached: a rerun with a larger budget resumes from them.\n"
    )
    if valuation.error:
        out.write(f"  {valuation.error}\n")


def run(args: argparse.Namespace) -> int:
    skill_dir = args.skill_dir.resolve()
    project = find_project(skill_dir, args.config)
    if args.plan:
        game, tasks, settings = _inputs(args, skill_dir, project)
        render_plan(game, plan_valuation(game, tasks, settings), settings, _runs(args, project), sys.stdout)
        return EXIT_PASS
    report = measure_value(args, skill_dir, project, announce=sys.stdout)
    render_value_text(report, sys.stdout)
    if args.json is not None:
        write_output(args.json, json_bytes(value_json(report)), "value report")
    measured = report.valuation.measured
    return EXIT_RUNTIME_ERROR if report.valuation.stopped_by == "oracle_error" or not measured else EXIT_PASS


def measure_value(
    args: argparse.Namespace,
    skill_dir: Path,
    project: Project,
    read: Dataset | None = None,
    announce: TextIO | None = None,
) -> ValueReport:
    """Compile and value the skill in ``skill_dir`` (resolved) as the flags in ``args`` say.

    ``aces-ci ci`` calls this too, with a namespace of this verb's defaults and its own run flags:
    one valuation path, so a release's values are the ones ``aces-ci value`` gives on the same
    settings (and share its score store), and with the dataset it already ``read`` for its trials.
    ConfigError/InputError before anything is paid. ``announce`` gets the plan (design and cost) first.
    """
    game, tasks, settings, panel = _prepared(args, skill_dir, project, read)
    try:
        plan = plan_valuation(game, tasks, settings)
    except (TooLargeForExact, UniformIntractable) as exc:
        raise ConfigError(str(exc), field="--exact" if isinstance(exc, TooLargeForExact) else "--orders") from None
    if announce is not None:
        render_plan(game, plan, settings, _runs(args, project), announce)
        announce.flush()
    root = cache_root(args, skill_dir, project)
    store = EvaluationStore(root / STORE_DIR) if root is not None else None
    try:
        with _scorer(args, panel, skill_dir, project, root) as scorer:
            report = valuate(game, tasks, RenderingOracle(game, scorer, store), settings, plan)
            if isinstance(scorer, LiveScorer):  # its journal knows what earlier sessions of this valuation paid
                report = dataclasses.replace(report, sessions=Sessions(scorer.earlier_sessions(), scorer.reused))
    except (TooLargeForExact, UniformIntractable) as exc:
        raise ConfigError(str(exc), field="--exact" if isinstance(exc, TooLargeForExact) else "--orders") from None
    finally:
        if store is not None:
            store.close()
    return report


def _prepared(
    args: argparse.Namespace, skill_dir: Path, project: Project, read: Dataset | None
) -> tuple[CompiledSkill, list[Task], ValueSettings, LivePanel | None]:
    """The compiled skill, its cases, the settings and (live) the panel: everything before a score is paid."""
    kind = oracle_kind(args.oracle)
    game = compile_skill(skill_dir)
    panel = None
    if kind == "live":
        panel = live_panel(
            skill_dir, project, args.evals, args.metric, configured_judge(project.config, args), read=read
        )
    else:
        _refuse_judge_flags(args)
    tasks = list(panel.tasks) if panel is not None else load_tasks(_evals_file(args, skill_dir))
    score = panel.score if panel is not None else ScoreSettings()
    return game, tasks, _settings(args, game, _seed(args, project), score, project), panel


def _inputs(
    args: argparse.Namespace, skill_dir: Path, project: Project
) -> tuple[CompiledSkill, list[Task], ValueSettings]:
    game, tasks, settings, _ = _prepared(args, skill_dir, project, None)
    return game, tasks, settings


def _refuse_judge_flags(args: argparse.Namespace) -> None:
    """A Python oracle scores by itself: a judge asked for on the command line would be silently unused."""
    named = [flag for flag in ("judge_provider", "judge_model", "judge_base_url") if getattr(args, flag, None)]
    if named:
        flags = ", ".join("--" + flag.replace("_", "-") for flag in named)
        raise ConfigError(
            f"{flags}: a judge grades the live agent's rollouts, and --oracle {args.oracle} scores without one",
            field="--oracle",
        )


def _scorer(
    args: argparse.Namespace, panel: LivePanel | None, skill_dir: Path, project: Project, root: Path | None
) -> AbstractContextManager[SkillScorer]:
    if panel is None:
        return nullcontext(PythonScorer(args.oracle))
    return live_session(args, skill_dir, project, root, panel)
