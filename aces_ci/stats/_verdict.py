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

import dataclasses
import math
from dataclasses import dataclass

from ._bands import Bands, VerdictLabel, verdict_label
from ._lift import METHOD_T, PairedLift
from ._power import POWER, cases_needed, power_to_detect

NEAR_BAND = 0.01
"""A lift this close to a band is not worth settling: the cases it would take grow as 1/distance²."""


@dataclass(frozen=True)
class Settle:
    """How much more evidence would settle an underpowered verdict, assuming the lift is as observed.

    ``target`` is the verdict the observed lift points to; ``cases_needed`` is the number of cases
    (at the current runs per condition) and ``runs_needed`` the runs per condition (with the
    current cases) that would reach it with ``power``; either is None when no such design exists
    (``reason`` says why). ``*_rollouts`` count both conditions. ``available_cases`` is what the
    dataset holds (None: unknown); ``advice`` is the one sentence every report prints
    (:func:`settle_advice`), so the CLI, the comment and the gate never disagree.
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
    available_cases: int | None = None

    @property
    def advice(self) -> str:
        return settle_advice(self)


@dataclass(frozen=True)
class Verdict:
    """The verdict label, its reason in words, and (when underpowered) what would settle it."""

    label: VerdictLabel
    reason: str
    ci: tuple[float, float] | None
    bands: Bands
    settle: Settle | None


def verdict(
    lift: PairedLift,
    bands: Bands = Bands(),
    power: float = POWER,
    max_runs: int = 20,
    available_cases: int | None = None,
) -> Verdict:
    """The verdict of one skill on one metric, with a way forward when the design could not tell.

    The one place a lift is judged: the label, its reason and the settle plan come out together, and
    the trial stores them in its result; the gate, the CLI, the comment, JUnit and the step outputs
    read that result and never judge or size a design again, so they cannot give two numbers.
    """
    label = verdict_label(lift.ci, bands)
    reason = _reason(label, lift, bands)
    settle = (
        settle_plan(lift, bands, power, max_runs, available_cases)
        if label == "underpowered" and lift.delta is not None
        else None
    )
    return Verdict(label, reason, lift.ci, bands, settle)


def settle_plan(
    lift: PairedLift,
    bands: Bands,
    power: float = POWER,
    max_runs: int = 20,
    available_cases: int | None = None,
) -> Settle:
    """Cases or runs that would settle the verdict, from the observed lift and spread."""
    if lift.delta is None:
        raise ValueError("there is no lift to settle: no case was scorable in both conditions")
    runs = max(lift.runs_per_arm, 1)
    settle = settle_cases(
        lift.delta,
        n_cases=lift.n_cases,
        runs=runs,
        alpha=lift.alpha,
        bands=bands,
        case_sd=None if lift.se is None else lift.se * math.sqrt(lift.n_cases),
        zero_spread=lift.method != METHOD_T,
        power=power,
        available_cases=available_cases,
    )
    if settle.reason or lift.method != METHOD_T:
        return settle
    margins = _margins(settle.target, bands)
    runs_needed = None
    if lift.variance.identified:
        for r in range(runs + 1, max_runs + 1):
            sd = lift.variance.design_sd(r)
            if all(power_to_detect(lift.delta, lift.n_cases, sd, lift.alpha, m) >= power for m in margins):
                runs_needed = r
                break
    reason = f"each with {power:.0%} power if the true lift is {lift.delta:+.3f} and the spread stays as observed"
    if runs_needed is None:
        reason += (
            f"; more runs (up to {max_runs}) cannot settle this: the cases' own spread is the limit"
            if lift.variance.identified
            else "; with one run per case, run noise cannot be told from case differences, so only cases are counted"
        )
    return dataclasses.replace(
        settle,
        runs_needed=runs_needed,
        extra_runs=None if runs_needed is None else runs_needed - runs,
        runs_rollouts=None if runs_needed is None else lift.n_cases * runs_needed * 2,
        reason=reason,
    )


def settle_cases(
    delta: float,
    *,
    n_cases: int,
    runs: int,
    alpha: float,
    bands: Bands,
    case_sd: float | None,
    zero_spread: bool = False,
    power: float = POWER,
    available_cases: int | None = None,
) -> Settle:
    """The cases that would settle a verdict on ``delta``: the case count of :func:`settle_plan`.

    ``case_sd`` is the SD of the per-case differences (the interval's standard error × √n);
    ``zero_spread`` says the interval was the distribution-free bound (every case the same
    difference). A lift within :data:`NEAR_BAND` of the band it would have to clear gets no design:
    the cases needed grow as 1/distance², and thousands of cases for a lift that sits on a band is
    not advice. A non-empty ``reason`` means no runs-based design needs computing.
    """
    target: VerdictLabel
    if delta >= bands.pass_band:
        target = "pass"
    elif delta <= bands.fail_band:
        target = "fail"
    else:
        target = "neutral"
    none = Settle(target, delta, power, None, None, None, None, None, None, "", available_cases)
    margins = _margins(target, bands)
    nearest = min(margins, key=lambda m: abs(delta - m))
    if abs(delta - nearest) < NEAR_BAND:
        return dataclasses.replace(
            none,
            reason=f"this lift is within {NEAR_BAND:g} of the band {nearest:+.2f}: no affordable design settles it",
        )
    if n_cases < 2:
        return dataclasses.replace(
            none, reason="with one case the spread across cases is unknown: add cases to estimate it"
        )
    runs = max(runs, 1)
    if zero_spread or case_sd is None:
        return _zero_spread_settle(
            delta, n_cases, alpha, bands, target, power=power, runs=runs, available=available_cases
        )
    needed = [cases_needed(delta, case_sd, alpha, power, m) for m in margins]
    cases = None if any(x is None for x in needed) else max(x for x in needed if x is not None)
    return Settle(
        target,
        delta,
        power,
        cases,
        None if cases is None else max(cases - n_cases, 0),
        None if cases is None else cases * runs * 2,
        None,
        None,
        None,
        "" if cases is not None else "no number of cases reaches the power at this lift",
        available_cases,
    )


def settle_advice(s: Settle) -> str:
    """The one sentence that says what would settle the verdict; every report prints this."""
    options = []
    if s.cases_needed is not None:
        more = f"{s.extra_cases} more" if s.extra_cases is not None else "more"
        held = (
            f"; the dataset holds {s.available_cases}: add {s.cases_needed - s.available_cases} cases"
            if s.available_cases is not None and s.cases_needed > s.available_cases
            else ""
        )
        options.append(f"{s.cases_needed} cases in all ({more}{held}) at the same runs per arm")
    if s.runs_needed is not None:
        options.append(f"{s.runs_needed} runs per case and arm ({s.extra_runs} more) on these cases")
    why = s.reason.lstrip("; ")
    if not options:
        return f"no design settles it: {why}" if why else "no design settles it"
    return f"{' or '.join(options)} (towards {s.target}{', ' + why if why else ''})"


def _zero_spread_settle(
    v: float,
    n_cases: int,
    alpha: float,
    bands: Bands,
    target: VerdictLabel,
    *,
    power: float,
    runs: int,
    available: int | None,
) -> Settle:
    """Every case showed the same difference v: cases needed for the distribution-free bound to clear."""
    if target == "pass":
        q_max = (v - bands.pass_band) / (v + 1.0)
    elif target == "fail":
        q_max = (bands.fail_band - v) / (1.0 - v)
    else:
        q_max = min((v - bands.fail_band) / (v + 1.0), (bands.pass_band - v) / (1.0 - v))
    q_max *= 1.0 - 1e-12  # the neutral rule is strict; stay inside it
    if q_max <= 0.0:
        return Settle(
            target, v, power, None, None, None, None, None, None, "the observed lift sits on a band", available
        )
    cases = math.ceil(math.log(alpha / 2.0) / math.log(1.0 - q_max)) if q_max < 1.0 else 1
    cases = max(cases, n_cases + 1)
    return Settle(
        target,
        v,
        power,
        cases,
        cases - n_cases,
        cases * runs * 2,
        None,
        None,
        None,
        "every case showed the same difference; if more cases keep showing it, this many would settle the verdict "
        "(more runs cannot help: the spread across cases is what is unknown)",
        available,
    )


def _margins(target: VerdictLabel, bands: Bands) -> tuple[float, ...]:
    if target == "pass":
        return (bands.pass_band,)
    if target == "fail":
        return (bands.fail_band,)
    return (bands.fail_band, bands.pass_band)


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
