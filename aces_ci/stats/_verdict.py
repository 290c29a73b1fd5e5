"""The verdict of one skill on one metric, read off the lift interval — never off the point estimate.

Four outcomes, with the bands as parameters (defaults +0.05 and −0.10, as in SkillEvaluator):

- ``pass``: the whole interval is at or above the pass band (lower bound ≥ pass band);
- ``fail``: the whole interval is at or below the fail band (upper bound ≤ fail band);
- ``neutral``: the whole interval lies strictly between the bands;
- ``underpowered``: the interval straddles a band — this design could not tell. A report then
  says how many more cases (or runs) would settle it, computed from the observed spread.

Reading the interval rather than the point is what stops an A/A rerun from flipping verdicts: a
point estimate on one side of a band is a coin flip near the band, an interval is not. A
skill that wins 3 of 3 cases is ``underpowered`` (not ``fail``, the mistake a t-test gate makes
when it reads "cannot show a lift" as "no lift"), and the report says how many cases would do.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from ._lift import METHOD_T, PairedLift
from ._power import POWER, cases_needed, power_to_detect

VerdictLabel = Literal["pass", "fail", "neutral", "underpowered"]


@dataclass(frozen=True)
class Bands:
    """The gate's bands on the lift: pass at or above ``pass_band``, fail at or below ``fail_band``."""

    pass_band: float = 0.05
    fail_band: float = -0.10

    def __post_init__(self) -> None:
        if not -1.0 <= self.fail_band < self.pass_band <= 1.0:
            raise ValueError(
                f"bands need -1 ≤ fail_band < pass_band ≤ 1, got fail {self.fail_band} and pass {self.pass_band}"
            )


@dataclass(frozen=True)
class Settle:
    """How much more evidence would settle an underpowered verdict, assuming the lift is as observed.

    ``target`` is the verdict the observed lift points to; ``cases_needed`` is the number of cases
    (at the current runs per condition) and ``runs_needed`` the runs per condition (with the
    current cases) that would reach it with ``power``; either is None when no such design exists
    (``reason`` says why). ``*_rollouts`` count both conditions.
    """

    target: VerdictLabel
    assumed_lift: float
    power: float
    cases_needed: int | None
    extra_cases: int | None
    cases_rollouts: int | None
    runs_needed: int | None
    extra_runs: int | None
    runs_rollouts: int | None
    reason: str


@dataclass(frozen=True)
class Verdict:
    """The verdict label, its reason in words, and (when underpowered) what would settle it."""

    label: VerdictLabel
    reason: str
    ci: tuple[float, float] | None
    bands: Bands
    settle: Settle | None


def verdict_label(ci: tuple[float, float] | None, bands: Bands = Bands()) -> VerdictLabel:
    """The pure interval rule (no interval → underpowered)."""
    if ci is None:
        return "underpowered"
    lo, hi = ci
    if lo >= bands.pass_band:
        return "pass"
    if hi <= bands.fail_band:
        return "fail"
    if bands.fail_band < lo and hi < bands.pass_band:
        return "neutral"
    return "underpowered"


def verdict(lift: PairedLift, bands: Bands = Bands(), power: float = POWER, max_runs: int = 20) -> Verdict:
    """The verdict of one skill on one metric, with a way forward when the design could not tell."""
    label = verdict_label(lift.ci, bands)
    reason = _reason(label, lift, bands)
    settle = settle_plan(lift, bands, power, max_runs) if label == "underpowered" and lift.delta is not None else None
    return Verdict(label, reason, lift.ci, bands, settle)


