"""Exact mode (``aces-ci value --exact``): μ-exact values of a small game with a deterministic oracle.

Every coalition μ can pass through is scored on every task of the panel (ρ_del from ∅, ρ_pad from
{m}), in one batch per operator, and the values are the exact weighted sums of
:class:`~aces_ci.skillsv.ExactGame`. With a deterministic oracle there is no sampling error, so
the values carry no interval; with a noisy one they are exact for the scores drawn, no more.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import InfraError
from ._estimate import Meter
from ._exact import ExactGame
from ._model import TRIGGER_ID, Operator, UnitGroup
from ._oracle import CoalitionOracle, CoalitionRequest, Task
from ._orders import OrderDistribution
from ._result import CaseScore, Cost, Estimate, GroupValue, Requirement, UnitValue, Valuation
from ._structure import GameStructure
from ._summary import DEFAULT_RULES, DecisionRules, decide, required_sets, respect_dependencies


class OracleFailed(InfraError):
    """The oracle could not score a coalition exact mode needs (exit 3)."""


def _scores(
    oracle: CoalitionOracle,
    structure: GameStructure,
    *,
    masks: Sequence[int],
    operator: Operator,
    tasks: Sequence[Task],
    seed: int,
    meter: Meter,
) -> dict[int, np.ndarray]:
    full = structure.full
    requests = [
        CoalitionRequest(structure.members(mask), "del" if mask in (0, full) else operator, task, seed)
        for mask in masks
        for task in tasks
    ]
    outcomes = oracle.evaluate(requests)
    meter.requested += len(requests)
    meter.evaluated += len(requests)
    values: dict[int, np.ndarray] = {}
    for position, mask in enumerate(masks):
        row = outcomes[position * len(tasks) : (position + 1) * len(tasks)]
        for outcome in row:
            meter.rollouts += outcome.rollouts
            meter.cost_usd += outcome.cost_usd
            if outcome.score is None:
                raise OracleFailed(outcome.error or "a coalition could not be scored")
        values[mask] = np.array([outcome.score for outcome in row], dtype=float)
    return values


def exact_valuation(
    structure: GameStructure,
    oracle: CoalitionOracle,
    tasks: Sequence[Task],
    *,
    operators: Sequence[Operator],
    distribution: OrderDistribution,
    seed: int = 0,
    groups: Sequence[UnitGroup] = (),
    rules: DecisionRules = DEFAULT_RULES,
) -> Valuation:
    trigger = structure.index[TRIGGER_ID]
    meter = Meter()
    phi: dict[Operator, list[float]] = {}
    means: dict[Operator, dict[int, np.ndarray]] = {}
    for op in operators:
        game = ExactGame(structure, distribution, start=0 if op == "del" else 1 << trigger)
        scores = _scores(oracle, structure, masks=game.reachable, operator=op, tasks=tasks, seed=seed, meter=meter)
        means[op] = scores
        phi[op] = game.values({mask: float(row.mean()) for mask, row in scores.items()})
    if "del" not in means:  # the anchors need ∅, {m} and N under ρ_del
        means["del"] = _scores(
            oracle,
            structure,
            masks=[0, 1 << trigger, structure.full],
            operator="del",
            tasks=tasks,
            seed=seed,
            meter=meter,
        )
    players = [(i, p) for i, p in enumerate(structure.players) if i != trigger]

    def exact(value: float) -> Estimate:
        return Estimate(value, None, len(tasks))

    units = []
    for index, player in players:
        net = exact(phi["del"][index]) if "del" in phi else None
        content = exact(phi["pad"][index]) if "pad" in phi else None
        cost = exact(content.value - net.value) if net is not None and content is not None else None
        decision, reason = decide(net, content, cost, rules)
        units.append(UnitValue(player, net, content, cost, 0, decision, reason))
    slots = {player: index for index, player in players}
    requirements = tuple(
        Requirement(unit, removed, exact(sum(phi["del"][slots[u]] for u in removed)) if "del" in phi else None)
        for unit, removed in required_sets(structure, [player for _, player in players]).items()
    )
    units = respect_dependencies(units, structure, requirements, rules.margin)
    empty, trigger_only, full = (float(means["del"][mask].mean()) for mask in (0, 1 << trigger, structure.full))
    total = sum(unit.net_effect.value for unit in units if unit.net_effect is not None) if "del" in phi else None
    lift = full - trigger_only
    group_values = []
    for group in groups:
        members = [slots[u] for u in group.units if u in slots]
        value = exact(sum(phi["del"][i] for i in members)) if "del" in phi and members else None
        group_values.append(GroupValue(group.label, group.file, group.line, group.units, value))
    return Valuation(
        method="exact",
        units=tuple(units),
        groups=tuple(group_values),
        requirements=requirements,
        trigger_value=exact(trigger_only - empty),
        anchors={"empty": exact(empty), "trigger_only": exact(trigger_only), "full": exact(full)},
        content_lift=exact(lift),
        sum_values=exact(total) if total is not None else None,
        closure_ratio=exact(total / lift) if total is not None and abs(lift) > 1e-12 else None,
        chains=0,
        chains_planned=0,
        truncation_rate=None,
        cost=Cost(meter.rollouts, meter.evaluated, meter.requested, meter.requested, meter.cost_usd),
        stopped_by=None,
        error=None,
        margin=rules.margin,
        cases=tuple(
            CaseScore(task.id, *(float(means["del"][mask][index]) for mask in (0, 1 << trigger, structure.full)))
            for index, task in enumerate(tasks)
        ),
    )
