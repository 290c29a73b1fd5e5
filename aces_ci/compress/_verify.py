"""Verification: a candidate against the original on the held-out cases, as a paired version contrast.

Both versions are scored on the same held-out cases with the same seeds by the same scorer (the
valuation's: one agent, one metric, one judge), run r of a case in both sharing its seed, so the
contrast is paired run by run (shared-seed coupling). Δ = candidate − original per case, and its
interval is the trial's case-clustered interval (:func:`aces_ci.stats.paired_lift`): n is the number of
held-out cases, not the number of rollouts.

The verdict reads the interval against the tolerance t (default −0.05, aces.yml ``compress.tolerance``):

* ``accepted``: the interval's lower bound lies above t — the candidate loses at most |t|, at 95%;
* ``rejected``: the candidate surely loses (the interval lies below 0) or its Δ is below t, or its
  static scan has a finding the original's has not;
* ``underpowered``: neither — the interval reaches below t while Δ does not; more held-out cases or
  ``--runs`` would decide it (the smallest detectable effect is reported). Never accepted;
* ``unverified``: no held-out case was scored for both versions (a budget stop before it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..stats import paired_lift, paired_scores

Verdict = Literal["accepted", "rejected", "underpowered", "unverified"]
DEFAULT_TOLERANCE = -0.05
"""The loss a compression may risk: the interval's lower bound must lie above it (the gate's pass band, negated)."""


@dataclass(frozen=True)
class Contrast:
    """The candidate − original contrast on the held-out cases."""

    delta: float | None
    ci: tuple[float, float] | None
    n_cases: int
    runs: int
    """Runs per case and version (each with its own seed)."""
    original_mean: float | None
    candidate_mean: float | None
    mde: float | None
    """The smallest |Δ| this many cases and runs would detect with 80% power (None: spread unobserved)."""
    method: str


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    reason: str


def contrast(
    case_ids: Sequence[str],
    original: Sequence[Sequence[float | None]],
    candidate: Sequence[Sequence[float | None]],
) -> Contrast:
    """Δ with its interval from per-case run scores (run r of both versions shares its seed; None: not scored)."""
    scores = paired_scores(candidate, original, "shared-seed", case_ids)
    if not scores.usable().any():
        runs = scores.scheduled_runs if scores.n_cases_total else 0
        return Contrast(None, None, 0, runs, None, None, None, "no held-out case scored for both versions")
    lift = paired_lift(scores)
    return Contrast(
        delta=lift.delta,
        ci=lift.ci,
        n_cases=lift.n_cases,
        runs=lift.runs_per_arm,
        original_mean=lift.control_mean,
        candidate_mean=lift.with_mean,
        mde=lift.mde,
        method=lift.method,
    )


def judge(found: Contrast | None, tolerance: float, new_findings: Sequence[str]) -> Judgement:
    """The verdict of one candidate (see the module docstring); ``found`` is None when it was not scored."""
    if new_findings:
        return Judgement("rejected", f"its static scan has {len(new_findings)} new finding(s): {new_findings[0]}")
    if found is None or found.delta is None or found.ci is None:
        return Judgement("unverified", "no held-out case was scored for both versions")
    lo, hi = found.ci
    if lo > tolerance:
        return Judgement("accepted", f"the interval's lower bound {lo:+.3f} lies above the tolerance {tolerance:+.3f}")
    if hi < 0 or found.delta < tolerance:
        return Judgement("rejected", f"it loses score on held-out cases: Δ {found.delta:+.3f} [{lo:+.3f}, {hi:+.3f}]")
    detect = f"; this design detects |Δ| ≥ {found.mde:.3f}" if found.mde is not None else ""
    return Judgement(
        "underpowered",
        f"the interval [{lo:+.3f}, {hi:+.3f}] reaches below the tolerance {tolerance:+.3f} over {found.n_cases} "
        f"held-out cases × {found.runs} run(s){detect}: more cases or --runs would decide it",
    )