def settle_plan(lift: PairedLift, bands: Bands, power: float = POWER, max_runs: int = 20) -> Settle:
    """Cases or runs that would settle the verdict, from the observed lift and spread."""
    if lift.delta is None:
        raise ValueError("there is no lift to settle: no case was scorable in both conditions")
    delta = lift.delta
    target: VerdictLabel
    if delta >= bands.pass_band:
        target = "pass"
    elif delta <= bands.fail_band:
        target = "fail"
    else:
        target = "neutral"
    runs = max(lift.runs_per_arm, 1)
    n = lift.n_cases
    none = Settle(target, delta, power, None, None, None, None, None, None, "")
    if delta in (bands.pass_band, bands.fail_band):
        return _with_reason(none, "the observed lift sits exactly on a band: no finite design settles it")
    if n < 2:
        return _with_reason(none, "with one case the spread across cases is unknown: add cases to estimate it")
    if lift.method != METHOD_T:
        return _zero_spread_settle(lift, delta, bands, target, power=power, runs=runs)
    margins = _margins(target, bands)
    sd_now = lift.variance.design_sd(runs)
    needed = [cases_needed(delta, sd_now, lift.alpha, power, m) for m in margins]
    cases = None if any(x is None for x in needed) else max(x for x in needed if x is not None)
    runs_needed = None
    if lift.variance.identified:
        for r in range(runs + 1, max_runs + 1):
            sd = lift.variance.design_sd(r)
            if all(power_to_detect(delta, n, sd, lift.alpha, m) >= power for m in margins):
                runs_needed = r
                break
    reasons = []
    if cases is None:
        reasons.append("no number of cases reaches the power at this lift")
    if runs_needed is None:
        reasons.append(
            f"with {n} cases, no number of runs up to {max_runs} per condition reaches the power: add cases"
            if lift.variance.identified
            else "with one run per case, run noise cannot be told from case differences: add cases"
        )
    return Settle(
        target,
        delta,
        power,
        cases,
        None if cases is None else max(cases - n, 0),
        None if cases is None else cases * runs * 2,
        runs_needed,
        None if runs_needed is None else runs_needed - runs,
        None if runs_needed is None else n * runs_needed * 2,
        "; ".join(reasons)
        or f"each with {power:.0%} power if the true lift is {delta:+.3f} and the spread stays as observed",
    )


def _zero_spread_settle(
    lift: PairedLift, v: float, bands: Bands, target: VerdictLabel, *, power: float, runs: int
) -> Settle:
    """Every case showed the same difference v: cases needed for the distribution-free bound to clear."""
    alpha = lift.alpha
    if target == "pass":
        q_max = (v - bands.pass_band) / (v + 1.0)
    elif target == "fail":
        q_max = (bands.fail_band - v) / (1.0 - v)
    else:
        q_max = min((v - bands.fail_band) / (v + 1.0), (bands.pass_band - v) / (1.0 - v))
    q_max *= 1.0 - 1e-12  # the neutral rule is strict; stay inside it
    if q_max <= 0.0:
        return Settle(target, v, power, None, None, None, None, None, None, "the observed lift sits on a band")
    cases = math.ceil(math.log(alpha / 2.0) / math.log(1.0 - q_max)) if q_max < 1.0 else 1
    cases = max(cases, lift.n_cases + 1)
    return Settle(
        target,
        v,
        power,
        cases,
        cases - lift.n_cases,
        cases * runs * 2,
        None,
        None,
        None,
        "every case showed the same difference; if more cases keep showing it, this many would settle the verdict "
        "(more runs cannot help: the spread across cases is what is unknown)",
    )


def _margins(target: VerdictLabel, bands: Bands) -> tuple[float, ...]:
    if target == "pass":
        return (bands.pass_band,)
    if target == "fail":
        return (bands.fail_band,)
    return (bands.fail_band, bands.pass_band)


def _with_reason(s: Settle, reason: str) -> Settle:
    return Settle(s.target, s.assumed_lift, s.power, None, None, None, None, None, None, reason)


def _reason(label: VerdictLabel, lift: PairedLift, bands: Bands) -> str:
    if lift.ci is None:
        return "no case was scorable in both conditions, so there is no evidence either way"
    lo, hi = lift.ci
    span = f"the {100 * (1 - lift.alpha):.3g}% interval [{lo:+.3f}, {hi:+.3f}] over {lift.n_cases} case(s)"
    if label == "pass":
        return f"{span} lies at or above the pass band {bands.pass_band:+.2f}"
    if label == "fail":
        return f"{span} lies at or below the fail band {bands.fail_band:+.2f}"
    if label == "neutral":
        return f"{span} lies between the fail band {bands.fail_band:+.2f} and the pass band {bands.pass_band:+.2f}"
    crossed = [f"{b:+.2f}" for b in (bands.fail_band, bands.pass_band) if lo < b < hi or b in (lo, hi)]
    return f"{span} straddles the band(s) {' and '.join(crossed) or 'edges'}: this design could not tell"
