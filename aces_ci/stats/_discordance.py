"""Paired discordance (what flipped under this protocol) and degradation shares (what got worse).

**Discordance** compares, case by case, the mean with-score against the mean control-score:
a *gain* when the with-condition's mean is higher by more than ``tolerance`` *and* by more than
the runs' spread allows (:func:`beyond_run_noise`), a *regression* when lower by as much, a *tie*
otherwise — identical scores in both arms are always a tie. Without the spread test an A/A trial
of a skill at p = 0.5 "regresses" on a third of its cases. These counts describe this protocol's
runs (its coupling and number of runs); they are *not* the share of tasks the skill harms. Two
conditions with identical expected scores still show regressions: with p = 0.5 in both and 3
independent runs, 22 of 64 outcomes (34%) are regressions (review §3.7). The field
``label`` carries that warning so no report prints the count as harm.

**Degradation shares** answer the harm question honestly. For each case, a simultaneous
interval [L_i, U_i] for μ_with(x_i) − μ_control(x_i) is built (Šidák over cases, so all n
intervals cover at once with probability ≥ 1 − α). Then

- *confidently degraded*: the share of cases with U_i < −ε (surely worse by more than ε);
- *possibly degraded*: the share with L_i < −ε (cannot be ruled out).

On the event that all intervals cover, the true share of these cases whose expected score drops
by more than ε lies between the two. Each condition's mean gets its own interval at level
α_case/2 and the difference interval is [L_with − U_control, U_with − L_control], which is
valid for any coupling. The per-condition interval is Clopper–Pearson when every score is 0 or 1
(exact for Bernoulli runs) and Hoeffding's otherwise (valid for any score in [0, 1]). With a
handful of runs the intervals are wide, so "possibly degraded" is large and "confidently
degraded" small: that is the honest answer, and the naive plug-in share (the regressions share)
is never reported as harm.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import stats

from ._data import Coupling, PairedScores, case_means

DISCORDANCE_LABEL = (
    "paired discordance under this protocol (how often the with-condition's mean score was above or below the "
    "control's), not the share of tasks the skill harms"
)


@dataclass(frozen=True)
class Discordance:
    """Gains, regressions and ties over usable cases, compared on per-case mean scores."""

    gains: int
    regressions: int
    ties: int
    n_cases: int
    tolerance: float
    coupling: Coupling
    runs_per_arm: int
    comparison: str
    label: str = DISCORDANCE_LABEL


NOISE_Z = 1.96
"""A case's difference counts when it exceeds this many standard errors of run noise (two-sided 95%)."""


@dataclass(frozen=True)
class RunNoise:
    """Which cases differ between the arms by more than their runs' spread allows.

    ``run_sd`` is the within-case run standard deviation pooled over every usable case and both
    arms (None when no case has two scorable runs in an arm: the spread is unknown and any
    difference counts). ``beyond[i]`` is True for usable case i (in :func:`case_means` order) when
    ``|d_i| > z · run_sd · √(1/n_with + 1/n_control)``.
    """

    run_sd: float | None
    z: float
    differences: npt.NDArray[np.float64]
    beyond: npt.NDArray[np.bool_]


def beyond_run_noise(scores: PairedScores, z: float = NOISE_Z, tolerance: float = 0.0) -> RunNoise:
    """Per usable case: is the arms' mean difference larger than run noise (and ``tolerance``) explains?

    The run spread is pooled over cases because three runs of one case cannot estimate their own
    spread (0/3 against 1/3 has a per-case spread of zero in one arm). A deterministic agent has
    ``run_sd`` 0, so every nonzero difference counts; equal means never do.
    """
    keep = scores.usable()
    w_m, c_m = scores.with_scores[keep], scores.control_scores[keep]
    w, c = case_means(scores)
    d = np.asarray(w - c, dtype=np.float64)
    ss, dof = 0.0, 0
    for matrix in (w_m, c_m):
        for row in matrix:
            values = row[~np.isnan(row)]
            if values.size >= 2:
                ss += float(np.sum((values - values.mean()) ** 2))
                dof += int(values.size) - 1
    run_sd = math.sqrt(ss / dof) if dof > 0 else None
    n_w = np.sum(~np.isnan(w_m), axis=1) if w_m.size else np.empty(0)
    n_c = np.sum(~np.isnan(c_m), axis=1) if c_m.size else np.empty(0)
    se = (run_sd or 0.0) * np.sqrt(1.0 / np.maximum(n_w, 1) + 1.0 / np.maximum(n_c, 1))
    # Means of a few [0, 1] scores are not exact in binary floating point; a tie must not become a flip.
    beyond = (np.abs(d) > z * se + tolerance + 1e-12) if d.size else np.zeros(0, dtype=bool)
    return RunNoise(run_sd, z, d, np.asarray(beyond, dtype=np.bool_))


