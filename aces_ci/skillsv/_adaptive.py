"""Adaptive allocation: after a first look, spend the rest of the budget where a decision is closest.

A fixed design spreads its scores evenly: every chain scores every prefix, so a load-bearing unit
settled after a few chains keeps being paid for while a unit near a margin waits. With a budget of
scores (``--max-rollouts``) and the interaction model (``value.estimator: interaction``), the
valuation takes two looks:

1. **Look 1** — the design's chains up to :data:`FIRST_SHARE` of the budget; the model's intervals at
   level 1 − α₁. A unit whose interval decides it is final.
2. **Probes** — the remaining scores go to the undecided units, nearest to a decision first (fewest
   ``scores_to_decide`` first, each given what it needs until the budget is spent; what is left is
   shared evenly). A probe of unit i draws an order from μ, takes the prefix S before i and scores S
   and S ∪ {i} on a window of cases: two feasible coalitions that tell the fit about i's effect and
   its interactions with the units of S. Probes enter the fit, not the held-out check (chains only).
3. **Look 2** — the model refitted on chains and probes; the units left undecided at look 1 take
   their values, intervals and decisions from it, at level 1 − α₂.

**Error control** — the trials' group-sequential rule (``aces_ci.stats``' ``SequentialSettings.alpha_at``):
α_k = α · 2k / (K(K + 1)) over K = 2 looks, α/3 at the first and 2α/3 at the second. By the union
bound the chance that a unit's interval misses its value at either look is at most α, so a decision
errs no more often than the fixed design's at α, whatever the data-dependent allocation; the price is
wider intervals at each look.

Without a budget, or when the first look would have too few scores for the model to be fitted,
the fixed design runs instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ._budget import MIN_ORDERS, planned_scores
from ._estimate import EstimateRun, Estimator, EstimatorSettings
from ._interaction import with_interaction
from ._model import Operator, UnitGroup
from ._oracle import CoalitionOracle, Task
from ._result import UnitValue, Valuation
from ._structure import GameStructure
from ._summary import CONFIDENCE, DecisionRules, respect_dependencies, summarize

FIRST_SHARE = 0.5
"""Share of the budget the first look's chains spend."""
LOOKS = 2
FIRST_LOOK_ROWS = 4.0
"""Scores per coefficient the first look's fit needs (the final fit needs ``MIN_ROWS_PER_COLUMN``, 6, on
chains and probes together): at 4 the model's intervals still covered (BENCHMARKS.md, round four), and
the first look exists to settle the clear-cut units."""
PROBE_ROUNDS = 8
"""Probe rounds between the looks: a probe's coalitions already scored cost nothing, so a round can
leave budget, which the next round spends (no look between rounds: allocation only). Four left 11% of
a 16-unit budget unspent when the units nearest a decision sat early in μ's orders, whose probes' short
prefixes the cache already held."""


def look_level(look: int, confidence: float = CONFIDENCE) -> float:
    """The interval level of look ``look`` of :data:`LOOKS`: 1 − α · 2k / (K(K + 1)), α = 1 − ``confidence``."""
    return 1.0 - (1.0 - confidence) * 2.0 * look / (LOOKS * (LOOKS + 1))


@dataclass(frozen=True)
class AdaptiveRun:
    run: EstimateRun
    valuation: Valuation
    probes: int
    """Probes scored after the first look (0: the fixed design ran)."""
    decided_first: tuple[str, ...]
    """Units decided at the first look."""


def _first_design(
    structure: GameStructure, tasks: Sequence[Task], settings: EstimatorSettings
) -> EstimatorSettings | None:
    """The first look's design (chains filling :data:`FIRST_SHARE` of the budget), or None when the
    model could not be fitted on it."""
    budget = settings.budget_scores
    if budget is None:
        return None
    first = replace(settings, orders=MIN_ORDERS)
    while planned_scores(structure, tasks, replace(first, orders=first.orders + 2)) <= FIRST_SHARE * budget:
        first = replace(first, orders=first.orders + 2)
    units = structure.size - 1
    columns = len(tasks) + units + units * (units - 1) // 2
    rows = planned_scores(structure, tasks, first) / len(first.operators)
    return first if rows >= FIRST_LOOK_ROWS * columns else None


