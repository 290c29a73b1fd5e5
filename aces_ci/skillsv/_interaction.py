"""The interaction model: unit effects plus every pairwise interaction, fitted on every scored coalition.

A chain values a unit by the two prefixes around it; a regression lets every score inform every
unit. The model, on the ρ_del scores (the trigger is in every coalition, so the case term holds it)::

    V(S, t) = α_t + Σ_{i∈S} β_i + Σ_{i<j, both in S} β_ij

is fitted by least squares (a ridge of :data:`PAIR_RIDGE` pseudo-scores on the pairs only; learned per
pair under a budget, below) on each
distinct (coalition, case) score the run drew — every prefix of every chain on its window, and the
panel's anchors. Its μ-value is exact and linear in the coefficients: a unanimity term's value goes
to whichever member enters last (:func:`~aces_ci.skillsv._exact.last_entry`), so
φ_i = β_i + Σ_j β_ij · P_μ(i enters after j). The precedence constraints and the hierarchy enter
twice: the rows are feasible coalitions only (prefixes of μ's orders, half-coalitions closed under the
requirements), and the split of each pair
term is μ's. The values are unbiased when no interaction involves more than two units, and biased
when one does: a three-unit AND is read as pairs.

**Sampled half-coalitions** (``EstimatorSettings.sample_share``, the default under a budget): each
unit present with probability ½, closed under the requirements, one case each — the design that
informs every unit's effect best. On them the model is fitted **sparse and cross-fitted**
(:func:`_cross_fitted`): each pair term gets its own prior variance, learned by automatic relevance
determination (:func:`_relevance`), so the many pairs the rows show no sign of leave the fit and
stop spreading their noise into every unit's value — and a pair neither of whose units shows an
effect of its own is not a candidate at all (weak heredity, :func:`_parents`); and each of
:data:`FOLDS` folds of the rows is fitted with the penalty the *other* folds learned, which keeps the
sandwich interval honest about the selection. A three-unit interaction shows as its three pairs;
where the sparse fit keeps two of them, the triple is a candidate column (:func:`_triangles`), so a
three-unit AND is no longer read as pairs there. The
held-out check does not run under this design (see :func:`interaction_values`; BENCHMARKS.md, round six).

**Interval**: the coefficients' sandwich covariance clustered two ways — by coalition (the model
missing a coalition by the same amount on every case) and by case (a unit whose effect varies with
the case) (Cameron, Gelbach & Miller 2011), residuals scaled by leverage (HC3) — propagated
linearly to φ, read off a t with (cases − 1) degrees of freedom. One fit (two when cross-fitted), no
bootstrap.

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
from ._result import Estimate, Interval, PairEffect, Valuation
from ._summary import CONFIDENCE, DecisionRules, decide, forecast, respect_dependencies

PAIR_RIDGE = 1.0
"""Pseudo-scores pulling each pairwise coefficient toward 0: it keeps a pair that the design never
separates (a unit and the unit it requires are always together) identified, and is small against
the hundreds of rows each pair appears in."""
CASE_RIDGE = 1e-6
RELEVANCE_START = 0.01
"""Every pair's prior variance before the first update: an sd of 0.1, the size of a real interaction."""
RELEVANCE_CAP = 1.0
"""No pair's prior variance grows past this (an sd of 1: a whole pass rate)."""
PRUNE_BELOW = 1e-8
"""A pair whose prior variance falls below this (an sd of 10⁻⁴) leaves the fit for good, as in Tipping's
fast relevance vector machine: its ridge would be ~10⁷ anyway, and the fit shrinks to the pairs that matter."""
PRUNED_RIDGE = 1e8
NOISE_FLOOR = 1e-4
RELEVANCE_ITERATIONS = 300
TRIPLE_PAIR_SD = 0.05
"""Prior sd from which a kept pair counts toward a triple (:func:`_triangles`)."""
TRIPLE_SIDES = 2
"""Kept pairs (of its three) that make a triple a candidate. Three missed the AND of a unit that requires
another (u8 needing u6: the pair u8·u34 aliased with u6·u34 and was dropped), and the pairwise model
then gave u8 a third of its value (BENCHMARKS.md, round seven); relevance determination prunes the
spurious candidates two sides let in."""
HEREDITY_T = 2.0
"""A pair is a candidate only when one of its units shows an effect of its own: |t| ≥ this in the
additive fit of the selecting folds (weak heredity). A unit with no effect of its own is dead, minor, or
half of an interaction no skill writes (each unit useless alone *and* together with the other only by
cancelling); its pairs with every other unit were where most of the spurious pairs sat, each adding
noise to its value. Requiring *both* units (strong heredity) decided more dead units but missed OR pairs
of two small units and made 0.1–0.25 severe calls per skill (BENCHMARKS.md, round seven)."""
FOLDS = 4
"""Cross-fitting folds: each fold is fitted with the penalty learned on the other three. With two, the
penalty came from half the rows and real pairs of |t| ≈ 2–3 were often pruned (a three-unit AND's pairs
most of all); with four it comes from three quarters, at the cost of four relevance fits."""
MAX_TRIPLES = 40
RELEVANCE_TOLERANCE = 1e-4
"""Largest relative change of an active pair's prior variance at which the updates stop."""
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
SPARSE_MIN_ROWS_PER_COLUMN = 2.0
"""The same floor for the sparse, cross-fitted model on half-coalitions, which pays only for the pairs it
keeps: at 2.3–3.4 scores per coefficient (60 rollouts per unit on 16, 24 and 40 units) it made 28%, 48%
and 61% right calls with coverage 0.950–0.967 and no severe call, where the chains alone made 4%, 11%
and 5% (BENCHMARKS.md, round six)."""
_CHUNK = 2048


