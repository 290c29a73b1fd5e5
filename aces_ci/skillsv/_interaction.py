"""The interaction model: unit effects plus every pairwise interaction, fitted on every scored coalition.

A chain values a unit by the two prefixes around it; a regression lets every score inform every
unit. The model, on the ρ_del scores (the trigger is in every coalition, so the case term holds it)::

    V(S, t) = α_t + Σ_{i∈S} β_i + Σ_{i<j, both in S} β_ij

is fitted by least squares (a ridge of :data:`PAIR_RIDGE` pseudo-scores on the pairs only) on each
distinct (coalition, case) score the run drew — every prefix of every chain on its window, and the
panel's anchors. Its μ-value is exact and linear in the coefficients: a unanimity term's value goes
to whichever member enters last (:func:`~aces_ci.skillsv._exact.last_entry`), so
φ_i = β_i + Σ_j β_ij · P_μ(i enters after j). The precedence constraints and the hierarchy enter
twice: the rows are feasible coalitions only (prefixes of μ's orders), and the split of each pair
term is μ's. The values are unbiased when no interaction involves more than two units, and biased
when one does: a three-unit AND is read as pairs.

**Sampled prefixes** (``EstimatorSettings.sample_share``, the default under a budget): prefixes of
their own μ-orders, one case each, are rows too — the design that informs the model best; the
held-out check then does not run (see :func:`interaction_values`).

**Interval**: the coefficients' sandwich covariance clustered two ways — by coalition (the model
missing a coalition by the same amount on every case) and by case (a unit whose effect varies with
the case) (Cameron, Gelbach & Miller 2011), residuals scaled by leverage (HC3) — propagated
linearly to φ, read off a t with (cases − 1) degrees of freedom. One fit, no bootstrap.

**Check against held-out chains**: the chains are split into two folds by window group. A model
fitted without a fold predicts each marginal of that fold's chains, f(S ∪ i) − f(S) (the case terms
cancel), and the residual r = marginal − prediction has mean zero for every unit when the model is
right. A unit whose mean residual lies beyond ±:data:`CHECK_Z` standard errors (clustered by
antithetic pair) falls back to the chain estimate corrected by the model, φ_f + r̄ — a control
variate, unbiased for any game whatever the model, only wider. A unit the check passes keeps the
model's value, with an interval widened by the bias the check measured over all units (τ², the mean
of r̄² − se(r̄)², floored at 0): the check's resolution is the chains', coarser than the model's own, so a
bias of one model standard error passes it unflagged — at 1,000 rollouts per unit that took the
model's coverage to 0.89 without the widening (BENCHMARKS.md, round four). The check is two-sided at
5% per unit, so about one unit in twenty falls back when nothing is wrong: that costs width, not bias.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import linalg, stats

from ._estimate import ChainRecord, EstimateRun
from ._exact import last_entry
from ._result import Estimate, Interval, Valuation
from ._summary import CONFIDENCE, DecisionRules, decide, respect_dependencies, scores_to_decide

PAIR_RIDGE = 1.0
"""Pseudo-scores pulling each pairwise coefficient toward 0: it keeps a pair that the design never
separates (a unit and the unit it requires are always together) identified, and is small against
the hundreds of rows each pair appears in."""
CASE_RIDGE = 1e-6
CHECK_Z = 1.96
"""|mean residual| / its standard error beyond which a unit falls back to the corrected chain estimate."""
CHECK_FLOOR = 0.01
"""… and |mean residual| at least this (a fifth of the default δ): a miss smaller than that changes no
decision, and without a floor a near-noiseless run flags the ridge's last thousandth."""
MIN_ROWS_PER_COLUMN = 6.0
"""Below this many distinct scores per coefficient the chains' values stand. The model pays for its
n(n − 1)/2 pairs in variance: at 2–3 scores per coefficient (60 rollouts per unit, 24 units) its
intervals held the exact value for 0.917 of units, and at ~5.6 (250 per unit, 40 units) it made fewer
right calls than the chains (BENCHMARKS.md, round four); at 8–11 (24 and 16 units) it made more."""
_CHUNK = 2048


@dataclass(frozen=True)
class _Rows:
    masks: np.ndarray
    """Coalition bitmasks (int64: games of up to 62 players)."""
    tasks: np.ndarray
    scores: np.ndarray
    fold: np.ndarray
    """0 or 1: the fold of the chain that first drew the score; 2: the panel's anchors (both folds fit them)."""


