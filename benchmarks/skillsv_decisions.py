"""Does ``aces-ci value`` decide? Keep / cut calls, severe errors and coverage on planted games.

RMSE rewards pulling every value toward 0; an author needs decisions. For each planted game and each
budget in rollouts per unit, this runs the default estimator design with K raised in steps of 2 until
the planned scores fill the budget (``planned_scores``, exact), on a Bernoulli oracle with fresh
noise, and reads the *same* run two ways — the chain estimator (``value.estimator: chain``, the
pooled chains and their crossed bootstrap) and the interaction model (``value.estimator:
interaction``, :mod:`aces_ci.skillsv._interaction`, with its held-out check and fallback) — and runs
``aces-ci value``'s default design on the same game (``interaction + half-coalitions``: ``fit_to_budget`` with
``SAMPLE_SHARE``, a third of the budget on chains, the rest on sampled half-coalitions; ``--default-only``
runs only that one), scoring the decisions against the μ-exact net effects:

* **severe**: a unit kept whose exact net effect is below −δ, or cut (delete / negligible) whose
  exact net effect is above +δ — per skill. A unit kept because kept units require it
  (``respect_dependencies``: deleting it deletes them) is judged, here and for the right call, on the
  exact effects of everything deleting it removes — a harmful lead-in of two load-bearing items is
  rightly kept (round six);
* **right call**: among units with |exact| ≥ 0.05, the share kept when positive, cut when negative
  (and the same for the three-unit AND's members alone, the one interaction a pairwise model misses);
* **dead → negligible**: the share of planted dead units decided ``negligible``;
* **unresolved**: the share of units left unresolved;
* **coverage**: the share of 95% intervals holding the exact net effect; and of the content values'
  (φ_pad) and context costs' (φ_pad − φ_del) intervals holding theirs — ``--cost-scale S`` makes the
  games' lengths cost S of a pass rate over the whole skill (their own: 0.02), where those matter.

``--game decidable`` (the default: :func:`benchmarks.skillsv_games.decidable_game`, effects a budget
can decide) or ``planted`` (round three's games). ``--continue`` measures the unresolved units'
"scores to decide": the run is repeated on the same seed with K × 1.25, 1.25², … 1.25⁶ (:data:`LADDER`;
the same first orders and windows, more of them; for the default design, the same chains and that
multiple of the budget, so the same first half-coalitions and more of them), and the scores a unit
needed before it was decided are compared with what the first run predicted.

    python benchmarks/skillsv_decisions.py --sizes 16,24,40 --budgets 60,250,1000 --seeds 20 [--continue]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aces_ci.skillsv import (
    DEFAULT_MARGIN,
    SAMPLE_SHARE,
    DecisionRules,
    EstimateRun,
    Estimator,
    EstimatorSettings,
    Valuation,
    adaptive_valuation,
    fit_to_budget,
    planned_scores,
    summarize,
    with_interaction,
)
from aces_ci.skillsv._decisions import CROSSING_STEP
from benchmarks.skillsv_games import BernoulliOracle, PlantedGame, decidable_game, planted_game

EFFECTIVE = 0.05
"""|exact net effect| from which a unit has a right keep / cut call (issue 23)."""
ESTIMATORS = ("chain", "interaction, chains only", "interaction + half-coalitions", "adaptive")
"""``chain`` and ``interaction, chains only`` read one all-chains run (round four's design, K the largest
that fits); ``interaction + half-coalitions`` is ``aces-ci value``'s default since round five (:func:`default_design`:
a third of the budget on chains, the rest on sampled half-coalitions); ``adaptive`` is ``value.adaptive``."""
LADDER = tuple(CROSSING_STEP**k for k in range(1, 7))
"""Continued runs: the design times 1.25, 1.25², … 1.25⁶ (×3.81; K rounded up to even on chains) — the
looks ×1.25 apart that the forecast (:func:`aces_ci.skillsv._decisions.crossing`) simulates. Up to
round seven the ladder was ×1.25, 1.5, 2, 2.5, 3, 4, whose rungs at 2 and 4 fell just past the
window edges of forecasts made for looks at 1.95 and 3.81 (BENCHMARKS.md, round eight)."""
RULES = DecisionRules(margin=DEFAULT_MARGIN)


@dataclass(frozen=True)
class Outcome:
    units: int
    severe: int
    effective: int
    right: int
    triple: int
    triple_right: int
    dead: int
    dead_negligible: int
    unresolved: int
    covered: int
    rollouts: int
    fallback: int
    content_covered: int = 0
    """Units whose content value's 95% interval holds the exact φ_pad."""
    cost_covered: int = 0
    """Units whose context cost's 95% interval holds the exact φ_pad − φ_del."""


