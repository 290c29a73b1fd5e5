"""Adaptive allocation: look at half the budget, and spend the rest only if a unit is still open.

A fixed design spends its whole budget whatever the first half showed. With a budget of scores
(``--max-rollouts``) and the interaction model, ``value.adaptive`` takes two looks of the default
design (a tenth of the scores on chains, the rest on sampled half-coalitions, :mod:`._budget`):

1. **Look 1** — the design sized to :data:`FIRST_SHARE` of the budget; the model's intervals at level
   1 − α₁. A unit whose interval decides it is final. When every unit is decided the valuation stops
   there, and the other half of the budget is never paid.
2. **Look 2** — otherwise more half-coalitions, drawn as before, up to the whole budget; the model
   refitted on every score, and the units left open at look 1 take their values, intervals and
   decisions from it, at level 1 − α₂.

Why not spend the second half on the open units alone, as round four's probes did (a prefix with and
without one unit)? Each half-coalition already informs every unit at the best rate a row can (each
unit present with probability ½, independently); a row aimed at some units informs them no better and
the rest worse. Round four's probes sat on chains, whose rows inform far less: at 250 rollouts per
unit they made the right keep / cut call for 44% / 38% of effective units on 16 / 24 units, where the
fixed default makes 97% / 98% (BENCHMARKS.md, rounds four and nine). What adapts is *whether* the
second half is paid.

**Error control** — the trials' group-sequential rule (``aces_ci.stats``' ``SequentialSettings.alpha_at``):
α_k = α · 2k / (K(K + 1)) over K = 2 looks, α/3 at the first and 2α/3 at the second. By the union
bound the chance that a unit's interval misses its value at either look is at most α, and the
equivalence test for ``negligible`` runs at α_k a side at look k (:func:`~._summary.decide`), so a
unit worth δ or more is called negligible with probability at most α / 2 + α / 2 — the fixed
design's error rates, whatever the first look showed; the price is wider intervals at each look.

Without a budget, or when half of it could not fit the model, the fixed design runs instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ._budget import fit_to_budget
from ._estimate import EstimateRun, Estimator, EstimatorSettings
from ._interaction import with_interaction
from ._model import UnitGroup
from ._oracle import CoalitionOracle, Task
from ._result import Valuation
from ._structure import GameStructure
from ._summary import CONFIDENCE, DecisionRules, respect_dependencies, summarize

FIRST_SHARE = 0.5
"""Share of the budget the first look spends."""
LOOKS = 2


def look_level(look: int, confidence: float = CONFIDENCE) -> float:
    """The interval level of look ``look`` of :data:`LOOKS`: 1 − α · 2k / (K(K + 1)), α = 1 − ``confidence``."""
    return 1.0 - (1.0 - confidence) * 2.0 * look / (LOOKS * (LOOKS + 1))


@dataclass(frozen=True)
class AdaptiveRun:
    run: EstimateRun
    valuation: Valuation
    second_look_scores: int
    """Scores paid after the first look (0: every unit was decided there, or the fixed design ran)."""
    decided_first: tuple[str, ...] | None
    """Units decided at the first look; None when the fixed design ran (no looks)."""


def _first_design(
    structure: GameStructure, tasks: Sequence[Task], settings: EstimatorSettings
) -> EstimatorSettings | None:
    """The first look's design: the default design sized to :data:`FIRST_SHARE` of the budget, with the
    operators the whole budget was planned with; None without a budget or when half of it cannot fit
    the model (no half-coalitions)."""
    budget = settings.budget_scores
    if budget is None or settings.sample_share <= 0:
        return None
    first = fit_to_budget(structure, tasks, replace(settings, budget_scores=int(FIRST_SHARE * budget))).settings
    if first.sample_share <= 0:
        return None
    return replace(first, operators=settings.operators)


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
    """Two looks, the second paid only for units the first left open (module docstring); the fixed
    design when that cannot apply. ``settings`` is the whole budget's design (:func:`~._budget.fit_to_budget`)."""
    first = _first_design(structure, tasks, settings)
    estimator = Estimator(structure, tasks, oracle, first or settings)
    run = estimator.estimate()
    chains = summarize(run, groups, rules, bootstrap)
    if first is None or settings.budget_scores is None:
        return AdaptiveRun(run, with_interaction(run, chains, rules), 0, None)
    look1 = with_interaction(run, chains, rules, confidence=look_level(1))
    open_ = {unit.unit for unit in look1.units if unit.decision == "unresolved"}
    decided = tuple(unit.unit for unit in look1.units if unit.unit not in open_)
    if not open_ or run.stopped_by is not None:
        return AdaptiveRun(run, look1, 0, decided)
    before = run.meter.evaluated
    estimator.sample_more(settings.budget_scores)
    chains = summarize(run, groups, rules, bootstrap)  # its cost: what both looks paid, not the first's alone
    look2 = with_interaction(run, chains, rules, confidence=look_level(2))
    later = {unit.unit: unit for unit in look2.units}
    units = [later[unit.unit] if unit.unit in open_ else unit for unit in look1.units]
    valuation = replace(look2, units=tuple(respect_dependencies(units, structure, look2.requirements, rules.margin)))
    return AdaptiveRun(run, valuation, run.meter.evaluated - before, decided)
