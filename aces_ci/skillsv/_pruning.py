"""Baselines and the pruning test (paper, Section 4.3): do the values say what can go?

Each method ranks the execution units; on the held-out panel B (disjoint from the attribution
panel A by a seeded split) the units are removed in ascending order of value — a unit together
with every unit that requires it, so each intermediate skill is feasible — and each intermediate
skill is scored under ρ_del. The curve runs from the full skill (nothing removed) to the trigger
alone (everything removed); its AUC over the share of units removed is higher for a ranking that
removes the expendable units first.

Methods: ``skillsv`` (the net effects of the unit and of the units requiring it), ``closure_loo``
(V(N) − V(N minus the unit and its dependents), on panel A: the flat baseline that misvalues
redundant and complementary units), ``random`` (a seeded shuffle). An LLM-judge ranking needs a
configured model and is not offered here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..errors import InfraError
from ._estimate import Meter
from ._model import TRIGGER_ID
from ._oracle import CoalitionOracle, CoalitionRequest, Task
from ._structure import GameStructure, bits

CurveMethod = Literal["skillsv", "closure_loo", "random"]
"""Whose ranking a pruning curve removes units by: SkillSV's values, closure leave-one-out, or chance."""


@dataclass(frozen=True)
class PruningCurve:
    method: CurveMethod
    ranking: tuple[str, ...]
    """Execution units, lowest value first."""
    removed: tuple[float, ...]
    """Share of execution units removed at each point, from 0 to 1."""
    scores: tuple[float, ...]
    """V_del of each intermediate skill on the held-out panel."""
    auc: float


class _Scorer:
    """Scores coalitions under ρ_del on a panel, each coalition once, in one batch."""

    def __init__(self, oracle: CoalitionOracle, structure: GameStructure, seed: int, meter: Meter) -> None:
        self.oracle, self.structure, self.seed, self.meter = oracle, structure, seed, meter

    def means(self, masks: Sequence[int], tasks: Sequence[Task]) -> dict[int, float]:
        unique = list(dict.fromkeys(masks))
        requests = [
            CoalitionRequest(self.structure.members(m), "del", task, self.seed) for m in unique for task in tasks
        ]
        outcomes = self.oracle.evaluate(requests)
        self.meter.requested += len(requests)
        self.meter.evaluated += len(requests)
        out: dict[int, float] = {}
        for position, mask in enumerate(unique):
            row = outcomes[position * len(tasks) : (position + 1) * len(tasks)]
            for outcome in row:
                self.meter.rollouts += outcome.rollouts
                self.meter.cost_usd += outcome.cost_usd
                if outcome.score is None:
                    raise InfraError(f"the pruning test stopped: {outcome.error or 'a coalition could not be scored'}")
            out[mask] = float(np.mean([outcome.score for outcome in row]))
        return out


def closure_loo(
    structure: GameStructure, oracle: CoalitionOracle, tasks: Sequence[Task], seed: int, meter: Meter
) -> dict[str, float]:
    """Closure-LOO value of every execution unit on ``tasks``."""
    scorer = _Scorer(oracle, structure, seed, meter)
    trigger = structure.index[TRIGGER_ID]
    units = [i for i in range(structure.size) if i != trigger]
    removed = {i: structure.full & ~structure.closure_of_dependents(i) for i in units}
    means = scorer.means([structure.full, *removed.values()], tasks)
    return {structure.players[i]: means[structure.full] - means[removed[i]] for i in units}


def _walk(structure: GameStructure, ranking: Sequence[str]) -> list[int]:
    """The coalitions of a pruning walk: N, then after each removal, down to {m}."""
    current = structure.full
    masks = [current]
    for player in ranking:
        index = structure.index[player]
        if not current >> index & 1:
            continue  # already removed with a unit it requires
        current &= ~structure.closure_of_dependents(index)
        masks.append(current)
    return masks


def pruning_curves(
    structure: GameStructure,
    oracle: CoalitionOracle,
    tasks: Sequence[Task],
    *,
    rankings: Mapping[CurveMethod, Sequence[str]],
    seed: int,
    meter: Meter,
) -> list[PruningCurve]:
    """One curve per method on the held-out ``tasks``; every coalition of every walk scored in one batch."""
    walks = {method: _walk(structure, ranking) for method, ranking in rankings.items()}
    scorer = _Scorer(oracle, structure, seed, meter)
    means = scorer.means([mask for masks in walks.values() for mask in masks], tasks)
    units = structure.size - 1
    curves = []
    for method, masks in walks.items():
        removed = tuple((units - (len(bits(mask)) - 1)) / units if units else 1.0 for mask in masks)
        scores = tuple(means[mask] for mask in masks)
        auc = _trapezoid(removed, scores) if len(masks) > 1 else scores[0]
        curves.append(PruningCurve(method, tuple(rankings[method]), removed, scores, auc))
    return curves


def _trapezoid(x: Sequence[float], y: Sequence[float]) -> float:
    return float(sum((x[i + 1] - x[i]) * (y[i + 1] + y[i]) / 2 for i in range(len(x) - 1)))


def rank(values: Mapping[str, float | None], seed: int) -> list[str]:
    """Units in ascending value; ties (and units without a value, first) broken by a seeded shuffle."""
    rng = np.random.default_rng([seed, 7])
    tiebreak = {unit: float(rng.random()) for unit in sorted(values)}
    return sorted(values, key=lambda u: (values[u] is not None, values[u] or 0.0, tiebreak[u]))


def random_ranking(units: Sequence[str], seed: int) -> list[str]:
    rng = np.random.default_rng([seed, 13])
    return [units[i] for i in rng.permutation(len(units))]