@dataclass(frozen=True)
class _Rows:
    masks: np.ndarray
    """Coalition bitmasks (int64: games of up to 62 players)."""
    tasks: np.ndarray
    scores: np.ndarray
    fold: np.ndarray
    """0 or 1: the fold of the chain that first drew the score; 2: the panel's anchors (both folds fit them)."""
    pad: np.ndarray
    """True for a ρ_pad score (the joint model under the sampled design), False for ρ_del."""


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
    content: tuple[Estimate, ...] = ()
    """Content values (φ_pad) from the joint model, aligned like ``values``; empty without ρ_pad half-coalitions."""
    cost: tuple[Estimate, ...] = ()
    """Context costs (φ_pad − φ_del = κ) from the joint model; empty without ρ_pad half-coalitions."""
    groups: tuple[Estimate, ...] = ()
    """Sums of the asked groups' net effects under the sampled design; empty otherwise."""
    pairs: tuple[tuple[tuple[int, int], Estimate], ...] = ()
    """Under the sampled design, the pairs (execution slots) whose interaction β_ij a Bonferroni test over
    every pair tested puts away from 0 (:func:`_named_pairs`), strongest first; empty otherwise."""


def _prefix_masks(chain: ChainRecord, trigger: int) -> list[int]:
    masks = [1 << trigger]
    for player in chain.order:
        masks.append(masks[-1] | 1 << player)
    return masks


def _rows(run: EstimateRun, trigger: int) -> _Rows:
    """Each distinct (coalition, case, operator) score once, with the fold of the chain that drew it first.

    ρ_del scores always; ρ_pad scores too when the run sampled half-coalitions under ρ_pad (the joint
    model: :class:`_Design` with ``pad``). The whole skill is the same coalition under both operators.
    """
    joint = bool(run.sampled_pad)
    seen: dict[tuple[int, int, bool], tuple[float, int]] = {}
    for chain in run.chains:
        for operator in ("del", "pad") if joint else ("del",):
            levels = chain.levels.get(operator) if chain.levels is not None else None
            if levels is None:
                continue
            for step, mask in enumerate(_prefix_masks(chain, trigger)):
                pad = operator == "pad" and mask != run.structure.full
                for column, task in enumerate(chain.window):
                    score = float(levels[step, column])
                    if not np.isnan(score):
                        seen.setdefault((mask, task, pad), (score, chain.group % 2))
    panel = {"trigger_del": (1 << trigger, False), "full": (run.structure.full, False)}
    if joint:
        panel["trigger_pad"] = (1 << trigger, True)
    for name, (mask, pad) in panel.items():
        for task, score in enumerate(run.panel.get(name, ())):
            seen.setdefault((mask, task, pad), (float(score), 2))
    sources: list[tuple[Mapping[tuple[int, int], float], bool]] = [(run.sampled, False)]
    if joint:
        sources.append((run.sampled_pad, True))
    for source, pad in sources:  # the whole skill is never a ρ_pad key: the estimator scores it as ρ_del
        for (mask, task), score in source.items():
            seen.setdefault((mask, task, pad), (score, 2))
    keys = list(seen)
    return _Rows(
        np.array([mask for mask, _, _ in keys], dtype=np.int64),
        np.array([task for _, task, _ in keys], dtype=int),
        np.array([seen[key][0] for key in keys]),
        np.array([seen[key][1] for key in keys], dtype=int),
        np.array([pad for _, _, pad in keys], dtype=bool),
    )