def design(game: PlantedGame, budget: int, seed: int) -> EstimatorSettings:
    """Round four's design: the default chains with the largest even K whose planned scores fit ``budget``
    (steps of 16, 8, … 2), no sampled half-coalitions."""
    settings = EstimatorSettings(seed=seed, orders=4)
    step = 16
    while step >= 2:
        bigger = replace(settings, orders=settings.orders + step)
        if planned_scores(game.structure, game.tasks, bigger) <= budget:
            settings = bigger
        else:
            step //= 2
    return settings


def default_design(
    game: PlantedGame, budget: int, seed: int, share: float = SAMPLE_SHARE, orders: int = EstimatorSettings.orders
) -> EstimatorSettings:
    """What ``aces-ci value --max-rollouts`` runs with the interaction model: the defaults fitted to the budget."""
    wanted = EstimatorSettings(seed=seed, sample_share=share, budget_scores=budget, orders=orders)
    return fit_to_budget(game.structure, game.tasks, wanted).settings


def valuations(run: EstimateRun) -> dict[str, Valuation]:
    """The same run read by each estimator (the chains' own and the model's)."""
    chain = summarize(run, rules=RULES, replicates=400)
    model = with_interaction(run, chain, RULES)
    if run.settings.sample_share > 0:
        return {"interaction + half-coalitions": model}
    return {"chain": chain, "interaction, chains only": model}


def score(game: PlantedGame, valuation: Valuation, rollouts: int, margin: float = DEFAULT_MARGIN) -> Outcome:
    exacts = game.exact("layer")
    exact = exacts["del"]
    content_covered = cost_covered = 0
    counts = dict.fromkeys(
        ("severe", "effective", "right", "triple", "triple_right", "dead", "dead_negligible", "unresolved", "covered"),
        0,
    )
    structure = game.structure
    for unit in valuation.units:
        truth = exact[unit.unit]
        if unit.reason.startswith("required by"):  # kept for its dependents: deleting it deletes them too
            removed = structure.closure_of_dependents(structure.index[unit.unit])
            truth = sum(exact[structure.players[i]] for i in range(structure.size) if removed >> i & 1)
        cut = unit.decision in ("delete", "negligible")
        counts["severe"] += (unit.decision == "keep" and truth < -margin) or (cut and truth > margin)
        if abs(truth) >= EFFECTIVE:
            right = (truth > 0 and unit.decision in ("keep", "compress")) or (truth < 0 and cut)
            counts["effective"] += 1
            counts["right"] += right
            if game.roles.get(unit.unit) == "and3":
                counts["triple"] += 1
                counts["triple_right"] += right
        if game.roles.get(unit.unit) == "dead":
            counts["dead"] += 1
            counts["dead_negligible"] += unit.decision == "negligible"
        counts["unresolved"] += unit.decision == "unresolved"
        ci = unit.net_effect.ci if unit.net_effect is not None else None
        counts["covered"] += ci is not None and ci.lo <= exact[unit.unit] <= ci.hi
        content, cost = unit.content_value, unit.context_cost
        pad = exacts["pad"][unit.unit]
        content_covered += content is not None and content.ci is not None and content.ci.lo <= pad <= content.ci.hi
        length = pad - exact[unit.unit]
        cost_covered += cost is not None and cost.ci is not None and cost.ci.lo <= length <= cost.ci.hi
    return Outcome(
        len(valuation.units),
        rollouts=rollouts,
        fallback=len(valuation.fallback),
        content_covered=content_covered,
        cost_covered=cost_covered,
        **counts,
    )


