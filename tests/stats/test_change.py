"""The change of a lift between a release and a rerun: flagged as a regression only when its interval says so."""

from __future__ import annotations

import numpy as np
import pytest

from aces_ci.stats import CaseLift, case_lifts, lift_change


def _cases(values: list[float | None], prefix: str = "c") -> list[CaseLift]:
    return [CaseLift(f"{prefix}{i}", v) for i, v in enumerate(values)]


def test_a_lower_point_whose_interval_holds_zero_is_not_a_regression() -> None:
    rng = np.random.default_rng(3)
    then = _cases([float(x) for x in rng.uniform(0.2, 0.6, 10)])
    now = _cases([c.lift - 0.05 + float(n) for c, n in zip(then, rng.normal(0, 0.3, 10), strict=True)])  # type: ignore[operator]
    change = lift_change(now, then)
    assert change.ci is not None and change.ci[0] < 0 < change.ci[1]
    assert change.label == "no detectable change" and not change.regression


def test_an_interval_below_zero_is_a_regression_and_above_zero_an_improvement() -> None:
    then = _cases([0.6, 0.5, 0.7, 0.4, 0.6, 0.5, 0.55, 0.65])
    now = _cases([(c.lift or 0) - d for c, d in zip(then, [0.5, 0.4, 0.6, 0.3, 0.45, 0.5, 0.4, 0.55], strict=True)])
    down = lift_change(now, then)
    assert down.regression and down.ci is not None and down.ci[1] < 0
    assert down.delta == pytest.approx(-0.4625)
    up = lift_change(then, now)
    assert up.label == "improvement"


def test_only_cases_scored_in_both_trials_count_and_no_shared_case_is_not_comparable() -> None:
    then = _cases([0.5, 0.5, None, 0.5])
    now = [*_cases([0.1, 0.2, 0.3, None]), CaseLift("new", 0.9)]
    change = lift_change(now, then)
    assert (change.n_cases, change.only_now, change.only_then) == (2, 2, 1)
    none = lift_change(_cases([0.1], "a"), _cases([0.2], "b"))
    assert none.label == "not comparable" and none.ci is None and not none.regression


def test_every_case_changing_alike_uses_the_distribution_free_bound_on_the_range_of_a_change() -> None:
    change = lift_change(_cases([-1.0] * 12), _cases([1.0] * 12))
    assert change.delta == pytest.approx(-2.0)
    assert change.ci is not None and change.ci[0] == -2.0 and change.ci[1] < 0  # not clipped to a lift's [-1, 1]
    assert "distribution-free" in change.method and change.regression


def test_case_lifts_average_the_scored_runs_of_each_arm() -> None:
    lifts = case_lifts(["a", "b", "c"], [[1.0, 0.0], [None, None], [1.0]], [[0.0, 0.0], [1.0], [None]])
    assert [c.lift for c in lifts] == [0.5, None, None]
