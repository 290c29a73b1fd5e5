"""Property tests: invariants every trial's statistics must keep, on arbitrary scores."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from aces_ci.stats import (
    Bands,
    paired_discordance,
    paired_lift,
    paired_scores,
    trigger_strata,
    verdict_label,
)

score = st.one_of(st.none(), st.floats(0.0, 1.0), st.sampled_from([0.0, 1.0]))


@st.composite
def trials(draw: st.DrawFn) -> tuple[list[list[float | None]], list[list[float | None]], str]:
    n = draw(st.integers(1, 12))
    runs = draw(st.integers(1, 4))
    coupling = draw(st.sampled_from(["independent", "shared-seed"]))
    with_runs = [draw(st.lists(score, min_size=runs, max_size=runs)) for _ in range(n)]
    control_runs = [draw(st.lists(score, min_size=runs, max_size=runs)) for _ in range(n)]
    return with_runs, control_runs, coupling


@given(trials(), st.sampled_from([0.01, 0.05, 0.2]))
@settings(max_examples=150, deadline=None)
def test_interval_contains_the_estimate_and_stays_in_range(
    trial: tuple[list[list[float | None]], list[list[float | None]], str], alpha: float
) -> None:
    lift = paired_lift(paired_scores(trial[0], trial[1], trial[2]), alpha)  # type: ignore[arg-type]
    if lift.delta is None:
        assert lift.ci is None and lift.n_cases == 0
        return
    assert lift.ci is not None
    lo, hi = lift.ci
    assert -1.0 <= lo <= lift.delta <= hi <= 1.0
    assert abs(lift.delta - (lift.with_mean - lift.control_mean)) < 1e-12  # type: ignore[operator]
    assert lift.small_n == (lift.n_cases < 10)


@given(trials())
@settings(max_examples=100, deadline=None)
def test_swapping_arms_negates_lift_and_mirrors_discordance(
    trial: tuple[list[list[float | None]], list[list[float | None]], str],
) -> None:
    s = paired_scores(trial[0], trial[1], trial[2])  # type: ignore[arg-type]
    a, b = paired_lift(s), paired_lift(s.swapped())
    if a.delta is None:
        assert b.delta is None
        return
    assert b.delta is not None and a.ci is not None and b.ci is not None
    assert abs(a.delta + b.delta) < 1e-12
    assert abs(a.ci[0] + b.ci[1]) < 1e-9 and abs(a.ci[1] + b.ci[0]) < 1e-9
    da, db = paired_discordance(s), paired_discordance(s.swapped())
    assert (da.gains, da.regressions, da.ties) == (db.regressions, db.gains, db.ties)


@given(trials())
@settings(max_examples=100, deadline=None)
def test_wider_confidence_never_narrows_the_interval(
    trial: tuple[list[list[float | None]], list[list[float | None]], str],
) -> None:
    s = paired_scores(trial[0], trial[1], trial[2])  # type: ignore[arg-type]
    loose, strict = paired_lift(s, 0.2).ci, paired_lift(s, 0.01).ci
    if loose is None or strict is None:
        return
    assert strict[0] <= loose[0] + 1e-12 and loose[1] <= strict[1] + 1e-12


interval = st.tuples(st.floats(-1, 1), st.floats(-1, 1)).map(lambda t: (min(t), max(t)))
ORDER = {"fail": 0, "underpowered": 1, "neutral": 1, "pass": 2}


@given(interval, st.floats(-0.5, 0.5), st.floats(-0.5, 0.5))
def test_verdict_is_monotone_in_the_interval(ci: tuple[float, float], shift_lo: float, shift_hi: float) -> None:
    """Moving the interval up never turns a pass into anything else, nor anything into a fail."""
    bands = Bands()
    lo, hi = ci
    up = (min(1.0, lo + abs(shift_lo)), min(1.0, max(lo + abs(shift_lo), hi + abs(shift_hi))))
    before, after = verdict_label(ci, bands), verdict_label(up, bands)
    if before == "pass":
        assert after == "pass"
    if after == "fail":
        assert before == "fail"
    assert ORDER[after] >= ORDER[before] or before == after


@given(interval)
def test_a_wider_interval_never_gives_a_firmer_verdict(ci: tuple[float, float]) -> None:
    lo, hi = ci
    wider = (max(-1.0, lo - 0.05), min(1.0, hi + 0.05))
    narrow, wide = verdict_label(ci), verdict_label(wider)
    assert wide in (narrow, "underpowered")


@given(trials(), st.data())
@settings(max_examples=150, deadline=None)
def test_trigger_identity_holds(
    trial: tuple[list[list[float | None]], list[list[float | None]], str], data: st.DataObject
) -> None:
    s = paired_scores(trial[0], trial[1], trial[2])  # type: ignore[arg-type]
    flags = [
        data.draw(st.lists(st.one_of(st.booleans(), st.none()), min_size=len(r), max_size=len(r))) for r in trial[0]
    ]
    t = trigger_strata(s, flags)
    if t.tau is None:
        return
    assert t.rate is not None and 0.0 <= t.rate <= 1.0
    recomposed = t.rate * (t.d_pair or 0.0) + (1 - t.rate) * (t.d_skip or 0.0)
    assert abs(t.tau - recomposed) < 1e-9
    assert t.identity_residual is not None and abs(t.identity_residual) < 1e-9
    if s.coupling == "independent" and all(f is not None for row in flags for f in row):
        delta = paired_lift(s).delta  # every scorable with-run carries a flag: τ is the headline lift
        assert delta is not None and abs(t.tau - delta) < 1e-9
