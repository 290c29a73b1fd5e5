"""From measured chains (or exact enumeration) to a :class:`Valuation`: intervals, closure, decisions.

Intervals resample whole chains — an antithetic pair counts as one — because every marginal of a
chain shares its order and its window (paper, Appendix F.1); panel anchors resample tasks. The
closure ratio Σφ/Λ resamples both at once: Σφ from chains, Λ from the panel's tasks.

Decisions (paper, Appendix F.3, with a margin of practical equivalence δ = ``value.margin``): a unit's
net effect already includes its context cost (ρ_del removes its bytes), so its sign says whether the
skill is better with it or without it, and δ says when the difference is too small to matter.

* ``negligible`` — two one-sided tests at 5% each say its net effect is above −δ and below +δ
  (Schuirmann 1987: the 90% interval, each side of the reported 95% one scaled by
  :func:`~._decisions.equivalence_scale`, lies inside ±δ): whatever it does is smaller than δ, and it
  costs context (cut it); at an adaptive valuation's looks each side is tested at that look's α_k;
* ``delete`` — the interval lies below 0 and reaches past −δ: the skill scores better without it;
* ``compress`` — its content value (ρ_pad) is resolved positive and its context cost is resolved
  positive and at least ``compress_share`` of it: the idea helps, its length hurts;
* ``keep`` — the interval lies above 0 and reaches past +δ: removing it costs score;
* ``unresolved`` — the interval straddles 0 and reaches past δ: with the scores it would need to
  decide, from its current spread (:func:`scores_to_decide`).

Each sign is read off a two-sided 95% interval, so a wrong sign (a harmful unit kept, a load-bearing
one deleted) has probability at most 2.5% per unit when the interval covers; a unit worth δ or more
is called negligible with probability at most 5% (the equivalence test's level). Reading
``negligible`` off the 95% interval instead would test each side at 2.5%, which asks a dead unit's
interval to be a fifth narrower than the test needs: on the benchmark's 16-unit games at 250
rollouts per unit, that left most dead units unresolved (BENCHMARKS.md, round eight).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ._decisions import crossing, equivalence_scale
from ._estimate import EstimateRun, Pooling
from ._model import UnitGroup
from ._order_odds import OrderOdds
from ._pooled import unit_samples
from ._result import (
    CUT_DECISIONS,
    CaseScore,
    Cost,
    Decision,
    Estimate,
    GroupValue,
    Interval,
    Requirement,
    UnitValue,
    Valuation,
)
from ._structure import GameStructure, bits

CONFIDENCE = 0.95


DEFAULT_MARGIN = 0.05
"""δ by default: a unit whose net effect is within 5 points of the score does less than the smallest
lift the trial gate counts for a whole skill (``gate.pass_band`` 0.05), so it is not worth its context."""


@dataclass(frozen=True)
class DecisionRules:
    margin: float = DEFAULT_MARGIN
    """δ: net effects inside ±δ are negligible."""
    compress_share: float = 0.5


DEFAULT_RULES = DecisionRules()


def _interval(samples: np.ndarray) -> Interval:
    tail = (1 - CONFIDENCE) / 2 * 100
    lo, hi = np.percentile(samples, [tail, 100 - tail])
    return Interval(float(lo), float(hi))


def equivalence_interval(value: float, ci: Interval, confidence: float = CONFIDENCE) -> Interval:
    """The interval the equivalence test reads (90% from a 95% ``ci``), side by side from ``ci`` at
    ``confidence`` (:func:`~._decisions.equivalence_scale`): ``negligible`` when it lies strictly inside ±δ."""
    scale = equivalence_scale(confidence)
    return Interval(value - (value - ci.lo) * scale, value + (ci.hi - value) * scale)


def decide(
    net: Estimate | None,
    content: Estimate | None,
    cost: Estimate | None,
    rules: DecisionRules,
    confidence: float = CONFIDENCE,
) -> tuple[Decision, str]:
    """A unit's decision and its reason in words (the module docstring gives the rule); ``confidence`` is
    the level of ``net``'s interval (an adaptive valuation's looks report theirs at 1 − α_k)."""
    if net is None:
        return "unresolved", "no chain measured it"
    margin = rules.margin
    net_ci = net.ci or Interval(net.value, net.value)
    equivalence = equivalence_interval(net.value, net_ci, confidence)
    if -margin < equivalence.lo and equivalence.hi < margin:
        shown = f"[{equivalence.lo:+.3f}, {equivalence.hi:+.3f}]"
        level = f"{100 * (2 * confidence - 1):.3g}%"
        return "negligible", f"its {level} interval {shown} lies within ±{margin:g}: too small to be worth its context"
    if net_ci.hi < 0:
        return "delete", "the skill scores better without it (net effect below 0)"
    if content is not None and cost is not None:
        content_ci = content.ci or Interval(content.value, content.value)
        cost_ci = cost.ci or Interval(cost.value, cost.value)
        if content_ci.lo > 0 and cost_ci.lo > 0 and cost.value >= rules.compress_share * content.value:
            return "compress", "its content helps, and its length takes back at least half of that"
    if net_ci.lo > 0:
        return "keep", "removing it costs score (net effect above 0)"
    return "unresolved", f"its interval straddles 0 and reaches past ±{margin:g}"


def forecast(net: Estimate, margin: float, design_scores: float) -> tuple[int | None, tuple[int, int | None] | None]:
    """About how many more coalition scores an unresolved unit needs, assuming its value stays put, and the
    range the middle 80% of simulated continued runs need (:class:`~._decisions.Crossing`; its upper end None
    when more than a tenth are still open at 64 times the design): a first passage is noisy, and a point
    forecast cannot be right for every unit. (None, None) when nothing can be said; no range when only the
    closed form below answers.

    ``design_scores`` are the scores its precision grows with: the chains' for a chain estimate (the
    panel's anchors do not inform a unit's marginals), every score for the interaction model (each
    row informs the fit). A growth factor f of the design is (f − 1) · ``design_scores`` more, at
    least one chain's worth (``design_scores`` / chains). Round seven converted the model's growth
    at the chains' scores, 4% short of the budget it grows: forecasts whose window edge fell at
    ×1.95 then missed decisions made there by 3% (BENCHMARKS.md, round eight).

    The growth most likely to be within a factor 2 of the first look of a continued run that decides
    it (:func:`~._decisions.crossing`): round four's answer below — where the expected interval
    decides — was pessimistic, because a decision is the first look at which a noisy interval clears,
    and it stays the answer when most simulated runs are still open at 64× the design.

    Each side of an interval shrinks about the value v as 1/√chains (the bootstrap's intervals need
    not be symmetric, so each side is scaled on its own). The sign is decided once the side toward 0
    no longer reaches it: (v − lo) → |v| for v > 0, factor ((v − lo)/v)²; *negligible* once both
    sides of the equivalence interval (each side times s = :func:`~._decisions.equivalence_scale` at 95%)
    fit inside ±δ: factor max((s(hi − v)/(δ − v))², (s(v − lo)/(δ + v))²) when |v| < δ; the
    smaller factor is the growth.
    """
    if net.ci is None or net.n == 0 or design_scores <= 0:
        return None, None
    value, lo, hi = net.value, net.ci.lo, net.ci.hi
    least = design_scores / net.n

    def scores(growth: float) -> int:
        return int(np.ceil(max((growth - 1) * design_scores, least)))

    found = crossing(value, lo, hi, margin)
    if found is not None:
        upper = scores(found.high) if np.isfinite(found.high) else None
        return scores(found.factor), (scores(found.low), upper)
    toward_zero = value - lo if value > 0 else hi - value
    factors = [(toward_zero / abs(value)) ** 2] if value != 0 else []
    if abs(value) < margin:
        equivalence = equivalence_interval(value, net.ci)
        above, below = equivalence.hi - value, value - equivalence.lo
        factors.append(max((above / (margin - value)) ** 2, (below / (margin + value)) ** 2))
    return (scores(min(factors)) if factors else None), None


def scores_to_decide(net: Estimate, margin: float, design_scores: float) -> int | None:
    """The point of :func:`forecast`: about how many more coalition scores would decide the unit."""
    return forecast(net, margin, design_scores)[0]


def required_sets(structure: GameStructure, players: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Per unit of ``players`` that others among them require: itself, then every unit deleting it removes."""
    valued = set(players)
    sets = {}
    for player in players:
        index = structure.index[player]
        dependents = [
            structure.players[i]
            for i in bits(structure.closure_of_dependents(index) & ~(1 << index))
            if structure.players[i] in valued
        ]
        if dependents:
            sets[player] = (player, *dependents)
    return sets