@dataclass(frozen=True)
class InteractionValues:
    """φ_del per execution unit from the interaction model, with what the held-out check found."""

    values: tuple[Estimate, ...]
    """Aligned with the run's execution units: the model's value, or the corrected chain value for a
    unit that failed the check."""
    model: tuple[Estimate, ...]
    """The model's own values and sandwich intervals, for every unit."""
    check_z: tuple[float, ...]
    """Per unit, the held-out mean residual over its standard error (NaN: too few chains to check)."""
    fallback: tuple[int, ...]
    """Execution slots whose value is the corrected chain estimate."""


def _prefix_masks(chain: ChainRecord, trigger: int) -> list[int]:
    masks = [1 << trigger]
    for player in chain.order:
        masks.append(masks[-1] | 1 << player)
    return masks


Extra = Mapping[tuple[int, int], float]
"""ρ_del scores beyond the chains', by (coalition mask, case index): adaptive allocation's probes."""


def _rows(run: EstimateRun, trigger: int, extra: Extra) -> _Rows:
    """Each distinct (coalition, case) ρ_del score once, with the fold of the chain that drew it first."""
    seen: dict[tuple[int, int], tuple[float, int]] = {}
    for chain in run.chains:
        levels = chain.levels["del"] if chain.levels is not None else None
        if levels is None:
            continue
        for step, mask in enumerate(_prefix_masks(chain, trigger)):
            for column, task in enumerate(chain.window):
                score = float(levels[step, column])
                if not np.isnan(score):
                    seen.setdefault((mask, task), (score, chain.group % 2))
    panel = {"trigger_del": 1 << trigger, "full": run.structure.full}
    for name, mask in panel.items():
        for task, score in enumerate(run.panel.get(name, ())):
            seen.setdefault((mask, task), (float(score), 2))
    for source in (run.sampled, extra):
        for key, score in source.items():
            seen.setdefault(key, (score, 2))
    keys = list(seen)
    return _Rows(
        np.array([mask for mask, _ in keys], dtype=np.int64),
        np.array([task for _, task in keys], dtype=int),
        np.array([seen[key][0] for key in keys]),
        np.array([seen[key][1] for key in keys], dtype=int),
    )


class _Design:
    """Columns: one per case, one per execution unit, one per pair of units."""

    def __init__(self, execution: Sequence[int], cases: int) -> None:
        self.players = np.array(execution, dtype=np.int64)
        self.cases = cases
        self.pairs = list(itertools.combinations(range(len(execution)), 2))
        self.first = np.array([i for i, _ in self.pairs], dtype=int)
        self.second = np.array([j for _, j in self.pairs], dtype=int)
        self.width = cases + len(execution) + len(self.pairs)

    def effects(self, masks: np.ndarray) -> np.ndarray:
        """Rows × (units + pairs): the presence of each unit and each pair (no case columns)."""
        present = ((masks[:, None] >> self.players[None, :]) & 1).astype(float)
        return np.hstack([present, present[:, self.first] * present[:, self.second]])

    def rows(self, masks: np.ndarray, tasks: np.ndarray) -> np.ndarray:
        case = np.zeros((len(masks), self.cases))
        case[np.arange(len(masks)), tasks] = 1.0
        return np.hstack([case, self.effects(masks)])

    def penalty(self) -> np.ndarray:
        ridge = np.full(self.width, CASE_RIDGE)
        ridge[self.cases + len(self.players) :] = PAIR_RIDGE
        return np.diag(ridge)


def _chunks(rows: _Rows, keep: np.ndarray) -> list[np.ndarray]:
    index = np.flatnonzero(keep)
    return [index[start : start + _CHUNK] for start in range(0, len(index), _CHUNK)]


def _fit(design: _Design, rows: _Rows, keep: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, bool]]:
    """(β, the Cholesky factor of X'X + Λ) on the rows ``keep`` selects."""
    gram = design.penalty()
    moment = np.zeros(design.width)
    for chunk in _chunks(rows, keep):
        x = design.rows(rows.masks[chunk], rows.tasks[chunk])
        gram += x.T @ x
        moment += x.T @ rows.scores[chunk]
    factor = linalg.cho_factor(gram)
    return linalg.cho_solve(factor, moment), factor