class _Design:
    """Columns: one per case, one per execution unit, [the ρ_pad block], one per pair of units, and any
    triples asked for.

    With ``pad`` (the joint model) ρ_pad rows share the case, unit, pair and triple terms with ρ_del
    rows and add their own block: an intercept, the tokens the coalition holds (``lengths``: a unit's
    context cost proportional to its length, one free coefficient) and a term κ_i per unit present, its
    cost beyond that. ρ_pad keeps an absent unit's length where ρ_del removes it, so
    V_pad(S) − V_del(S) = α + Σ_{i∈S} (c·tokens_i + κ_i): the unit's context cost, and its content
    value is its net effect plus that. Only the κ terms are penalised (relevance determination, like
    the pairs): where a unit's cost is what its length predicts they leave the fit, and its ρ_pad rows
    inform its net effect as fully as ρ_del rows. On the benchmark's 16-unit games with context costs
    scaled up to 0.3 of a pass rate over the whole skill (0.02 a unit), the net effects covered 0.953,
    content values 0.969 and context costs 0.979, where content values from the chains covered 0.896
    (BENCHMARKS.md, round seven).
    """

    def __init__(
        self,
        execution: Sequence[int],
        cases: int,
        triples: Sequence[tuple[int, int, int]] = (),
        pad: bool = False,
        lengths: np.ndarray | None = None,
    ) -> None:
        self.players = np.array(execution, dtype=np.int64)
        self.cases = cases
        self.pad = pad
        self.lengths = lengths if pad else None
        """Per execution unit, its tokens in thousands (the ρ_pad length column); None: no such column."""
        units = len(execution)
        self.pairs = list(itertools.combinations(range(units), 2))
        self.first = np.array([i for i, _ in self.pairs], dtype=int)
        self.second = np.array([j for _, j in self.pairs], dtype=int)
        self.triples = list(triples)
        self.free = cases + units + (1 + (self.lengths is not None) if pad else 0)
        """Columns left unpenalised: cases, units, the ρ_pad intercept and length."""
        self.kappa = self.free
        """First κ column (with ``pad``)."""
        self.pair_start = self.free + (units if pad else 0)
        self.width = self.pair_start + len(self.pairs) + len(self.triples)

    def variant(self, triples: Sequence[tuple[int, int, int]]) -> _Design:
        """This design with ``triples`` appended."""
        return _Design(self.players.tolist(), self.cases, triples, self.pad, self.lengths)

    def effects(self, masks: np.ndarray) -> np.ndarray:
        """Rows × (units + pairs + triples): the presence of each unit, pair and triple (no case or ρ_pad columns)."""
        present = ((masks[:, None] >> self.players[None, :]) & 1).astype(float)
        columns = [present, present[:, self.first] * present[:, self.second]]
        if self.triples:
            a, b, c = (np.array(side, dtype=int) for side in zip(*self.triples, strict=True))
            columns.append(present[:, a] * present[:, b] * present[:, c])
        return np.hstack(columns)

    def rows(self, masks: np.ndarray, tasks: np.ndarray, pad: np.ndarray | None = None) -> np.ndarray:
        case = np.zeros((len(masks), self.cases))
        case[np.arange(len(masks)), tasks] = 1.0
        effects = self.effects(masks)
        units = len(self.players)
        if not self.pad:
            return np.hstack([case, effects])
        flag = (np.zeros(len(masks)) if pad is None else pad.astype(float))[:, None]
        present = effects[:, :units]
        block = [flag] if self.lengths is None else [flag, flag * (present @ self.lengths)[:, None]]
        return np.hstack([case, present, *block, present * flag, effects[:, units:]])

    def penalty(self) -> np.ndarray:
        ridge = np.full(self.width, CASE_RIDGE)
        ridge[self.free :] = PAIR_RIDGE
        return np.diag(ridge)


def model_columns(units: int, cases: int) -> int:
    """Coefficients of the pairwise model on ``units`` execution units and ``cases`` cases (one per case,
    unit and pair; no ρ_pad block or triples): what a budget must fit rows for (``_budget``)."""
    return _Design(range(units), cases).width


def _chunks(rows: _Rows, keep: np.ndarray) -> list[np.ndarray]:
    index = np.flatnonzero(keep)
    return [index[start : start + _CHUNK] for start in range(0, len(index), _CHUNK)]


