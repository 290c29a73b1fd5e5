"""Power and planning: how small a lift a design can see, and what design a target lift needs.

The lift interval is a Student-t interval over per-case mean differences ``d_i`` (see
``_lift.py``), so its power is the power of a one-sample t-test on ``n`` values whose variance is

    Var(d_i) = σ²_between + σ²_with / R_with + σ²_control / R_control − 2·σ_pair / R_pairs

— the between-case variance of the true per-case lift (runs cannot shrink it: only more cases
can) plus the run-to-run noise of the two per-case means (more runs shrink it). Under
shared-seed coupling the covariance of seed-sharing pairs σ_pair enters; under independent
coupling it is 0. Power is computed with the noncentral t distribution, which is exact for
normal ``d_i`` and, as ``benchmarks/stats_validity.py`` measures, within a few points for the
bounded, lumpy ``d_i`` of real trials.

"Detecting" a lift means the (1 − α) interval lies entirely on the lift's side of a margin
(0 for "any lift", the pass band for "a pass verdict"); the power is the chance of that.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from ._data import PairedScores, case_differences

POWER = 0.8
"""The conventional target power: a real effect of the stated size is detected four times in five."""

MAX_PLANNED_CASES = 100_000


@dataclass(frozen=True)
class VarianceComponents:
    """The two kinds of noise in a paired trial, in squared score units.

    ``between_case`` is the variance of the true per-case lift across cases; ``within_with`` and
    ``within_control`` are the run-to-run variance of one run's score around its case's mean in
    each condition; ``within_pair_cov`` is the covariance of a seed-sharing pair (0 under
    independent coupling). ``identified`` is False when the data had at most one run per case in
    some condition, so run noise could not be told apart from case heterogeneity; then the whole
    observed variance is put in ``between_case`` — the cautious choice, under which extra runs
    are predicted to help nothing and only extra cases are recommended.
    """

    between_case: float
    within_with: float
    within_control: float
    within_pair_cov: float
    identified: bool
    source: str
    between_case_ci: tuple[float, float] | None = None
    """95% interval of ``between_case`` (from the χ² law of the observed variance of d_i); None if not estimated."""

    def case_difference_variance(self, runs_with: float, runs_control: float, pairs: float = 0.0) -> float:
        """Var(d_i) of a design with these runs per arm (``pairs`` seed-sharing pairs per case)."""
        v = self.between_case + self.within_with / runs_with + self.within_control / runs_control
        if pairs > 0:
            v -= 2.0 * self.within_pair_cov * pairs / (runs_with * runs_control)
        return max(v, 0.0)

    def design_sd(self, runs: int) -> float:
        """SD of d_i with ``runs`` runs in each arm (seed-sharing pairs when the covariance is set)."""
        return math.sqrt(self.case_difference_variance(runs, runs, runs if self.within_pair_cov else 0.0))


def variance_components(scores: PairedScores) -> VarianceComponents:
    """Estimate the variance components of a pilot trial (method of moments, truncated at 0).

    Run noise is the pooled within-case variance of each condition (cases with ≥ 2 scorable runs);
    the pair covariance is pooled over complete seed-sharing pairs; the between-case part is the
    observed variance of ``d_i`` minus the average run noise it contains, truncated at 0 as in
    one-way ANOVA.
    """
    keep = scores.usable()
    w, c = scores.with_scores[keep], scores.control_scores[keep]
    d = case_differences(scores)
    n = d.size
    total = float(np.var(d, ddof=1)) if n >= 2 else 0.0
    vw, dfw = _pooled_within(w)
    vc, dfc = _pooled_within(c)
    if dfw == 0 or dfc == 0:
        return VarianceComponents(total, 0.0, 0.0, 0.0, False, "pilot with one run per case: run noise not separable")
    cov = _pooled_pair_cov(w, c) if scores.coupling == "shared-seed" else 0.0
    kw = np.sum(~np.isnan(w), axis=1)
    kc = np.sum(~np.isnan(c), axis=1)
    pairs = np.sum(~np.isnan(w) & ~np.isnan(c), axis=1) if scores.coupling == "shared-seed" else np.zeros(n)
    within_part = float(np.mean(vw / kw + vc / kc - 2.0 * cov * pairs / (kw * kc))) if n else 0.0
    between = max(total - within_part, 0.0)
    return VarianceComponents(between, vw, vc, cov, True, "pilot trial")


def pooled_components(scores: PairedScores, alpha: float = 0.05) -> VarianceComponents:
    """The components ``--plan`` sizes a design with: the case-to-case part pooled into run noise unless it shows.

    The truncated moment of :func:`variance_components` is positive about half the time when the
    true case-to-case spread is 0, and its size swings from pilot to pilot (0.07 to 0.34 in SD over
    12 pilots of one skill); a design read off it swung from 23×5 to 117×1. Here the case-to-case
    variance is kept only when an F-test of the observed variance of d_i against the run noise it
    contains rejects at ``alpha`` (Bancroft's pooling rule), else it is 0 — the run noise, estimated
    with many more degrees of freedom, then sizes the design. Its interval is reported either way.
    """
    comp = variance_components(scores)
    keep = scores.usable()
    d = case_differences(scores)
    n = int(d.size)
    if not comp.identified or n < 2:
        return comp
    w, c = scores.with_scores[keep], scores.control_scores[keep]
    kw = np.sum(~np.isnan(w), axis=1)
    kc = np.sum(~np.isnan(c), axis=1)
    pairs = np.sum(~np.isnan(w) & ~np.isnan(c), axis=1) if scores.coupling == "shared-seed" else np.zeros(n)
    within_part = float(
        np.mean(comp.within_with / kw + comp.within_control / kc - 2.0 * comp.within_pair_cov * pairs / (kw * kc))
    )
    total = float(np.var(d, ddof=1))
    low = total * (n - 1) / float(stats.chi2.ppf(1.0 - alpha / 2.0, n - 1)) - within_part
    high = total * (n - 1) / float(stats.chi2.ppf(alpha / 2.0, n - 1)) - within_part
    ci = (max(low, 0.0), max(high, 0.0))
    df_within = int(np.sum(kw - 1) + np.sum(kc - 1))
    shows = within_part <= 0.0 or float(stats.f.sf(total / within_part, n - 1, max(df_within, 1))) < alpha
    if shows:
        return dataclasses.replace(comp, between_case_ci=ci)
    return dataclasses.replace(
        comp,
        between_case=0.0,
        between_case_ci=ci,
        source=f"{comp.source}; its case-to-case spread is not distinguishable from run noise (F-test at "
        f"{alpha:g}), so it is pooled into run noise",
    )


def components_from_aa(aa: PairedScores, between_case_lift_sd: float = 0.0) -> VarianceComponents:
    """Run noise from an A/A control (the same condition twice), plus an assumed lift heterogeneity.

    In an A/A trial every case's true lift is 0, so all the variance of ``d_i`` is run noise; with
    one run per case it equals σ²_with + σ²_control, split evenly. How much a real skill's lift
    varies across cases is not in A/A data: ``between_case_lift_sd`` states it (0 assumes a skill
    helps every case equally, the optimistic end).
    """
    if between_case_lift_sd < 0:
        raise ValueError(f"between_case_lift_sd must be ≥ 0, got {between_case_lift_sd}")
    keep = aa.usable()
    vw, dfw = _pooled_within(aa.with_scores[keep])
    vc, dfc = _pooled_within(aa.control_scores[keep])
    if dfw and dfc:
        noise_w, noise_c = vw, vc
    else:
        d = case_differences(aa)
        if d.size < 2:
            raise ValueError("an A/A control needs at least 2 scorable cases to estimate run noise")
        kw = np.sum(~np.isnan(aa.with_scores[keep]), axis=1)
        kc = np.sum(~np.isnan(aa.control_scores[keep]), axis=1)
        noise = float(np.var(d, ddof=1)) / float(np.mean(1.0 / kw + 1.0 / kc))
        noise_w = noise_c = noise
    cov = _pooled_pair_cov(aa.with_scores[keep], aa.control_scores[keep]) if aa.coupling == "shared-seed" else 0.0
    return VarianceComponents(between_case_lift_sd**2, noise_w, noise_c, cov, True, "A/A control")


def power_to_detect(lift: float, n_cases: int, sd: float, alpha: float = 0.05, margin: float = 0.0) -> float:
    """Chance that the (1 − α) interval of ``n_cases`` cases lies entirely beyond ``margin``.

    ``sd`` is the SD of d_i under the design. The interval clears the margin on the side of
    ``lift``; at ``lift == margin`` the figure is α/2, the chance of a false claim.
    """
    if n_cases < 2:
        return 0.0
    df = n_cases - 1
    crit = float(stats.t.ppf(1.0 - alpha / 2.0, df))
    if sd <= 0.0:
        return 1.0 if lift != margin else 0.0
    nc = abs(lift - margin) * math.sqrt(n_cases) / sd
    return float(stats.nct.sf(crit, df, nc))


def minimum_detectable_effect(n_cases: int, sd: float, alpha: float = 0.05, power: float = POWER) -> float | None:
    """The smallest true lift this design detects (interval excludes 0) with the given power.

    None when it cannot be computed: fewer than 2 cases, or no observed spread (then the t-based
    power is meaningless; the report says the spread was not observed).
    """
    if n_cases < 2 or sd <= 0.0 or not math.isfinite(sd):
        return None
    unit = _unit_mde(n_cases, alpha, power)
    return None if unit is None else sd * unit


@functools.lru_cache(maxsize=4096)
def _unit_mde(n_cases: int, alpha: float, power: float) -> float | None:
    """MDE at sd = 1: power depends on lift / sd only, so the MDE scales with sd (and is cached)."""
    sd = 1.0

    def gap(delta: float) -> float:
        return power_to_detect(delta, n_cases, sd, alpha) - power

    hi = sd
    while gap(hi) < 0:
        hi *= 2.0
        if hi > 1e6:
            return None
    return float(optimize.brentq(gap, 0.0, hi, xtol=1e-10))


def cases_needed(lift: float, sd: float, alpha: float = 0.05, power: float = POWER, margin: float = 0.0) -> int | None:
    """Fewest cases (≥ 2) at which the design detects ``lift`` beyond ``margin`` with ``power``."""
    if lift == margin:
        return None
    if sd <= 0.0:
        return 2
    if power_to_detect(lift, MAX_PLANNED_CASES, sd, alpha, margin) < power:
        return None
    lo, hi = 2, 2
    while power_to_detect(lift, hi, sd, alpha, margin) < power:
        lo, hi = hi, min(hi * 2, MAX_PLANNED_CASES)
    while lo < hi:
        mid = (lo + hi) // 2
        if power_to_detect(lift, mid, sd, alpha, margin) >= power:
            hi = mid
        else:
            lo = mid + 1
    return lo


@dataclass(frozen=True)
class DesignPoint:
    """One cell of the planning grid: ``cases`` cases × ``runs`` runs per condition."""

    cases: int
    runs: int
    rollouts: int
    power: float
    within_available_cases: bool


@dataclass(frozen=True)
class Plan:
    """What it takes to detect ``target_lift`` beyond ``margin`` at α with ``power``.

    ``grid`` has, for each runs-per-condition from 1 to ``max_runs``, the fewest cases that reach
    the power (runs with no finite answer are left out); ``cheapest`` is the grid point with the
    fewest rollouts among those within ``available_cases`` (None when no design within the
    available cases reaches the power: then more cases must be written). ``rollouts`` counts both
    conditions (``arms`` of them); the caller multiplies by tokens or dollars per rollout.
    """

    target_lift: float
    margin: float
    alpha: float
    power: float
    arms: int
    available_cases: int | None
    components: VarianceComponents
    grid: tuple[DesignPoint, ...]
    cheapest: DesignPoint | None
    assumptions: tuple[str, ...]


def plan(
    components: VarianceComponents,
    target_lift: float,
    *,
    alpha: float = 0.05,
    power: float = POWER,
    margin: float = 0.0,
    available_cases: int | None = None,
    max_runs: int = 10,
    arms: int = 2,
) -> Plan:
    """The cases × runs grid and the cheapest design that detects ``target_lift`` with ``power``.

    Planning happens before anyone pays for the rollouts; the variance components come from a
    pilot (:func:`variance_components`) or an A/A control (:func:`components_from_aa`).
    """
    if not 0.0 < alpha < 1.0 or not 0.0 < power < 1.0:
        raise ValueError("alpha and power must lie strictly between 0 and 1")
    if target_lift == margin:
        raise ValueError("the target lift equals the margin: no design can tell them apart")
    if max_runs < 1 or arms < 1:
        raise ValueError("max_runs and arms must be at least 1")
    grid: list[DesignPoint] = []
    for runs in range(1, max_runs + 1):
        sd = components.design_sd(runs)
        n = cases_needed(target_lift, sd, alpha, power, margin)
        if n is None:
            continue
        fits = available_cases is None or n <= available_cases
        grid.append(DesignPoint(n, runs, n * runs * arms, power_to_detect(target_lift, n, sd, alpha, margin), fits))
    feasible = [p for p in grid if p.within_available_cases]
    cheapest = min(feasible, key=lambda p: (p.rollouts, p.runs)) if feasible else None
    assumptions = [f"variance components from the {components.source}"]
    if not components.identified:
        assumptions.append(
            "with one run per case the pilot cannot separate run noise from case-to-case differences; all of it "
            "is treated as case-to-case, so extra runs are predicted not to help (run a pilot with ≥ 2 runs to know)"
        )
    assumptions.append(
        f"power of a Student-t interval over per-case mean differences at α = {alpha:g}, two-sided, "
        f"detecting a lift beyond {margin:+g}"
    )
    return Plan(
        target_lift, margin, alpha, power, arms, available_cases, components, tuple(grid), cheapest, tuple(assumptions)
    )


def _pooled_within(m: np.ndarray) -> tuple[float, int]:
    counts = np.sum(~np.isnan(m), axis=1)
    rows = counts >= 2
    if not rows.any():
        return 0.0, 0
    sub = m[rows]
    dev = sub - np.nanmean(sub, axis=1, keepdims=True)
    ss = float(np.nansum(dev**2))
    df = int(np.sum(counts[rows] - 1))
    return ss / df, df


def _pooled_pair_cov(w: np.ndarray, c: np.ndarray) -> float:
    both = ~np.isnan(w) & ~np.isnan(c)
    counts = both.sum(axis=1)
    rows = counts >= 2
    if not rows.any():
        return 0.0
    ws = np.where(both[rows], w[rows], np.nan)
    cs = np.where(both[rows], c[rows], np.nan)
    dw = ws - np.nanmean(ws, axis=1, keepdims=True)
    dc = cs - np.nanmean(cs, axis=1, keepdims=True)
    return float(np.nansum(dw * dc)) / float(np.sum(counts[rows] - 1))