def _allocate(undecided: Sequence[UnitValue], scores: int, probe: int) -> dict[str, int]:
    """Scores per undecided unit in whole probes of ``probe`` scores: nearest to a decision first, each
    what it needs (rounded up to a probe); what is left shared a probe at a time, so nothing is lost to
    rounding (a unit's share not a multiple of a probe left part of the budget unspent)."""
    ranked = sorted(undecided, key=lambda unit: unit.scores_to_decide or np.inf)
    given: dict[str, int] = {}
    left = scores // probe
    for unit in ranked:
        give = min(-(-(unit.scores_to_decide or 0) // probe), left)
        given[unit.unit] = give * probe
        left -= give
    for turn in range(left):
        given[ranked[turn % len(ranked)].unit] += probe
    return given


def _probe(estimator: Estimator, allocation: dict[str, int]) -> tuple[dict[tuple[int, int], float], int]:
    """Score the probes ``allocation`` pays for; (ρ_del scores by (mask, case), probes asked)."""
    structure = estimator.structure
    wanted: list[tuple[int, Operator, int]] = []
    probes = 0
    for unit, scores in allocation.items():
        player = structure.index[unit]
        window_size = min(estimator.settings.window, len(estimator.run.tasks))
        for _ in range(scores // (2 * window_size)):
            order = estimator.sampler.order(estimator.rng.random(structure.draws))
            before = 0
            for member in order[: order.index(player)]:
                before |= 1 << member
            window = estimator.dealer.next()
            wanted += [(mask, "del", task) for mask in (before, before | 1 << player) for task in window]
            probes += 1
    found = estimator.score_more(wanted)
    return {(mask, task): score for (mask, _, task), score in found.items()}, probes


def adaptive_valuation(
    structure: GameStructure,
    tasks: Sequence[Task],
    oracle: CoalitionOracle,
    settings: EstimatorSettings,
    rules: DecisionRules,
    *,
    groups: Sequence[UnitGroup] = (),
    bootstrap: int = 1000,
) -> AdaptiveRun:
    """Two looks with probes between them (module docstring); the fixed design when that cannot apply."""
    first = _first_design(structure, tasks, settings)
    estimator = Estimator(structure, tasks, oracle, first or settings)
    run = estimator.estimate()
    chains = summarize(run, groups, rules, bootstrap)
    if first is None or settings.budget_scores is None:
        return AdaptiveRun(run, with_interaction(run, chains, rules), 0, ())
    look1 = with_interaction(run, chains, rules, confidence=look_level(1), min_rows=FIRST_LOOK_ROWS)
    undecided = [unit for unit in look1.units if unit.decision == "unresolved"]
    left = settings.budget_scores - run.meter.evaluated
    if not undecided or left <= 0 or run.stopped_by is not None:
        return AdaptiveRun(run, look1, 0, tuple(u.unit for u in look1.units if u.decision != "unresolved"))
    extra: dict[tuple[int, int], float] = {}
    probes = 0
    window = 2 * min(settings.window, len(tasks))
    for _ in range(PROBE_ROUNDS):  # scores the cache served free are spent again, on new probes
        found, asked = _probe(estimator, _allocate(undecided, left, window))
        extra.update(found)
        probes += asked
        left = settings.budget_scores - run.meter.evaluated
        if left < window or not asked or run.stopped_by is not None:
            break
    look2 = with_interaction(run, chains, rules, confidence=look_level(2), extra=extra, min_rows=FIRST_LOOK_ROWS)
    later = {unit.unit: unit for unit in look2.units}
    open_ = {unit.unit for unit in undecided}
    units = [later[unit.unit] if unit.unit in open_ else unit for unit in look1.units]
    valuation = replace(look2, units=tuple(respect_dependencies(units, structure)))
    return AdaptiveRun(run, valuation, probes, tuple(u.unit for u in look1.units if u.unit not in open_))