@dataclass(frozen=True)
class _Moments:
    """X'X, X'y, y'y and the row count of some rows: all a least-squares or relevance fit reads."""

    gram: np.ndarray
    moment: np.ndarray
    squares: float
    count: int

    def __add__(self, other: _Moments) -> _Moments:
        return _Moments(
            self.gram + other.gram, self.moment + other.moment, self.squares + other.squares, self.count + other.count
        )

    def __sub__(self, other: _Moments) -> _Moments:
        """The moments of the rows ``self`` holds beyond ``other``'s (the folds a fold is not)."""
        return _Moments(
            self.gram - other.gram, self.moment - other.moment, self.squares - other.squares, self.count - other.count
        )


def _moments(design: _Design, rows: _Rows, keep: np.ndarray) -> _Moments:
    gram = np.zeros((design.width, design.width))
    moment = np.zeros(design.width)
    for chunk in _chunks(rows, keep):
        x = design.rows(rows.masks[chunk], rows.tasks[chunk], rows.pad[chunk])
        gram += x.T @ x
        moment += x.T @ rows.scores[chunk]
    kept = rows.scores[keep]
    return _Moments(gram, moment, float(kept @ kept), int(keep.sum()))


def _extended(moments: _Moments, design: _Design, rows: _Rows, keep: np.ndarray) -> _Moments:
    """``moments`` of a design whose columns ``design`` extends (triples appended): only the new
    columns' products are computed from the rows, the rest is kept."""
    start = len(moments.moment)
    gram = np.zeros((design.width, design.width))
    gram[:start, :start] = moments.gram
    moment = np.zeros(design.width)
    moment[:start] = moments.moment
    for chunk in _chunks(rows, keep):
        x = design.rows(rows.masks[chunk], rows.tasks[chunk], rows.pad[chunk])
        gram[:, start:] += x.T @ x[:, start:]
        moment[start:] += x[:, start:].T @ rows.scores[chunk]
    gram[start:, :start] = gram[:start, start:].T
    return _Moments(gram, moment, moments.squares, moments.count)


def _fit(
    design: _Design, rows: _Rows, keep: np.ndarray, penalty: np.ndarray | None = None
) -> tuple[np.ndarray, tuple[np.ndarray, bool]]:
    """(β, the Cholesky factor of X'X + Λ) on the rows ``keep`` selects; Λ is the fixed ridge unless given."""
    moments = _moments(design, rows, keep)
    factor = linalg.cho_factor(moments.gram + (design.penalty() if penalty is None else np.diag(penalty)))
    return linalg.cho_solve(factor, moments.moment), factor


def _parents(design: _Design, moments: _Moments) -> np.ndarray:
    """Per unit, whether the additive fit (cases and units, no pairs) of these rows shows an effect of its
    own at |t| ≥ :data:`HEREDITY_T`: the units whose pairs may enter the fit (weak heredity)."""
    free, units = design.free, slice(design.cases, design.cases + len(design.players))
    gram = moments.gram[:free, :free] + np.diag(np.full(free, CASE_RIDGE))
    factor = linalg.cho_factor(gram)
    beta = linalg.cho_solve(factor, moments.moment[:free])
    noise = max((moments.squares - beta @ moments.moment[:free]) / max(moments.count - free, 1), NOISE_FLOOR)
    spread = np.diag(linalg.cho_solve(factor, np.eye(free)))[units]
    t = np.abs(beta[units]) / np.sqrt(noise * spread)
    return np.asarray(t >= HEREDITY_T)


