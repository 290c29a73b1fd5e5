"""Unit values from chains: every scored prefix informs every unit (the pooled estimator).

Algorithm 1 values unit i on a chain by the two prefixes around it, V(S_j) − V(S_{j−1}) where
π_j = i: each score informs two units, and a unit's value carries the noise of two scores. With
rollout noise dominating (a window mean of b Bernoulli scores has a standard deviation near 0.16,
while a unit's marginal varies over orders by a few hundredths), that noise is the error.

The pooled estimator replaces the two indicators by their expectations given the prefix (a
Rao–Blackwellisation, :mod:`._order_odds`)::

    φ̂_i = Σ_j V(S_j) · (P_μ(last = i | S_j) − P_μ(next = i | S_j))

which is unbiased for φ_i(μ) and spreads a unit's weight over every prefix where the order could
have been just before or just after it: about half the noise variance of Algorithm 1 on the
benchmark's games, and within 12% of the least any unbiased estimator can reach there with
single-coalition scores (``benchmarks/skillsv_efficiency.py`` computes that bound). The weights do
not sum to zero along a chain, so a score's level matters, not only its differences; a control
variate takes the level out:

    φ(V) = φ(f) + φ(V − f)   for any f that does not depend on the chain's own order or scores.

f is an additive surrogate f(S, t) = α_t + Σ_{u∈S} β_u (a difficulty per case, a value per unit),
fitted by least squares on every score the *other* chains observed (an antithetic pair left out
together, since a partner's order is a function of the chain's own; every score the left-out chains
used is left out with them). Its μ-value is β, and the weights apply to the residual V − f. The
α_t of a chain's own cases come from the other chains scored on the same window
(``pairs_per_window``), so the case difficulty cancels as in a paired difference; β is shrunk toward
its mean, which changes how well f controls, not what is estimated.

Σ_i φ̂_i is exactly the chain's V(N) − V({m}), case by case, as for Algorithm 1. A truncated chain's
unscored tail is filled with its last scored prefix (the tail adds nothing: Algorithm 1's convention).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._estimate import EstimateRun, Pooling
from ._model import Operator
from ._order_odds import OddsIntractable, OrderOdds

SHRINKAGE: float | None = None
"""Ridge toward the mean for the surrogate's β: None estimates it (empirical Bayes, the default); a
number fixes it relative to the average diagonal of the Gram matrix (the benchmark's ablations)."""
CASE_PRIOR = 1.0
"""Pseudo-scores pulling a case's difficulty α_t toward the mean (decides it for a case no other chain saw)."""


@dataclass(frozen=True)
class UnitSamples:
    """Per chain, the unit values it contributes; their mean over chains is the estimate."""

    values: np.ndarray
    """chains × execution units."""
    per_task: np.ndarray | None
    """chains × units × window tasks (the mean over tasks is ``values``), for the two-way bootstrap."""
    method: Pooling


def unit_samples(
    run: EstimateRun, operator: Operator, odds: OrderOdds | None = None, shrinkage: float | None = SHRINKAGE
) -> UnitSamples:
    """The chains' contributions to each unit's value under ``operator``, pooled when the run allows."""
    chains = run.chains
    marginals = np.array([chain.marginals[operator] for chain in chains]).reshape(len(chains), len(run.execution))
    tables = [chain.per_task[operator] for chain in chains if chain.per_task is not None]
    per_task = np.stack(tables) if chains and len(tables) == len(chains) else None
    chain_samples = UnitSamples(marginals, per_task, "chain")
    if run.settings.pooling != "pooled" or not chains or any(chain.levels is None for chain in chains):
        return chain_samples
    try:
        weights = _weights(run, odds or OrderOdds(run.structure, run.settings.distribution))
    except OddsIntractable:
        return chain_samples
    return _pooled(run, operator, weights, shrinkage)


def _prefixes(run: EstimateRun, order: tuple[int, ...]) -> list[int]:
    masks = [1 << run.structure.index["m"]]
    for player in order:
        masks.append(masks[-1] | 1 << player)
    return masks


def _weights(run: EstimateRun, odds: OrderOdds) -> np.ndarray:
    """chains × prefixes × units: P(last = i | S_j) − P(next = i | S_j)."""
    slot = {player: position for position, player in enumerate(run.execution)}
    units = len(run.execution)
    out = np.zeros((len(run.chains), units + 1, units))
    for k, chain in enumerate(run.chains):
        for j, mask in enumerate(_prefixes(run, chain.order)):
            for player, p in odds.preceding(mask).items():
                if player in slot:
                    out[k, j, slot[player]] += p
            for player, p in odds.following(mask).items():
                out[k, j, slot[player]] -= p
    return out


def _pooled(run: EstimateRun, operator: Operator, weights: np.ndarray, shrinkage: float | None) -> UnitSamples:
    chains = run.chains
    levels = np.stack([chain.levels[operator] for chain in chains if chain.levels is not None])  # K × J × b
    scored = ~np.isnan(levels).any(axis=2)  # K × J
    for k in range(levels.shape[0]):  # a truncated tail: the last scored prefix carried forward
        for j in range(1, levels.shape[1]):
            if not scored[k, j]:
                levels[k, j] = levels[k, j - 1]
    surrogate = _Surrogate(run, operator, levels, scored, shrinkage)
    units = len(run.execution)
    per_task = np.zeros((len(chains), units, levels.shape[2]))
    for k, chain in enumerate(chains):
        alpha, beta = surrogate.fit_without(k)
        members = _membership(run, chain.order)  # J × units
        residual = levels[k] - alpha[list(chain.window)][None, :] - (members @ beta)[:, None]  # J × b
        per_task[k] = beta[:, None] + weights[k].T @ residual
    return UnitSamples(per_task.mean(axis=2), per_task, "pooled")


def _membership(run: EstimateRun, order: tuple[int, ...]) -> np.ndarray:
    """prefixes × units: 1 where the unit is in the prefix."""
    slot = {player: position for position, player in enumerate(run.execution)}
    out = np.zeros((len(order) + 1, len(run.execution)))
    for position, player in enumerate(order, start=1):
        out[position:, slot[player]] = 1.0
    return out


class _Surrogate:
    """Least squares for f(S, t) = α_t + a + Σ_{u∈S} β_u over the run's distinct scores, refitted per chain.

    Every distinct (coalition, case) score enters once; a chain's fit subtracts the scores its
    antithetic cluster used. The case effects α_t (pulled toward 0 by ``CASE_PRIOR``) are eliminated
    by their Schur complement, so each fit solves a system of the units' size, not the panel's.
    """

    def __init__(
        self, run: EstimateRun, operator: Operator, levels: np.ndarray, scored: np.ndarray, shrinkage: float | None
    ) -> None:
        self.run = run
        self.shrinkage = shrinkage
        index: dict[tuple[int, int], int] = {}
        tasks: list[int] = []
        masks: list[int] = []
        values: list[float] = []

        def add(mask: int, task: int, value: float) -> int:
            key = (mask, task)
            if key not in index:
                index[key] = len(values)
                tasks.append(task)
                masks.append(mask)
                values.append(value)
            return index[key]

        trigger = 1 << run.structure.index["m"]
        fixed = {trigger, run.structure.full}
        self.used: list[set[int]] = []
        for k, chain in enumerate(run.chains):
            rows: set[int] = set()
            for j, mask in enumerate(_prefixes(run, chain.order)):
                if scored[k, j]:
                    added = {add(mask, task, float(levels[k, j, a])) for a, task in enumerate(chain.window)}
                    if mask not in fixed:
                        rows.update(added)
            self.used.append(rows)
        panel_rows = (("trigger_pad" if operator == "pad" else "trigger_del", trigger), ("full", run.structure.full))
        for name, mask in panel_rows:
            for task, value in enumerate(run.panel.get(name, ())):
                add(mask, task, float(value))
        self.tasks = np.array(tasks, dtype=int)
        self.values = np.array(values)
        slot = {player: position for position, player in enumerate(run.execution)}
        units = len(run.execution)
        self.rest = np.zeros((len(values), units + 1))  # [intercept, units…]
        self.rest[:, 0] = 1.0
        for row, mask in enumerate(masks):
            for player, position in slot.items():
                if mask >> player & 1:
                    self.rest[row, 1 + position] = 1.0
        self.cases = len(run.tasks)
        self.totals = self._moments(np.arange(len(values)))
        pairs = [chain.pair for chain in run.chains]
        self.cluster = [[other for other, pair in enumerate(pairs) if pair == pairs[k]] for k in range(len(pairs))]

    def _moments(self, rows: np.ndarray) -> tuple[np.ndarray, ...]:
        """Blocks of X'X and X'y over ``rows``: case counts, case×rest, rest×rest, case sums, rest sums, Σy²."""
        tasks, rest, values = self.tasks[rows], self.rest[rows], self.values[rows]
        counts = np.bincount(tasks, minlength=self.cases).astype(float)
        cross = np.zeros((self.cases, rest.shape[1]))
        np.add.at(cross, tasks, rest)
        sums = np.bincount(tasks, weights=values, minlength=self.cases)
        return counts, cross, rest.T @ rest, sums, rest.T @ values, np.array([values @ values, len(rows)])

    def fit_without(self, chain: int) -> tuple[np.ndarray, np.ndarray]:
        """(α_t + a per case, β per unit) fitted without the scores ``chain``'s cluster used."""
        left_out = sorted(set().union(*(self.used[k] for k in self.cluster[chain])))
        removed = self._moments(np.array(left_out, dtype=int))
        counts, cross, gram, sums, moment, squares = (
            total - part for total, part in zip(self.totals, removed, strict=True)
        )
        units = gram.shape[0] - 1
        if counts.sum() < 1:
            return np.zeros(self.cases), np.zeros(units)  # nothing to fit on: f = 0 is as valid a control
        diagonal = counts + CASE_PRIOR
        system = gram - cross.T @ (cross / diagonal[:, None])  # the case effects eliminated (Schur complement)
        target = moment - cross.T @ (sums / diagonal)
        scale = max(float(np.trace(system[1:, 1:])) / max(units, 1), 1e-12)
        system += 1e-9 * scale * np.eye(units + 1)
        toward_mean = np.zeros_like(system)
        toward_mean[1:, 1:] = np.eye(units) - np.full((units, units), 1.0 / max(units, 1))
        if self.shrinkage is not None:
            penalty = self.shrinkage * scale
        else:
            penalty = self._bayes_penalty(system, target, (counts, cross, sums, squares, diagonal))
        rest = np.linalg.solve(system + penalty * toward_mean, target)
        alpha = (sums - cross @ rest) / diagonal
        return alpha + rest[0], rest[1:]

    @staticmethod
    def _bayes_penalty(system: np.ndarray, target: np.ndarray, parts: tuple[np.ndarray, ...]) -> float:
        """Empirical Bayes: the ridge σ²/τ² for β ~ (β̄, τ²) and scores with noise σ², both estimated.

        σ² from the residual of the unshrunk fit, τ² from the spread of its β beyond what their
        sampling variance explains. Strong, resolved unit effects are barely shrunk; effects lost in
        rollout noise are pulled together, which is what keeps a surrogate of few chains useful.
        """
        counts, cross, sums, squares, diagonal = parts
        rest = np.linalg.solve(system, target)
        alpha = (sums - cross @ rest) / diagonal
        fitted = alpha @ sums + rest @ target + alpha @ (cross @ rest)  # θ'X'y, by the normal equations
        observed = float(np.count_nonzero(counts))
        dof = squares[1] - observed - len(rest)
        if dof < 1:
            return 1e6 * float(np.trace(system)) / len(rest)
        noise = max(float(squares[0] - fitted) / dof, 1e-12)
        beta = rest[1:]
        sampling = noise * np.diag(np.linalg.inv(system))[1:]
        spread = float(np.var(beta)) - float(np.mean(sampling))
        if spread <= 0:
            return 1e6 * float(np.trace(system)) / len(rest)
        return float(noise / spread)