def paired_discordance(scores: PairedScores, tolerance: float = 0.0) -> Discordance:
    """Count gains / regressions / ties: a case flips only when its difference exceeds run noise and ``tolerance``."""
    if tolerance < 0:
        raise ValueError(f"tolerance must be ≥ 0, got {tolerance}")
    noise = beyond_run_noise(scores, tolerance=tolerance)
    d = noise.differences
    gains = int(np.sum((d > 0) & noise.beyond))
    regressions = int(np.sum((d < 0) & noise.beyond))
    spread = (
        f"more than {noise.z:g} standard errors of the runs' spread (run sd {noise.run_sd:.3f}, pooled over cases)"
        if noise.run_sd is not None
        else "at all (one run per case: the runs' spread is unknown)"
    )
    comparison = (
        f"per case, the mean of its with-condition runs against the mean of its control runs; a gain or regression "
        f"only when they differ by {spread}"
        + (f" and by more than ±{tolerance:g}" if tolerance else "")
        + "; otherwise a tie"
    )
    return Discordance(
        gains,
        regressions,
        int(d.size) - gains - regressions,
        int(d.size),
        tolerance,
        scores.coupling,
        scores.scheduled_runs,
        comparison,
    )


@dataclass(frozen=True)
class CaseInterval:
    """One case's simultaneous interval for its expected score difference."""

    case_id: str
    lower: float
    upper: float
    runs_with: int
    runs_control: int


@dataclass(frozen=True)
class DegradationShares:
    """Confidently and possibly degraded shares of the evaluated cases (review §3.7).

    ``confidently_degraded`` ≤ true share ≤ ``possibly_degraded`` for these cases, simultaneously
    with probability ≥ 1 − α. ``n_cases`` counts cases with ≥ 2 scorable runs in both conditions;
    ``n_cases_excluded`` the others. Shares are None when no case qualifies.
    """

    margin: float
    alpha: float
    n_cases: int
    n_cases_excluded: int
    confidently_degraded: float | None
    possibly_degraded: float | None
    confidently_count: int
    possibly_count: int
    per_case: tuple[CaseInterval, ...]
    method: str
    meaning: str


MIN_RUNS_FOR_DEGRADATION = 2


def degradation_shares(scores: PairedScores, margin: float = 0.0, alpha: float = 0.05) -> DegradationShares:
    """Simultaneous per-case intervals and the two degradation shares they bound."""
    if margin < 0:
        raise ValueError(f"margin must be ≥ 0 (a drop of more than margin counts), got {margin}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha}")
    kw, kc = scores.with_counts(), scores.control_counts()
    keep = (kw >= MIN_RUNS_FOR_DEGRADATION) & (kc >= MIN_RUNS_FOR_DEGRADATION)
    n = int(keep.sum())
    method = (
        "Šidák-simultaneous per-case intervals; each condition's mean by Clopper–Pearson (0/1 scores) or Hoeffding "
        "(other scores), combined as [L_with − U_control, U_with − L_control]"
    )
    meaning = (
        f"confidently degraded: cases whose expected score surely drops by more than {margin:g}; possibly degraded: "
        f"cases where such a drop cannot be ruled out. The true share of these cases that got worse lies between the "
        f"two with {100 * (1 - alpha):g}% confidence."
    )
    if n == 0:
        return DegradationShares(margin, alpha, 0, scores.n_cases_total, None, None, 0, 0, (), method, meaning)
    alpha_case = 1.0 - (1.0 - alpha) ** (1.0 / n)
    intervals: list[CaseInterval] = []
    for i in np.flatnonzero(keep):
        w = scores.with_scores[i][~np.isnan(scores.with_scores[i])]
        c = scores.control_scores[i][~np.isnan(scores.control_scores[i])]
        lw, uw = mean_interval(w, alpha_case / 2.0)
        lc, uc = mean_interval(c, alpha_case / 2.0)
        intervals.append(CaseInterval(scores.case_ids[i], lw - uc, uw - lc, int(w.size), int(c.size)))
    confident = sum(1 for ci in intervals if ci.upper < -margin)
    possible = sum(1 for ci in intervals if ci.lower < -margin)
    return DegradationShares(
        margin,
        alpha,
        n,
        scores.n_cases_total - n,
        confident / n,
        possible / n,
        confident,
        possible,
        tuple(intervals),
        method,
        meaning,
    )


def mean_interval(x: np.ndarray, alpha: float) -> tuple[float, float]:
    """A (1 − α) interval for the mean of scores in [0, 1]: Clopper–Pearson if all are 0/1, else Hoeffding."""
    k = int(x.size)
    if k == 0:
        return 0.0, 1.0
    if np.all((x == 0.0) | (x == 1.0)):
        s = round(float(x.sum()))
        lo = 0.0 if s == 0 else float(stats.beta.ppf(alpha / 2.0, s, k - s + 1))
        hi = 1.0 if s == k else float(stats.beta.ppf(1.0 - alpha / 2.0, s + 1, k - s))
        return lo, hi
    half = math.sqrt(math.log(2.0 / alpha) / (2.0 * k))
    m = float(x.mean())
    return max(0.0, m - half), min(1.0, m + half)