def respect_dependencies(
    units: Sequence[UnitValue],
    structure: GameStructure,
    requirements: Sequence[Requirement] = (),
    margin: float = DEFAULT_MARGIN,
) -> list[UnitValue]:
    """A unit others require is not deleted on its own: its value went to the units that need it.

    Under a precedence-constrained μ a prerequisite always enters before the units that require it,
    so a lead-in that only makes sense with the instruction after it can show no value of its own while
    that instruction shows the value. Deleting the lead-in would delete that instruction too; so a cut
    (``delete`` or ``negligible``) or an open unit required by a unit worth keeping is kept — unless
    deleting it with everything that requires it (``requirements``: their summed net effect, estimated
    jointly) could raise the score by δ (``margin``) or more: the sum's interval reaching below −δ. A
    harmful lead-in of a useful instruction can cost more than the instruction gives, and keeping it on
    the instruction's word alone kept units whose removal together would have raised the score
    (BENCHMARKS.md, round eleven). Such a unit is ``unresolved``, with the sum in its reason. The test is
    the severe error's: a unit kept while deleting it (with its dependents) helps by more than δ.
    Without a sum for it (an older caller) the unit is kept, as before. A cut required by an unresolved
    unit becomes ``unresolved``.
    """
    by_id = {unit.unit: unit for unit in units}
    removed_with = required_sets(structure, list(by_id))
    sums = {requirement.unit: requirement for requirement in requirements}
    out: list[UnitValue] = []
    for unit in units:
        if unit.decision not in (*CUT_DECISIONS, "unresolved"):
            out.append(unit)
            continue
        dependents = removed_with.get(unit.unit, (unit.unit,))[1:]
        kept = [d for d in dependents if by_id[d].decision in ("keep", "compress")]
        open_ = [d for d in dependents if by_id[d].decision == "unresolved"]
        if kept:
            out.append(_kept_for(unit, kept, sums.get(unit.unit), margin))
        elif open_ and unit.decision != "unresolved":
            out.append(replace(unit, decision="unresolved", reason=f"required by {', '.join(open_)} (unresolved)"))
        else:
            out.append(unit)
    return out