def with_context_cost(game: PlantedGame, scale: float) -> PlantedGame:
    """``game`` with its units' lengths costing ``scale`` of a pass rate over the whole skill (under ρ_del)."""
    return replace(game, context_cost=scale / sum(game.tokens.values()), _memo={})


GAMES: dict[str, Callable[[int, int], PlantedGame]] = {"decidable": decidable_game, "planted": planted_game}


def run_once(game: PlantedGame, settings: EstimatorSettings, seed: int) -> tuple[EstimateRun, dict[str, Valuation]]:
    run = Estimator(game.structure, game.tasks, BernoulliOracle(game, seed), settings).estimate()
    return run, valuations(run)


@dataclass
class Continuation:
    """Unresolved units whose predicted scores to decide were checked against a continued run."""

    within: int = 0
    """Decided after between ½ and 2 × the predicted scores."""
    early: int = 0
    """Decided with fewer than ½ the predicted scores (the prediction was too pessimistic)."""
    late: int = 0
    """Decided only after more than 2 × the prediction, or not at all by the ladder's top when that is past 2 ×."""
    open_: int = 0
    """Not decided by the ladder's top, which is still within 2 × the prediction: no verdict."""
    in_range: int = 0
    """Decided within the forecast's range (the middle 80% of its simulated runs)."""
    out_of_range: int = 0
    """Decided before the range's low end or after its high end (or still open past it)."""


