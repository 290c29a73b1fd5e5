"""Repository-level lift: the mean over skills, with a two-stage (skills, then cases) bootstrap.

A repository summary ("mean lift across our 12 skills") has two sources of uncertainty: which
skills happen to be in the repository, and which cases each skill's evals happen to hold. The
ACES paper's 947 paired cases are not 947 independent skills; a normal interval over all cases
would treat them so. The bootstrap here resamples skills with replacement, then cases within
each drawn skill, and averages the skill means (each skill weighs the same, as in "the typical
skill"). Resampling both stages slightly over-states the variance (the case stage is counted
once more than needed), so the interval errs wide, which is the safe side for a summary.
Percentile interval; the seed is a parameter and recorded in the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

DEFAULT_RESAMPLES = 4000


@dataclass(frozen=True)
class RepoLift:
    """Mean lift across skills (each skill's mean over its cases, then the mean of those)."""

    delta: float | None
    ci: tuple[float, float] | None
    alpha: float
    n_skills: int
    n_cases: int
    resamples: int
    seed: int
    method: str
    estimand_text: str


def skill_level_bootstrap(
    per_skill_differences: Sequence[npt.ArrayLike],
    alpha: float = 0.05,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> RepoLift:
    """Two-stage bootstrap over skills then cases of per-case lifts (see :func:`case_differences`).

    Skills with no usable case are left out. With one skill the interval is a case bootstrap of
    that skill and says so in ``method``.
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha}")
    if resamples < 100:
        raise ValueError(f"at least 100 resamples are needed for a percentile interval, got {resamples}")
    skills = [np.asarray(d, dtype=np.float64) for d in per_skill_differences]
    skills = [d[~np.isnan(d)] for d in skills]
    skills = [d for d in skills if d.size]
    k = len(skills)
    n_cases = sum(int(d.size) for d in skills)
    text = "The average lift of a typical skill like these, each skill counting once, over tasks like their eval cases"
    if k == 0:
        return RepoLift(None, None, alpha, 0, 0, resamples, seed, "no skill had a scorable case", text)
    point = float(np.mean([d.mean() for d in skills]))
    rng = np.random.default_rng(seed)
    sizes = np.array([d.size for d in skills])
    flat = np.concatenate(skills)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    stats = np.empty(resamples)
    for b in range(resamples):
        drawn = rng.integers(0, k, size=k)
        means = np.empty(k)
        for j, s in enumerate(drawn):
            idx = offsets[s] + rng.integers(0, sizes[s], size=sizes[s])
            means[j] = flat[idx].mean()
        stats[b] = means.mean()
    lo, hi = np.quantile(stats, [alpha / 2.0, 1.0 - alpha / 2.0])
    method = (
        "percentile bootstrap resampling skills, then cases within each skill"
        if k > 1
        else "percentile bootstrap of one skill's cases (one skill: nothing to resample across skills)"
    )
    return RepoLift(point, (float(lo), float(hi)), alpha, k, n_cases, resamples, seed, method, text)