def _kept_for(unit: UnitValue, kept: Sequence[str], requirement: Requirement | None, margin: float) -> UnitValue:
    """``unit``, which ``kept`` units require: kept unless deleting it with its dependents may gain δ or more."""
    decision: Decision = "keep"
    reason = f"required by {', '.join(kept)}, which carry value"
    together = requirement.net_effect if requirement is not None else None
    if requirement is not None and together is not None:
        ci = together.ci or Interval(together.value, together.value)
        removed = ", ".join(requirement.removed[1:])
        shown = f"{together.value:+.3f}" + (f" [{ci.lo:+.3f}, {ci.hi:+.3f}]" if together.ci is not None else "")
        if ci.lo > 0:
            reason += f"; deleting it with {removed} would cost score (together {shown})"
        elif ci.lo > -margin:
            reason += f"; deleting it with {removed} would not gain {margin:g} (together {shown})"
        elif ci.hi < 0:
            decision = "unresolved"
            reason += (
                f", but the skill scores better without it and {removed} (together {shown}): "
                f"delete them together, or rewrite {', '.join(kept)} not to need it"
            )
        else:
            decision = "unresolved"
            reason += f", but deleting it with {removed} might gain {margin:g} or more (together {shown})"
    return replace(unit, decision=decision, reason=reason, scores_to_decide=None, scores_range=None)