def continue_run(
    game: PlantedGame, settings: EstimatorSettings, seed: int, first: dict[str, Valuation], rollouts: int
) -> dict[str, Continuation]:
    """For each estimator, compare each unresolved unit's predicted scores with what more chains needed."""
    waiting = {
        name: {u.unit: u.scores_to_decide for u in valuation.units if u.decision == "unresolved" and u.scores_to_decide}
        for name, valuation in first.items()
    }
    ranges = {
        name: {u.unit: u.scores_range for u in valuation.units if u.decision == "unresolved" and u.scores_range}
        for name, valuation in first.items()
    }
    needed: dict[str, dict[str, int]] = {name: {} for name in first}
    for factor in LADDER:
        orders = settings.orders * factor
        if settings.sample_share > 0 and settings.budget_scores is not None:  # the same chains, more half-coalitions
            more = replace(settings, budget_scores=int(settings.budget_scores * factor))
        else:
            more = replace(settings, orders=int(-(-orders // 2) * 2))
        run, later = run_once(game, more, seed)
        for name, valuation in later.items():
            for unit in valuation.units:
                if unit.unit in waiting[name] and unit.unit not in needed[name] and unit.decision != "unresolved":
                    needed[name][unit.unit] = run.meter.evaluated - rollouts
    extra = run.meter.evaluated - rollouts
    out = {}
    for name, predicted in waiting.items():
        tally = Continuation()
        for unit_id, guess in predicted.items():
            need = needed[name].get(unit_id)
            if need is None:
                if extra > 2 * guess:
                    tally.late += 1
                else:
                    tally.open_ += 1
            elif need < guess / 2:
                tally.early += 1
            elif need > 2 * guess:
                tally.late += 1
            else:
                tally.within += 1
            span = ranges[name].get(unit_id)
            if span is not None:
                low, high = span[0], span[1] if span[1] is not None else float("inf")
                if need is not None:
                    tally.in_range += low <= need <= high
                    tally.out_of_range += not low <= need <= high
                elif extra > high:
                    tally.out_of_range += 1
        out[name] = tally
    return out


def _share(hits: int, total: int) -> str:
    """``2/4``: a share with what it is out of; ``–`` when there is nothing to count."""
    return f"{hits}/{total} ({hits / total:.0%})" if total else "– (none)"


def _row(units: int, per_unit: int, name: str, results: Sequence[Outcome]) -> str:
    total = sum(r.units for r in results)
    count = len(results)
    return (
        f"| {units} | {per_unit} | {name} | {sum(r.rollouts for r in results) / count:,.0f} "
        f"| {sum(r.severe for r in results) / count:.2f} "
        f"| {_share(sum(r.right for r in results), sum(r.effective for r in results))} "
        f"| {_share(sum(r.triple_right for r in results), sum(r.triple for r in results))} "
        f"| {_share(sum(r.dead_negligible for r in results), sum(r.dead for r in results))} "
        f"| {sum(r.unresolved for r in results) / total:.2f} "
        f"| {sum(r.covered for r in results) / total:.3f} "
        f"| {sum(r.content_covered for r in results) / total:.3f} / {sum(r.cost_covered for r in results) / total:.3f} "
        f"| {sum(r.fallback for r in results) / count:.1f} |"
    )


def _one_seed(
    args: argparse.Namespace,
    game: PlantedGame,
    per_unit: int,
    seed: int,
    *,
    results: dict[str, list[Outcome]],
    continued: dict[str, Continuation],
) -> None:
    """Every estimator's run on one game, scored into ``results`` (and ``continued`` with ``--continue``)."""
    budget = per_unit * (game.structure.size - 1)
    settings = design(game, budget, seed)
    share = SAMPLE_SHARE if args.sample_share is None else args.sample_share
    runs = [] if args.default_only else [(settings, *run_once(game, settings, seed))]
    if share > 0:
        sampled = default_design(game, budget, seed, share, args.chains or EstimatorSettings.orders)
        runs.append((sampled, *run_once(game, sampled, seed)))
    for _, run, read in runs:
        for name, valuation in read.items():
            results[name].append(score(game, valuation, run.meter.evaluated))
    if args.adaptive:
        oracle = BernoulliOracle(game, seed)
        planned = default_design(game, budget, seed, share, args.chains or EstimatorSettings.orders)
        adaptive = adaptive_valuation(game.structure, game.tasks, oracle, planned, RULES, bootstrap=400)
        results["adaptive"].append(score(game, adaptive.valuation, adaptive.run.meter.evaluated))
    units = game.structure.size - 1
    for name in ESTIMATORS:  # the running figures, so a cut-short run still says what it saw
        if results[name]:
            print(f"after seed {seed}: {_row(units, per_unit, name, results[name])}", file=sys.stderr)
    for design_settings, run, read in runs if args.continued else ():
        for name, tally in continue_run(game, design_settings, seed, read, run.meter.evaluated).items():
            for key in ("within", "early", "late", "open_", "in_range", "out_of_range"):
                setattr(continued[name], key, getattr(continued[name], key) + getattr(tally, key))
            print(f"after seed {seed}: scores to decide ({name}): {continued[name]}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="16,24")
    parser.add_argument("--budgets", default="60,250", help="rollouts per unit")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--game", choices=tuple(GAMES), default="decidable")
    parser.add_argument("--adaptive", action="store_true", help="also value.adaptive (look at half the budget)")
    parser.add_argument(
        "--sample-share", type=float, default=None, help=f"instead of SAMPLE_SHARE ({SAMPLE_SHARE:.2f})"
    )
    parser.add_argument("--chains", type=int, default=None, help="K of the default design (before fitting)")
    parser.add_argument("--default-only", action="store_true", help="skip round four's all-chains run")
    parser.add_argument("--continue", dest="continued", action="store_true", help="check scores to decide")
    parser.add_argument(
        "--cost-scale",
        type=float,
        default=None,
        help="the games' context cost: this share of a pass rate over the whole skill (the games' own: 0.02)",
    )
    args = parser.parse_args(argv)
    print(
        "| units | rollouts/unit | estimator | rollouts | severe / skill | right call (|φ| ≥ 0.05) "
        "| of which three-unit AND | dead → negligible | unresolved | coverage | content / cost coverage "
        "| fallback units |"
    )
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for units in (int(x) for x in args.sizes.split(",")):
        for per_unit in (int(x) for x in args.budgets.split(",")):
            results: dict[str, list[Outcome]] = {name: [] for name in ESTIMATORS}
            continued = {name: Continuation() for name in ESTIMATORS}
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                game = GAMES[args.game](units, seed)
                if args.cost_scale is not None:
                    game = with_context_cost(game, args.cost_scale)
                _one_seed(args, game, per_unit, seed, results=results, continued=continued)
            for name in ESTIMATORS:
                if not results[name]:
                    continue
                print(_row(units, per_unit, name, results[name]), flush=True)
                if args.continued and name != "adaptive":
                    print(f"  scores to decide ({name}): {continued[name]}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