def _relevance(design: _Design, moments: _Moments, parents: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per column, the ridge a sparse fit puts on it: each pair's prior variance learned from the rows.

    Automatic relevance determination (MacKay 1992; Tipping 2001): every pair term β_ij has its own
    prior N(0, γ_ij), the case and unit terms are left free, and the γ and the noise σ² are set by
    type-II maximum likelihood with MacKay's fixed-point updates. A pair the rows show no sign of is
    driven to γ → 0 and leaves the fit; one they show keeps a γ near its square and is barely
    shrunk. ``parents`` (:func:`_parents`) leaves out, from the start, every pair neither of whose units
    has an effect of its own. Returned as the ridge σ²/γ per column (:data:`PRUNED_RIDGE` for a pruned
    pair) and the γ of every penalised column (0 when pruned).
    """
    free = design.free
    width = design.width
    gamma = np.full(width - free, RELEVANCE_START)
    active = np.arange(width - free)
    if parents is not None:  # a pair neither of whose units has an effect of its own stays out
        allowed = np.ones(width - free, dtype=bool)
        start = design.pair_start - free
        allowed[start : start + len(design.pairs)] = parents[design.first] | parents[design.second]
        active = active[allowed]
    count = max(moments.count, 1)
    noise = max(moments.squares / count - (moments.moment[: design.cases].sum() / count) ** 2, NOISE_FLOOR)
    for _ in range(RELEVANCE_ITERATIONS):
        columns = np.concatenate([np.arange(free), free + active])
        precision = np.concatenate([np.full(free, CASE_RIDGE), 1.0 / gamma[active]])
        gram = moments.gram[np.ix_(columns, columns)]
        system = gram / noise + np.diag(precision)
        factor = linalg.cho_factor(system)
        mean = linalg.cho_solve(factor, moments.moment[columns] / noise)
        spread = np.diag(linalg.cho_solve(factor, np.eye(len(columns))))
        determined = 1.0 - spread[free:] * precision[free:]  # how far the rows, not the prior, set each pair
        updated = np.minimum(mean[free:] ** 2 / np.maximum(determined, 1e-12), RELEVANCE_CAP)
        residual = moments.squares - 2 * mean @ moments.moment[columns] + mean @ gram @ mean
        used = free + determined.sum()
        noise = max(residual / max(moments.count - used, 1.0), NOISE_FLOOR)
        change = np.max(np.abs(updated - gamma[active]) / np.maximum(gamma[active], 1e-6), initial=0.0)
        gamma[active] = updated
        active = active[updated > PRUNE_BELOW]
        if change < RELEVANCE_TOLERANCE:
            break
    ridge = np.full(width, CASE_RIDGE)
    ridge[free:] = PRUNED_RIDGE
    ridge[free + active] = noise / gamma[active]
    kept = np.zeros(width - free)
    kept[active] = gamma[active]
    return ridge, kept


def _triangles(design: _Design, gamma: np.ndarray) -> list[tuple[int, int, int]]:
    """Triples of units :data:`TRIPLE_SIDES` of whose three pairs the sparse fit kept at :data:`TRIPLE_PAIR_SD`.

    A three-unit interaction read by a pairwise model shows as its three pairs; a triple is a candidate
    only where that trace is there (heredity, as in the analysis of factorial designs), so the columns
    stay few, and the relevance fit that follows keeps or prunes each one. The strongest
    :data:`MAX_TRIPLES`, ranked by the weakest of their counted pairs.
    """
    start = design.pair_start - design.free
    pairs = zip(design.pairs, gamma[start : start + len(design.pairs)], strict=True)
    strong = {pair: g for pair, g in pairs if g >= TRIPLE_PAIR_SD**2}
    found: dict[tuple[int, int, int], float] = {}
    for (i, j), g in strong.items():
        for k in range(len(design.players)):
            if k in (i, j):
                continue
            sides = sorted([g, *(strong.get((min(a, k), max(a, k)), 0.0) for a in (i, j))], reverse=True)
            if sides[TRIPLE_SIDES - 1] > 0:  # the triple's TRIPLE_SIDES strongest pairs are all kept
                a, b, c = sorted((i, j, k))
                found[(a, b, c)] = sides[TRIPLE_SIDES - 1]
    ranked = sorted(found.items(), key=lambda item: (-item[1], item[0]))
    return [triple for triple, _ in ranked[:MAX_TRIPLES]]


def _fold_of(rows: _Rows, seed: int, folds: int = FOLDS) -> np.ndarray:
    """0 … folds − 1 per row, from a hash of its (coalition, case) and the seed: a row keeps its fold when
    more rows come, so a continued valuation refits on the same split plus the new rows (a
    position-based split would reshuffle every row and move the values by as much as their noise)."""
    key = rows.masks.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    key ^= (rows.tasks.astype(np.uint64) + np.uint64(seed) * np.uint64(7919)) * np.uint64(0xC2B2AE3D27D4EB4F)
    key ^= key >> np.uint64(31)
    key *= np.uint64(0xBF58476D1CE4E5B9)
    return np.asarray((key >> np.uint64(40)) % np.uint64(folds), dtype=int)


def _cross_fitted(
    run: EstimateRun,
    design: _Design,
    rows: _Rows,
    matrix: np.ndarray,
    seed: int,
    *,
    groups: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """φ and its sd from the sparse model, cross-fitted so the interval is honest about the pruning.

    A sparse fit chooses its pairs from the very noise it then fits: its intervals, computed as if
    the ridge were fixed, held the exact values for 0.86–0.88 of units on the benchmark's 24-unit
    games (standardised errors with sd 1.25–1.5). So the rows are split into :data:`FOLDS` folds by a
    hash (:func:`_fold_of`); each fold is fitted with the ridge :func:`_relevance` learned on the
    *other* folds — a fixed penalty as far as this fold's noise is concerned, so its sandwich is
    right — and φ is the mean of the folds' values, its variance the sum of theirs over folds² (the
    folds' noise is independent). Standardised errors of sd ≈ 1 on the benchmark's games
    (BENCHMARKS.md, rounds six and seven).

    With the ρ_pad block (``design.pad``) the net effects come from that fit, each κ penalised like a
    pair, so a unit whose length costs nothing lets its ρ_pad rows inform its net effect; content values
    and context costs come from the same fold refitted with every κ free, so a κ the fit pruned does not
    report a context cost of exactly 0 ± 0.

    ``groups`` (groups × units, 0/1) adds the sums of the groups' net effects after ``matrix``'s rows, each
    with its own sandwich (the units' values are correlated: a sum's variance is not the sum of theirs).
    After them come the pair coefficients β_ij of every pair some fold's relevance fit kept, returned as
    their indices into ``design.pairs``: each fold's estimate is linear in its own rows, so the mean over
    folds with its sandwich is a test of the pair whatever the folds kept (a fold that pruned it adds ≈ 0).
    """
    units = len(design.players)
    sums = np.zeros((0, units)) if groups is None else groups
    fold = _fold_of(rows, seed)
    parts = [fold == side for side in range(FOLDS)]
    moments = [_moments(design, rows, part) for part in parts]
    total = sum(moments[1:], moments[0])
    folds = []
    for part, fold_moments in zip(parts, moments, strict=True):
        other = total - fold_moments
        parents = _parents(design, other)
        ridge, gamma = _relevance(design, other, parents)
        fitted, own_moments, fitted_matrix = design, fold_moments, matrix
        triples = _triangles(design, gamma)
        if triples:  # the triple columns go after the pairs: the value matrix only grows
            fitted = design.variant(triples)
            ridge, _ = _relevance(fitted, _extended(other, fitted, rows, ~part), parents)
            own_moments = _extended(own_moments, fitted, rows, part)
            fitted_matrix = np.hstack([matrix, _stacked(fitted, _triple_columns(run, fitted))])
        folds.append((part, fitted, ridge, gamma, own_moments, fitted_matrix))
    start = design.pair_start - design.free
    kept = sorted(
        {int(k) for *_, gamma, _, _ in folds for k in np.flatnonzero(gamma[start : start + len(design.pairs)])}
    )
    values, variances = [], []
    for part, fitted, ridge, _, own_moments, fitted_matrix in folds:
        own = _Rows(rows.masks[part], rows.tasks[part], rows.scores[part], rows.fold[part], rows.pad[part])
        net = fitted_matrix[:units]
        pairs = np.zeros((len(kept), fitted.width))
        pairs[np.arange(len(kept)), design.pair_start + np.array(kept, dtype=int)] = 1.0
        blocks = [(ridge, np.vstack([net, sums @ net, pairs]))]
        if design.pad:  # content and cost from a fit where every unit's length term is free (below)
            free_lengths = ridge.copy()
            free_lengths[design.kappa : design.kappa + units] = CASE_RIDGE
            blocks.append((free_lengths, fitted_matrix[units:]))
        value, variance = [], []
        for penalty, functional in blocks:
            factor = linalg.cho_factor(own_moments.gram + np.diag(penalty))
            beta = linalg.cho_solve(factor, own_moments.moment)
            value.append(functional @ beta)
            variance.append(_sandwich_sd(fitted, own, beta, factor, functional) ** 2)
        # the layout of ``matrix`` (net effects, then content values and costs), the groups' sums, the pairs
        values.append(np.concatenate([value[0][:units], *value[1:], value[0][units:]]))
        variances.append(np.concatenate([variance[0][:units], *variance[1:], variance[0][units:]]))
    return np.mean(values, axis=0), np.sqrt(np.sum(variances, axis=0)) / FOLDS, kept


def value_matrix(run: EstimateRun, design: _Design) -> np.ndarray:
    """φ = A β for the model's coefficients (zero on the case columns): units × columns, the net
    effects; with ``design.pad``, (3 × units) × columns: net effects, content values, context costs."""
    units = len(design.players)
    matrix = np.zeros((units, design.width))
    matrix[np.arange(units), design.cases + np.arange(units)] = 1.0
    players = design.players
    masks = [1 << int(players[i]) | 1 << int(players[j]) for i, j in design.pairs]
    splits = last_entry(run.structure, run.settings.distribution, masks)
    for column, ((i, j), split) in enumerate(zip(design.pairs, splits, strict=True)):
        matrix[i, design.pair_start + column] = split[int(players[i])]
        matrix[j, design.pair_start + column] = split[int(players[j])]
    matrix[:, design.pair_start + len(design.pairs) :] = _triple_columns(run, design)
    if not design.pad:
        return matrix
    cost = np.zeros_like(matrix)
    cost[np.arange(units), design.kappa + np.arange(units)] = 1.0
    if design.lengths is not None:
        cost[:, design.kappa - 1] = design.lengths
    return np.vstack([matrix, matrix + cost, cost])


def _stacked(design: _Design, columns: np.ndarray) -> np.ndarray:
    """Units × k value columns (of terms ρ_pad and ρ_del share) in :func:`value_matrix`'s row layout."""
    if not design.pad:
        return columns
    return np.vstack([columns, columns, np.zeros_like(columns)])


def _triple_columns(run: EstimateRun, design: _Design) -> np.ndarray:
    """Units × triples: each triple term's μ-split among its three units (the last entrant's share)."""
    players = design.players
    columns = np.zeros((len(players), len(design.triples)))
    masks = [sum(1 << int(players[k]) for k in triple) for triple in design.triples]
    splits = last_entry(run.structure, run.settings.distribution, masks)
    for column, (triple, split) in enumerate(zip(design.triples, splits, strict=True)):
        for k in triple:
            columns[k, column] = split[int(players[k])]
    return columns


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
        x = design.rows(rows.masks[chunk], rows.tasks[chunk], rows.pad[chunk])
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
    run: EstimateRun,
    confidence: float = 0.95,
    groups: Sequence[Sequence[int]] = (),
) -> InteractionValues | None:
    """φ_del of every execution unit from the interaction model (module docstring).

    ``groups`` (execution slots per section or folder) asks, under the sampled design, for the sum of
    each group's net effects with its interval, in :attr:`InteractionValues.groups`.

    None when the run scored too few distinct coalitions to fit it: per coefficient,
    :data:`SPARSE_MIN_ROWS_PER_COLUMN` under the sampled design, :data:`MIN_ROWS_PER_COLUMN` on chains.
    """
    structure = run.structure
    trigger = next(i for i in range(structure.size) if i not in run.execution)
    rows = _rows(run, trigger)
    tokens = structure.tokens
    lengths = np.array([tokens[player] for player in run.execution], dtype=float) / 1000 if tokens else None
    design = _Design(run.execution, len(run.tasks), pad=bool(run.sampled_pad), lengths=lengths)
    min_rows = SPARSE_MIN_ROWS_PER_COLUMN if run.sampled else MIN_ROWS_PER_COLUMN
    if len(rows.scores) < min_rows * design.width:
        return None
    matrix = value_matrix(run, design)
    units = len(design.players)
    kept: list[int] = []
    if run.sampled:
        sums = np.zeros((len(groups), units))
        for row, slots in enumerate(groups):
            sums[row, list(slots)] = 1.0
        phi, sd, kept = _cross_fitted(run, design, rows, matrix, run.settings.seed, groups=sums)
    else:
        beta, factor = _fit(design, rows, np.ones(len(rows.scores), dtype=bool))
        phi, sd = matrix @ beta, _sandwich_sd(design, rows, beta, factor, matrix)
    cases = len(set(rows.tasks.tolist()))
    z = float(stats.t.ppf(0.5 + confidence / 2, max(cases - 1, 1)))  # the case clusters set the df
    count = len(run.chains)
    # Under the sampled design the check is off: its fallback selects units on a z from a few chain
    # pairs, and on 16 units at 1,000 rollouts per unit it fell back 3.5 units a skill and covered 0.875
    # (BENCHMARKS.md, round five). The chains then value content and context cost only.
    check = None if run.sampled else _held_out_check(run, design, rows, matrix, trigger)
    if check is not None:  # the bias the check measured, pooled over units, widens every model interval
        sd = np.sqrt(sd**2 + check.lack_of_fit)
    estimates = tuple(
        Estimate(float(v), Interval(float(v - z * s), float(v + z * s)), count) for v, s in zip(phi, sd, strict=True)
    )
    model = estimates[:units]
    if check is None:
        nan = tuple(float("nan") for _ in model)
        pad = estimates[units : 3 * units] if design.pad else ()
        after = 3 * units if design.pad else units
        summed = estimates[after : after + len(groups)] if run.sampled else ()
        tested = range(after + len(groups), len(estimates))
        named = _named_pairs(
            [(design.pairs[k], estimates[row], float(sd[row])) for k, row in zip(kept, tested, strict=True)],
            1.0 - confidence,
            cases,
        )
        return InteractionValues(model, model, nan, (), pad[:units], pad[units:], summed, named)
    t = float(stats.t.ppf(0.5 + confidence / 2, check.clusters - 1))
    fallback = tuple(int(k) for k in np.flatnonzero((np.abs(check.z) > CHECK_Z) & (np.abs(check.miss) >= CHECK_FLOOR)))
    values = list(model)
    for k in fallback:
        v, s = float(check.corrected[k]), float(check.corrected_sd[k])
        values[k] = Estimate(v, Interval(v - t * s, v + t * s), count)
    return InteractionValues(tuple(values), model, tuple(float(x) for x in check.z), fallback)