class _Resampler:
    """Bootstrap replicates that resample chains and tasks together (a two-way, crossed bootstrap).

    Chains carry the order's variation; tasks carry the panel's and the rollouts': a coalition's
    score on a task is drawn once and then shared by every chain that meets it (the coalition cache),
    so resampling chains alone would treat that one draw as if every chain had drawn afresh. Each
    replicate draws cluster counts (an antithetic pair is one cluster) and task counts; a chain's
    marginal is re-weighted over its window by the task counts, and anchors over the panel likewise.
    """

    _CHUNK = 100

    def __init__(self, run: EstimateRun, replicates: int, seed: int) -> None:
        rng = np.random.default_rng([seed, 20_260_901])
        pairs = sorted({chain.pair for chain in run.chains})
        cluster_of = {pair: index for index, pair in enumerate(pairs)}
        self.cluster = np.array([cluster_of[chain.pair] for chain in run.chains], dtype=int)
        self.chain_weights = np.zeros((replicates, len(run.chains)))
        if pairs:
            draws = rng.integers(0, len(pairs), size=(replicates, len(pairs)))
            counts = np.zeros((replicates, len(pairs)))
            np.add.at(counts, (np.arange(replicates)[:, None], draws), 1)
            self.chain_weights = counts[:, self.cluster]
        tasks = len(run.tasks)
        task_draws = rng.integers(0, tasks, size=(replicates, tasks))
        self.task_weights = np.zeros((replicates, tasks))
        np.add.at(self.task_weights, (np.arange(replicates)[:, None], task_draws), 1)
        self.windows = np.array([chain.window for chain in run.chains], dtype=int) if run.chains else None
        self.two_way = bool(run.chains) and all(chain.per_task is not None for chain in run.chains)

    def chain_means(self, values: np.ndarray) -> np.ndarray:
        """Replicates × columns: the weighted mean of ``values`` (chains × columns) over resampled chains."""
        weights = self.chain_weights
        means: np.ndarray = (weights @ values) / np.maximum(weights.sum(axis=1), 1e-12)[:, None]
        return means

    def unit_means(self, per_task: np.ndarray | None, values: np.ndarray) -> np.ndarray:
        """Replicates × units: per-unit means, two-way when per-task differences (chains × units × b) exist."""
        if per_task is None or not self.two_way or self.windows is None:
            return self.chain_means(values)
        replicates = self.chain_weights.shape[0]
        out = np.zeros((replicates, per_task.shape[1]))
        for start in range(0, replicates, self._CHUNK):
            rows = slice(start, start + self._CHUNK)
            window_weights = self.task_weights[rows][:, self.windows]  # r × chains × b
            total = window_weights.sum(axis=2)
            valid = total > 0
            chain_mean = np.einsum("rkb,knb->rkn", window_weights, per_task) / np.where(valid, total, 1.0)[..., None]
            weights = self.chain_weights[rows] * valid
            out[rows] = np.einsum("rk,rkn->rn", weights, chain_mean) / np.maximum(weights.sum(axis=1), 1e-12)[:, None]
        return out

    def task_means(self, values: np.ndarray) -> np.ndarray:
        means: np.ndarray = (self.task_weights @ values) / values.shape[0]
        return means


def _estimate(value: float, replicates: np.ndarray, n: int) -> Estimate:
    return Estimate(float(value), _interval(replicates), n)


