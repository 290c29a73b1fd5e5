"""How a skill's lift changed between two trials over the same cases: now minus then, with its interval.

A scheduled rerun asks "is this skill still as useful as at its release?". Both trials ran the
same eval cases, at different times (possibly on an updated model), each with its own runs, so
they are **independent samples over the same cases**. The change is estimated per case:
``c_i = d_i(now) − d_i(then)``, each ``d_i`` the case's mean with-score minus mean control-score
in that trial, over the cases both trials could score; the estimate is the mean of the ``c_i``.

**What the interval assumes.** The cases are the unit, as in :mod:`aces_ci.stats._lift`: the
``c_i`` are independent draws from the population of tasks the evals stand for, so the interval
is a Student-t over the ``c_i`` with n − 1 degrees of freedom, and the estimand is the mean
change of the lift over that population. Pairing on the case removes what the two trials share
(how hard each case is, how much the skill helps on it), which is why it is narrower than
adding the two lifts' variances, and it is valid because the runs of the two trials share no
randomness (different seeds, different times). If both trials reused each other's rollouts —
the same seed and a shared cache — the runs would be identical, the change exactly zero and
the interval meaningless; :class:`LiftChange` says when the seeds are equal.

With one shared case, or when every case changed by exactly the same amount, the spread is
unobserved and the distribution-free bound of :mod:`aces_ci.stats._lift` is used on the
range of a change of lifts, [−2, 2].
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats

ChangeLabel = Literal["regression", "improvement", "no detectable change", "not comparable"]

CHANGE_RANGE = 2.0
"""A lift lies in [−1, 1], so the change of a lift lies in [−2, 2]."""
METHOD_T = "Student-t over per-case changes of the lift (cases paired across the two trials)"
METHOD_BOUND = "distribution-free bound (no spread across cases was observed)"


@dataclass(frozen=True)
class CaseLift:
    """One case's mean with-score minus mean control-score in one trial (None: not scorable in both arms)."""

    case: str
    lift: float | None


@dataclass(frozen=True)
class LiftChange:
    """The change of a skill's lift between two trials over the same cases."""

    delta: float | None
    """Mean per-case change, now minus then; None when no case was scored in both trials."""
    ci: tuple[float, float] | None
    n_cases: int
    """Cases scored in both trials (the ones the change is estimated on)."""
    only_now: int
    only_then: int
    alpha: float
    method: str
    label: ChangeLabel
    assumption: str

    @property
    def regression(self) -> bool:
        """True only when the whole interval lies below zero."""
        return self.label == "regression"


ASSUMPTION = (
    "cases paired across the two trials, each trial an independent sample of runs over the same cases; "
    "the interval treats the cases as draws from the population of tasks the evals stand for"
)


def _interval(changes: np.ndarray, alpha: float) -> tuple[tuple[float, float], str]:
    n = int(changes.size)
    mean = float(np.mean(changes))
    sd = float(np.std(changes, ddof=1)) if n >= 2 else 0.0
    if n >= 2 and sd > 1e-12 * max(1.0, abs(mean)):
        half = float(stats.t.ppf(1.0 - alpha / 2.0, n - 1)) * sd / math.sqrt(n)
        low, high = mean - half, mean + half
        method = METHOD_T
    else:
        share = 1.0 - (alpha / 2.0) ** (1.0 / n)
        low, high = mean - share * (mean + CHANGE_RANGE), mean + share * (CHANGE_RANGE - mean)
        method = METHOD_BOUND
    return (max(low, -CHANGE_RANGE), min(high, CHANGE_RANGE)), method


def lift_change(now: Sequence[CaseLift], then: Sequence[CaseLift], alpha: float = 0.05) -> LiftChange:
    """Now minus then over the cases both trials scored; ``regression`` only when the interval lies below 0."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha}")
    now_by = {c.case: c.lift for c in now if c.lift is not None and math.isfinite(c.lift)}
    then_by = {c.case: c.lift for c in then if c.lift is not None and math.isfinite(c.lift)}
    shared = sorted(set(now_by) & set(then_by))
    only_now, only_then = len(set(now_by) - set(then_by)), len(set(then_by) - set(now_by))
    if not shared:
        return LiftChange(
            None, None, 0, only_now, only_then, alpha, "no case scored in both trials", "not comparable", ASSUMPTION
        )
    changes = np.array([now_by[c] - then_by[c] for c in shared], dtype=np.float64)
    ci, method = _interval(changes, alpha)
    label: ChangeLabel
    if ci[1] < 0.0:
        label = "regression"
    elif ci[0] > 0.0:
        label = "improvement"
    else:
        label = "no detectable change"
    return LiftChange(float(np.mean(changes)), ci, len(shared), only_now, only_then, alpha, method, label, ASSUMPTION)


def case_lifts(
    case_ids: Sequence[str], with_runs: Sequence[Sequence[float | None]], control_runs: Sequence[Sequence[float | None]]
) -> list[CaseLift]:
    """Per case, mean scored with-run minus mean scored control-run (None when an arm has no score)."""
    out = []
    for case, w, c in zip(case_ids, with_runs, control_runs, strict=True):
        ws = [x for x in w if x is not None and math.isfinite(x)]
        cs = [x for x in c if x is not None and math.isfinite(x)]
        out.append(CaseLift(case, sum(ws) / len(ws) - sum(cs) / len(cs) if ws and cs else None))
    return out
