"""Paired lift: hand-computed intervals, the degenerate cases users hit, and input validation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from aces_ci.stats import (
    ESTIMAND_CASE_POPULATION,
    case_differences,
    paired_lift,
    paired_scores,
    t_interval,
)


def test_hand_computed_t_interval() -> None:
    # Per-case differences: (1 - 0) = 1, (0.5 - 0.5) = 0, (1 - 0.5) = 0.5 → mean 0.5, sd 0.5.
    s = paired_scores([[1, 1], [1, 0], [1, 1]], [[0, 0], [0, 1], [1, 0]])
    lift = paired_lift(s)
    assert lift.delta == pytest.approx(0.5)
    half = stats.t.ppf(0.975, 2) * 0.5 / math.sqrt(3)  # 4.303 * 0.2887 = 1.242
    assert lift.ci == pytest.approx((0.5 - half, 1.0))  # the upper end 1.742 is clipped to the range
    assert lift.se == pytest.approx(0.5 / math.sqrt(3))
    assert lift.df == 2
    assert half == pytest.approx(1.2421, abs=1e-4)
    assert lift.with_mean == pytest.approx(1.0 - 1 / 6)
    assert lift.control_mean == pytest.approx(1 / 3)
    assert lift.delta == pytest.approx(lift.with_mean - lift.control_mean)


def test_unclipped_interval_matches_the_textbook() -> None:
    d = np.array([0.1, 0.3, 0.2, 0.4, 0.0, 0.2, 0.3, 0.1, 0.2, 0.2])
    s = paired_scores((0.5 + d / 2)[:, None], (0.5 - d / 2)[:, None])
    lift = paired_lift(s)
    m, se = d.mean(), d.std(ddof=1) / math.sqrt(d.size)
    t = stats.t.ppf(0.975, d.size - 1)
    assert lift.ci == pytest.approx((m - t * se, m + t * se))
    assert not lift.small_n
    assert lift.estimand == ESTIMAND_CASE_POPULATION
    assert "new task" in lift.estimand_text and "conservative" in lift.estimand_text


def test_runs_of_one_case_are_not_independent_pairs() -> None:
    """Many runs of few cases must not make the interval narrow: the case is the unit."""
    few_runs = paired_scores([[1], [0], [1], [1]], [[0], [0], [1], [0]])
    many_runs = paired_scores([[1] * 20, [0] * 20, [1] * 20, [1] * 20], [[0] * 20, [0] * 20, [1] * 20, [0] * 20])
    a, b = paired_lift(few_runs), paired_lift(many_runs)
    assert a.ci == pytest.approx(b.ci)
    assert b.naive.n_pairs == 80
    assert b.naive.ci is not None and b.ci is not None
    assert (b.naive.ci[1] - b.naive.ci[0]) < (b.ci[1] - b.ci[0]) / 2  # the pooled interval claims far more


def test_unscorable_runs_are_excluded_and_counted_never_zero() -> None:
    s = paired_scores([[1, None, 1], [None, None], [0.5]], [[0, 0, None], [1, 1], [0.5]])
    lift = paired_lift(s)
    assert lift.n_cases == 2 and lift.n_cases_excluded == 1
    assert lift.delta == pytest.approx(((1 - 0) + 0) / 2)
    assert lift.runs_with.unscorable == 3  # one in case 0, two padding slots in case 2
    assert lift.runs_with.scored == 3
    assert any("excluded" in note for note in lift.notes)


def test_all_unscorable_gives_no_lift_rather_than_zero() -> None:
    s = paired_scores([[None, None], [None]], [[1, 0], [None]])
    lift = paired_lift(s)
    assert lift.delta is None and lift.ci is None and lift.n_cases == 0
    assert lift.mde is None
    assert "no lift" in lift.notes[0]


def test_three_wins_out_of_three_is_not_certainty() -> None:
    """3W/0T/0L on a 0/1 metric: zero spread; the interval must not collapse to a point."""
    lift = paired_lift(paired_scores([[1], [1], [1]], [[0], [0], [0]]))
    q = 1 - 0.025 ** (1 / 3)
    assert lift.ci == pytest.approx((1 - 2 * q, 1.0))
    assert lift.ci is not None and lift.ci[0] < 0.0
    assert lift.df is None and "distribution-free" in lift.method
    assert lift.small_n and lift.mde is None


def test_all_ties_give_a_wide_interval_around_zero() -> None:
    lift = paired_lift(paired_scores([[1], [0]] * 5, [[1], [0]] * 5))
    assert lift.delta == 0.0
    q = 1 - 0.025 ** (1 / 10)
    assert lift.ci == pytest.approx((-q, q))


def test_one_case_is_labelled_and_wide() -> None:
    lift = paired_lift(paired_scores([[0.9, 0.8]], [[0.1, 0.2]]))
    assert lift.n_cases == 1 and lift.small_n
    assert lift.ci == pytest.approx((0.7 - 0.975 * 1.7, 0.7 + 0.975 * 0.3))


def test_swapping_conditions_negates_the_lift() -> None:
    s = paired_scores([[1, 0], [1, 1], [0.5, 0.25]], [[0, 0], [1, 0], [0.75, 1]])
    a, b = paired_lift(s), paired_lift(s.swapped())
    assert a.delta == pytest.approx(-b.delta)  # type: ignore[operator]
    assert a.ci is not None and b.ci is not None
    assert a.ci == pytest.approx((-b.ci[1], -b.ci[0]))


def test_mde_is_the_lift_detected_with_80_percent_power() -> None:
    rng = np.random.default_rng(1)
    w = rng.random((30, 3))
    c = rng.random((30, 3))
    lift = paired_lift(paired_scores(w, c))
    d = case_differences(paired_scores(w, c))
    sd = d.std(ddof=1)
    assert lift.mde is not None
    # Normal approximation: (z_.975 + z_.8) · sd / √n, slightly below the t-based figure.
    approx = (1.959964 + 0.841621) * sd / math.sqrt(30)
    assert approx < lift.mde < approx * 1.06


def test_t_interval_is_the_interval_paired_lift_reports() -> None:
    d = np.array([0.2, -0.1, 0.4, 0.0, 0.3])
    ci, method, df, _ = t_interval(d, 0.1)
    lift = paired_lift(paired_scores((0.5 + d / 2)[:, None], (0.5 - d / 2)[:, None]), alpha=0.1)
    assert lift.ci == pytest.approx(ci) and lift.df == df == 4 and lift.method == method


@pytest.mark.parametrize(
    ("with_runs", "control_runs", "coupling", "message"),
    [
        ([[1.2]], [[0]], "independent", "case 0, run 0: 1.2 is outside [0, 1]"),
        ([[0.5, "x"]], [[0, 1]], "independent", "case 0, run 1: 'x' is not a number"),
        ([[1], [0]], [[0]], "independent", "2 cases and the control 1"),
        ([[1, 0]], [[0]], "shared-seed", "lists 2 with-runs and 1 control runs"),
        ([[1]], [[0]], "paired", "coupling must be one of"),
        ([[math.inf]], [[0]], "independent", "outside [0, 1]"),
    ],
)
def test_bad_input_names_the_case_and_run(
    with_runs: list[list[object]], control_runs: list[list[object]], coupling: str, message: str
) -> None:
    with pytest.raises(ValueError, match=None) as info:
        paired_scores(with_runs, control_runs, coupling)  # type: ignore[arg-type]
    assert message in str(info.value)


def test_shared_seed_keeps_pairs_aligned() -> None:
    s = paired_scores([[1, None, 0]], [[0, 1, None]], "shared-seed")
    assert s.with_scores.shape == s.control_scores.shape == (1, 3)
    assert paired_lift(s).naive.n_pairs == 1  # only run 0 is a complete pair