def value_matrix(run: EstimateRun, design: _Design) -> np.ndarray:
    """Units × columns: φ = A β for the model's coefficients (zero on the case columns)."""
    units = len(design.players)
    matrix = np.zeros((units, design.width))
    matrix[np.arange(units), design.cases + np.arange(units)] = 1.0
    players = design.players
    masks = [1 << int(players[i]) | 1 << int(players[j]) for i, j in design.pairs]
    splits = last_entry(run.structure, run.settings.distribution, masks)
    for column, ((i, j), split) in enumerate(zip(design.pairs, splits, strict=True)):
        matrix[i, design.cases + units + column] = split[int(players[i])]
        matrix[j, design.cases + units + column] = split[int(players[j])]
    return matrix


def _sandwich_sd(
    design: _Design, rows: _Rows, beta: np.ndarray, factor: tuple[np.ndarray, bool], matrix: np.ndarray
) -> np.ndarray:
    """Per unit, the sd of φ = A β from the two-way (coalition, case) clustered sandwich.

    Each row's residual is divided by 1 − its leverage (HC3, the jackknife's approximation): with
    ~10 rows per coefficient, plain residuals understate the noise (on the benchmark's 16-unit
    games the standardised errors had sd 1.13 without it).
    """
    lever = linalg.cho_solve(factor, matrix.T).T  # A (X'X + Λ)⁻¹
    coalitions, coalition_of = np.unique(rows.masks, return_inverse=True)
    by_mask = np.zeros((len(coalitions), lever.shape[0]))
    by_case = np.zeros((design.cases, lever.shape[0]))
    own = np.zeros(lever.shape[0])
    everything = np.ones(len(rows.scores), dtype=bool)
    for chunk in _chunks(rows, everything):
        x = design.rows(rows.masks[chunk], rows.tasks[chunk])
        leverage = np.einsum("rp,pr->r", x, linalg.cho_solve(factor, x.T))
        residual = (rows.scores[chunk] - x @ beta) / np.maximum(1.0 - leverage, 0.05)
        influence = (x @ lever.T) * residual[:, None]  # rows × units
        own += (influence**2).sum(axis=0)
        np.add.at(by_case, rows.tasks[chunk], influence)
        np.add.at(by_mask, coalition_of[chunk], influence)
    coalition = (by_mask**2).sum(axis=0)
    case = (by_case**2).sum(axis=0)
    variance = np.maximum(coalition + case - own, np.maximum(coalition, case))
    return np.asarray(np.sqrt(variance), dtype=float)


@dataclass(frozen=True)
class _Check:
    z: np.ndarray
    """Per unit: the held-out mean residual over its standard error."""
    miss: np.ndarray
    """Per unit: the held-out mean residual."""
    corrected: np.ndarray
    corrected_sd: np.ndarray
    clusters: int
    lack_of_fit: float
    """τ², the model's squared miss per unit beyond noise: max(0, mean over units of r̄² − se(r̄)²),
    whose expectation is the mean squared bias (E r̄² = bias² + se²). Floored after pooling: flooring
    each unit first would add ~0.4 se² per unit when nothing is wrong."""


def _held_out_check(run: EstimateRun, design: _Design, rows: _Rows, matrix: np.ndarray, trigger: int) -> _Check | None:
    """Residuals of each fold's chain marginals against the model fitted without that fold (module docstring)."""
    chains = [c for c in run.chains if c.truncated_at is None and "del" in c.marginals]
    if len({c.pair for c in chains}) < 4 or len({c.group % 2 for c in chains}) < 2:
        return None
    units = len(design.players)
    fitted = {}
    for fold in (0, 1):
        beta, _ = _fit(design, rows, rows.fold != fold)
        fitted[fold] = (beta[design.cases :], matrix @ beta)
    slot = {int(player): k for k, player in enumerate(design.players)}
    residual: dict[int, list[np.ndarray]] = {}
    corrected: dict[int, list[np.ndarray]] = {}
    for chain in chains:
        effects, phi = fitted[chain.group % 2]
        level = design.effects(np.array(_prefix_masks(chain, trigger), dtype=np.int64)) @ effects
        predicted = np.zeros(units)
        for position, player in enumerate(chain.order):
            predicted[slot[player]] = level[position + 1] - level[position]
        miss = chain.marginals["del"] - predicted
        residual.setdefault(chain.pair, []).append(miss)
        corrected.setdefault(chain.pair, []).append(phi + miss)
    r = np.array([np.mean(v, axis=0) for v in residual.values()])
    c = np.array([np.mean(v, axis=0) for v in corrected.values()])
    count = len(r)
    r_sd = r.std(axis=0, ddof=1) / np.sqrt(count)
    z = np.divide(r.mean(axis=0), r_sd, out=np.zeros(units), where=r_sd > 0)
    bias = max(float(np.mean(r.mean(axis=0) ** 2 - r_sd**2)), 0.0)  # pooled, then floored: unbiased when > 0
    return _Check(z, r.mean(axis=0), c.mean(axis=0), c.std(axis=0, ddof=1) / np.sqrt(count), count, bias)