def _named_pairs(
    tested: Sequence[tuple[tuple[int, int], Estimate, float]], alpha: float, cases: int
) -> tuple[tuple[tuple[int, int], Estimate], ...]:
    """The pairs (with their estimate and sd) whose interaction is away from 0 at family-wise level ``alpha``:
    Bonferroni over the pairs tested (every pair some fold kept), t on cases − 1 degrees of freedom;
    strongest first.

    Tens of pairs are tested per skill, so a per-pair 5% test would name a spurious pair in most skills;
    at a flat 3 standard errors, 2 of the 14 pairs named on ten 24-unit benchmark skills were spurious
    (BENCHMARKS.md, round nine). Bonferroni keeps the chance of naming any spurious pair in a skill
    under ``alpha``."""
    if not tested:
        return ()
    cut = float(stats.t.ppf(1.0 - alpha / (2 * len(tested)), max(cases - 1, 1)))
    named = [(pair, estimate) for pair, estimate, sd in tested if sd > 0 and abs(estimate.value) >= cut * sd]
    return tuple(sorted(named, key=lambda item: -abs(item[1].value)))


def with_interaction(
    run: EstimateRun,
    valuation: Valuation,
    rules: DecisionRules,
    *,
    confidence: float = CONFIDENCE,
) -> Valuation:
    """``valuation`` with its net effects (and so its decisions) from the interaction model.

    Content values and context costs are the joint model's where the run sampled ρ_pad half-coalitions,
    the chains' otherwise (the ``compress`` decision reads them); the sections' and folders' sums, and
    each required unit's sum with its dependents (:class:`~._result.Requirement`), are the model's under
    the sampled design (the chains' few windows could not carry them); the decision, its reason and the
    scores to decide are recomputed from the model's values.
    """
    slot = {run.structure.players[player]: k for k, player in enumerate(run.execution)}
    groups = [[slot[unit] for unit in group.units if unit in slot] for group in valuation.groups]
    required = [requirement for requirement in valuation.requirements if requirement.unit in slot]
    groups += [[slot[unit] for unit in requirement.removed if unit in slot] for requirement in required]
    fitted = interaction_values(run, confidence, groups)
    if fitted is None:
        return valuation
    units = []
    for unit in valuation.units:
        k = slot[unit.unit]
        net = fitted.values[k]
        content = fitted.content[k] if fitted.content else unit.content_value
        cost = fitted.cost[k] if fitted.cost else unit.context_cost
        decision, reason = decide(net, content, cost, rules, confidence)
        more, span = forecast(net, rules.margin, run.meter.evaluated) if decision == "unresolved" else (None, None)
        units.append(
            replace(
                unit,
                net_effect=net,
                content_value=content,
                context_cost=cost,
                decision=decision,
                reason=reason,
                scores_to_decide=more,
                scores_range=span,
            )
        )
    names = {k: name for name, k in slot.items()}
    sections, requirements = valuation.groups, valuation.requirements
    if fitted.groups:  # the chains' sums rest on their few windows under the sampled design
        count = len(sections)
        sections = tuple(
            replace(group, net_effect=net) for group, net in zip(sections, fitted.groups[:count], strict=True)
        )
        requirements = tuple(
            replace(requirement, net_effect=net)
            for requirement, net in zip(required, fitted.groups[count:], strict=True)
        )
    return replace(
        valuation,
        groups=sections,
        requirements=requirements,
        units=tuple(respect_dependencies(units, run.structure, requirements, rules.margin)),
        estimator="interaction",
        fallback=tuple(names[k] for k in fitted.fallback),
        interactions=tuple(PairEffect((names[i], names[j]), effect) for (i, j), effect in fitted.pairs),
    )