def summarize(
    run: EstimateRun,
    groups: Sequence[UnitGroup] = (),
    rules: DecisionRules = DEFAULT_RULES,
    replicates: int = 1000,
) -> Valuation:
    structure = run.structure
    players = [structure.players[i] for i in run.execution]
    operators = run.settings.operators
    resample = _Resampler(run, replicates, run.settings.seed)
    chains = run.chains
    per_op: dict[str, tuple[np.ndarray, np.ndarray] | None] = {}
    tables: dict[str, np.ndarray | None] = {}
    odds = OrderOdds(structure, run.settings.distribution)
    pooling: Pooling = "chain"
    for op in ("del", "pad"):
        if op in operators and chains:
            samples = unit_samples(run, op, odds)
            pooling = samples.method
            matrix = samples.values
            tables[op] = samples.per_task
            per_op[op] = (matrix, resample.unit_means(tables[op], matrix))
        else:
            per_op[op] = None
    cost_pair = None
    if per_op["del"] is not None and per_op["pad"] is not None:
        difference = per_op["pad"][0] - per_op["del"][0]
        pad_table, del_table = tables["pad"], tables["del"]
        table = pad_table - del_table if pad_table is not None and del_table is not None else None
        cost_pair = (difference, resample.unit_means(table, difference))
    count = len(chains)
    zeroed = np.zeros(len(players), dtype=int)
    for chain in chains:
        if chain.truncated_at is not None:
            for index in chain.order[chain.truncated_at :]:
                zeroed[run.execution.index(index)] += 1

    def column(source: tuple[np.ndarray, np.ndarray] | None, slot: int) -> Estimate | None:
        if source is None:
            return None
        matrix, boot = source
        return _estimate(matrix[:, slot].mean(), boot[:, slot], count)

    panel_scores = sum(len(row) for row in run.panel.values())
    chain_scores = run.meter.evaluated - panel_scores if count else 0
    units = []
    for slot, player in enumerate(players):
        net, content, cost = column(per_op["del"], slot), column(per_op["pad"], slot), column(cost_pair, slot)
        decision, reason = decide(net, content, cost, rules)
        more, span = (
            forecast(net, rules.margin, chain_scores) if net is not None and decision == "unresolved" else (None, None)
        )
        units.append(UnitValue(player, net, content, cost, int(zeroed[slot]), decision, reason, more, span))
    slots = {player: slot for slot, player in enumerate(players)}

    def summed(members: Sequence[int]) -> Estimate | None:
        if per_op["del"] is None or not members:
            return None
        matrix, boot = per_op["del"]
        return _estimate(matrix[:, members].sum(axis=1).mean(), boot[:, members].sum(axis=1), count)

    requirements = tuple(
        Requirement(unit, removed, summed([slots[u] for u in removed]))
        for unit, removed in required_sets(structure, players).items()
    )
    units = respect_dependencies(units, structure, requirements, rules.margin)
    anchors, trigger_value, lift, lift_boot = _anchors(run, resample)
    sum_values = None
    closure = None
    if per_op["del"] is not None:
        matrix, boot = per_op["del"]
        total_boot = boot.sum(axis=1)
        sum_values = _estimate(matrix.sum(axis=1).mean(), total_boot, count)
        if lift is not None and lift_boot is not None and abs(lift.value) > 1e-12:
            ratios = np.divide(total_boot, lift_boot, out=np.full_like(total_boot, np.nan), where=lift_boot != 0)
            ratios = ratios[np.isfinite(ratios)]
            closure = Estimate(sum_values.value / lift.value, _interval(ratios) if ratios.size else None, count)
    group_values = [
        GroupValue(
            group.label, group.file, group.line, group.units, summed([slots[u] for u in group.units if u in slots])
        )
        for group in groups
    ]
    intermediate = max(0, len(run.execution) - 1)
    gamma = (
        float(np.mean([chain.intermediate_evaluated / intermediate for chain in chains]))
        if chains and intermediate
        else None
    )
    meter = run.meter
    prefixes = structure.size + 1
    full_audit = len(operators) * run.planned_chains * prefixes * len(run.tasks)
    return Valuation(
        method="estimate",
        units=tuple(units),
        groups=tuple(group_values),
        requirements=requirements,
        trigger_value=trigger_value,
        anchors=anchors,
        content_lift=lift,
        sum_values=sum_values,
        closure_ratio=closure,
        chains=count,
        chains_planned=run.planned_chains,
        truncation_rate=gamma,
        cost=Cost(meter.rollouts, meter.evaluated, meter.requested, full_audit, meter.cost_usd, meter.served),
        stopped_by=run.stopped_by,
        error=run.error,
        margin=rules.margin,
        pooling=pooling,
        left_out=run.left_out,
        failure=run.failure,
        cases=tuple(
            CaseScore(
                task.id, *(run.case_scores.get(name, {}).get(index) for name in ("empty", "trigger_only", "full"))
            )
            for index, task in enumerate(run.tasks)
            if index in run.case_scores.get("full", {})
        ),
    )


def _anchors(
    run: EstimateRun, resample: _Resampler
) -> tuple[dict[str, Estimate | None], Estimate | None, Estimate | None, np.ndarray | None]:
    """Anchors, trigger value and Λ: from the whole panel when measured there, else from the chains."""
    names = {"empty": "empty", "trigger_only": "trigger_del", "full": "full"}
    if run.panel:
        tasks = len(run.tasks)
        anchors: dict[str, Estimate | None] = {
            public: _estimate(run.panel[inner].mean(), resample.task_means(run.panel[inner]), tasks)
            for public, inner in names.items()
        }
        trigger = run.panel["trigger_del"] - run.panel["empty"]
        lift = run.panel["full"] - run.panel["trigger_del"]
        lift_boot = resample.task_means(lift)
        return (
            anchors,
            _estimate(trigger.mean(), resample.task_means(trigger), tasks),
            _estimate(lift.mean(), lift_boot, tasks),
            lift_boot,
        )
    if not run.chains:
        return dict.fromkeys(names), None, None, None
    values = np.array([[chain.anchors[inner] for inner in names.values()] for chain in run.chains])
    boot = resample.chain_means(values)
    count = len(run.chains)
    anchors = {public: _estimate(values[:, i].mean(), boot[:, i], count) for i, public in enumerate(names)}
    trigger = _estimate((values[:, 1] - values[:, 0]).mean(), boot[:, 1] - boot[:, 0], count)
    lift_boot = boot[:, 2] - boot[:, 1]
    return anchors, trigger, _estimate((values[:, 2] - values[:, 1]).mean(), lift_boot, count), lift_boot