def interaction_values(
    run: EstimateRun, confidence: float = 0.95, extra: Extra | None = None, min_rows: float = MIN_ROWS_PER_COLUMN
) -> InteractionValues | None:
    """φ_del of every execution unit from the interaction model (module docstring).

    None when the run scored too few distinct coalitions to fit it (:data:`MIN_ROWS_PER_COLUMN`).
    ``extra`` adds scores beyond the chains' (they inform the fit, not the held-out check).
    """
    structure = run.structure
    trigger = next(i for i in range(structure.size) if i not in run.execution)
    rows = _rows(run, trigger, extra or {})
    design = _Design(run.execution, len(run.tasks))
    if len(rows.scores) < min_rows * design.width:
        return None
    beta, factor = _fit(design, rows, np.ones(len(rows.scores), dtype=bool))
    matrix = value_matrix(run, design)
    phi = matrix @ beta
    sd = _sandwich_sd(design, rows, beta, factor, matrix)
    cases = len(set(rows.tasks.tolist()))
    z = float(stats.t.ppf(0.5 + confidence / 2, max(cases - 1, 1)))  # the case clusters set the df
    count = len(run.chains)
    # Under the sampled design the check is off: its fallback selects units on a z from a few chain
    # pairs, and on 16 units at 1,000 rollouts per unit it fell back 3.5 units a skill and covered 0.875
    # (BENCHMARKS.md, round five). The chains then value content and context cost only.
    check = None if run.sampled else _held_out_check(run, design, rows, matrix, trigger)
    if check is not None:  # the bias the check measured, pooled over units, widens every model interval
        sd = np.sqrt(sd**2 + check.lack_of_fit)
    model = tuple(
        Estimate(float(v), Interval(float(v - z * s), float(v + z * s)), count) for v, s in zip(phi, sd, strict=True)
    )
    if check is None:
        return InteractionValues(model, model, tuple(float("nan") for _ in model), ())
    t = float(stats.t.ppf(0.5 + confidence / 2, check.clusters - 1))
    fallback = tuple(int(k) for k in np.flatnonzero((np.abs(check.z) > CHECK_Z) & (np.abs(check.miss) >= CHECK_FLOOR)))
    values = list(model)
    for k in fallback:
        v, s = float(check.corrected[k]), float(check.corrected_sd[k])
        values[k] = Estimate(v, Interval(v - t * s, v + t * s), count)
    return InteractionValues(tuple(values), model, tuple(float(x) for x in check.z), fallback)


def with_interaction(
    run: EstimateRun,
    valuation: Valuation,
    rules: DecisionRules,
    *,
    confidence: float = CONFIDENCE,
    extra: Extra | None = None,
    min_rows: float = MIN_ROWS_PER_COLUMN,
) -> Valuation:
    """``valuation`` with its net effects (and so its decisions) from the interaction model.

    Content values and context costs stay the chains' (the ``compress`` decision reads them); the
    decision, its reason and the scores to decide are recomputed from the model's net effect.
    """
    fitted = interaction_values(run, confidence, extra, min_rows)
    if fitted is None:
        return valuation
    slot = {run.structure.players[player]: k for k, player in enumerate(run.execution)}
    panel_scores = sum(len(row) for row in run.panel.values())
    per_chain = (run.meter.evaluated - panel_scores) / len(run.chains) if run.chains else 0.0
    units = []
    for unit in valuation.units:
        net = fitted.values[slot[unit.unit]]
        decision, reason = decide(net, unit.content_value, unit.context_cost, rules)
        more = scores_to_decide(net, rules.margin, per_chain) if decision == "unresolved" else None
        units.append(replace(unit, net_effect=net, decision=decision, reason=reason, scores_to_decide=more))
    names = {k: name for name, k in slot.items()}
    return replace(
        valuation,
        units=tuple(respect_dependencies(units, run.structure)),
        estimator="interaction",
        fallback=tuple(names[k] for k in fitted.fallback),
    )
