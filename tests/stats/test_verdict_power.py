"""Verdicts on the interval, what would settle an underpowered one, power and planning."""

from __future__ import annotations

import math

import numpy as np
import pytest

from aces_ci.stats import (
    Bands,
    VarianceComponents,
    cases_needed,
    components_from_aa,
    minimum_detectable_effect,
    paired_lift,
    paired_scores,
    plan,
    power_to_detect,
    settle_cases,
    variance_components,
    verdict,
    verdict_label,
)


@pytest.mark.parametrize(
    ("ci", "label"),
    [
        ((0.05, 0.4), "pass"),
        ((0.2, 0.3), "pass"),
        ((-0.5, -0.10), "fail"),
        ((-0.09, 0.04), "neutral"),
        ((-0.10, 0.04), "underpowered"),  # touches the fail band: cannot rule out reaching it
        ((0.0, 0.2), "underpowered"),
        ((-0.3, 0.0), "underpowered"),
        ((-1.0, 1.0), "underpowered"),
        (None, "underpowered"),
    ],
)
def test_verdict_reads_the_interval(ci: tuple[float, float] | None, label: str) -> None:
    assert verdict_label(ci) == label


def test_bands_are_parameters_and_validated() -> None:
    assert verdict_label((0.02, 0.3), Bands(pass_band=0.0, fail_band=-0.2)) == "pass"
    with pytest.raises(ValueError, match="must be below the pass band"):
        Bands(pass_band=-0.2, fail_band=0.1)


def test_three_wins_is_underpowered_with_a_way_forward() -> None:
    lift = paired_lift(paired_scores([[1], [1], [1]], [[0], [0], [0]]))
    v = verdict(lift)
    assert v.label == "underpowered"
    assert v.settle is not None and v.settle.target == "pass"
    # Distribution-free bound for n cases all showing +1: 1 - 2q(n) ≥ 0.05 first at n = 6.
    assert v.settle.cases_needed == 6 and v.settle.extra_cases == 3
    assert v.settle.runs_needed is None and "more runs cannot help" in v.settle.reason
    assert v.settle.cases_rollouts == 6 * 1 * 2


def test_settle_from_observed_variance_reaches_the_power_it_promises() -> None:
    rng = np.random.default_rng(4)
    mu = rng.uniform(0.2, 0.6, 12)
    w = (rng.random((12, 2)) < (mu + 0.25)[:, None]).astype(float)
    c = (rng.random((12, 2)) < mu[:, None]).astype(float)
    lift = paired_lift(paired_scores(w, c))
    v = verdict(lift)
    assert v.label == "underpowered" and v.settle is not None and lift.delta is not None
    assert v.settle.target == "pass" and v.settle.cases_needed is not None
    assert lift.se is not None
    sd = lift.se * math.sqrt(lift.n_cases)  # the observed spread of the per-case differences, as the gate reads it
    n = v.settle.cases_needed
    assert power_to_detect(lift.delta, n, sd, margin=0.05) >= 0.8 > power_to_detect(lift.delta, n - 1, sd, margin=0.05)


def test_a_lift_sitting_on_a_band_gets_no_design_and_the_dataset_caps_the_advice() -> None:
    on_band = settle_cases(0.045, n_cases=30, runs=3, alpha=0.05, bands=Bands(), case_sd=0.3)
    assert on_band.cases_needed is None and on_band.runs_needed is None
    assert on_band.advice == (
        "no design settles it: this lift is within 0.01 of the band +0.05: no affordable design settles it"
    )
    capped = settle_cases(0.2, n_cases=30, runs=3, alpha=0.05, bands=Bands(), case_sd=0.6, available_cases=30)
    assert capped.cases_needed is not None and capped.cases_needed > 30
    assert f"the dataset holds 30: add {capped.cases_needed - 30} cases" in capped.advice


def test_runs_that_cannot_help_say_the_cases_spread_is_the_limit() -> None:
    rng = np.random.default_rng(11)
    lift_per_case = rng.choice([-0.4, 0.6], 20)  # the lift varies across cases; runs are nearly noiseless
    w = np.clip(0.4 + lift_per_case[:, None] + rng.normal(0, 0.01, (20, 3)), 0, 1)
    c = np.full((20, 3), 0.4)
    v = verdict(paired_lift(paired_scores(w, c)), available_cases=20)
    assert v.label == "underpowered" and v.settle is not None
    assert v.settle.runs_needed is None
    assert "more runs (up to 20) cannot settle this: the cases' own spread is the limit" in v.settle.advice


def test_no_data_verdict_says_so() -> None:
    v = verdict(paired_lift(paired_scores([[None]], [[1]])))
    assert v.label == "underpowered" and v.settle is None and "no case" in v.reason


def test_power_at_the_margin_is_the_false_claim_rate() -> None:
    assert power_to_detect(0.0, 30, 0.3) == pytest.approx(0.025, abs=1e-9)
    assert power_to_detect(0.1, 1, 0.3) == 0.0


def test_mde_and_cases_needed_agree() -> None:
    mde = minimum_detectable_effect(40, 0.3)
    assert mde is not None
    assert power_to_detect(mde, 40, 0.3) == pytest.approx(0.8, abs=1e-6)
    assert cases_needed(mde, 0.3) == 40
    assert minimum_detectable_effect(40, 0.6) == pytest.approx(2 * mde)  # scales with the spread
    assert minimum_detectable_effect(1, 0.3) is None and minimum_detectable_effect(10, 0.0) is None


def test_variance_components_recover_a_known_design() -> None:
    rng = np.random.default_rng(0)
    n, runs = 4000, 4
    lift = rng.normal(0.1, 0.2, n)  # between-case variance 0.04
    w = 0.5 + lift[:, None] / 2 + rng.normal(0, 0.1, (n, runs))  # run variance 0.01
    c = 0.5 - lift[:, None] / 2 + rng.normal(0, 0.1, (n, runs))
    comp = variance_components(paired_scores(np.clip(w, 0, 1), np.clip(c, 0, 1)))
    assert comp.identified
    assert comp.between_case == pytest.approx(0.04, rel=0.1)
    assert comp.within_with == pytest.approx(0.01, rel=0.1) and comp.within_control == pytest.approx(0.01, rel=0.1)


def test_one_run_pilot_is_not_identified_and_recommends_cases() -> None:
    rng = np.random.default_rng(2)
    s = paired_scores(rng.random((20, 1)), rng.random((20, 1)))
    comp = variance_components(s)
    assert not comp.identified
    assert comp.design_sd(1) == comp.design_sd(10)  # more runs are predicted not to help
    p = plan(comp, 0.2)
    assert p.cheapest is not None and p.cheapest.runs == 1
    assert any("cannot separate" in a for a in p.assumptions)


def test_plan_trades_runs_for_cases_when_run_noise_dominates() -> None:
    comp = VarianceComponents(0.001, 0.25, 0.25, 0.0, True, "test")
    p = plan(comp, 0.15, available_cases=30, max_runs=10)
    assert p.cheapest is not None
    assert p.cheapest.cases <= 30 and p.cheapest.runs > 1
    assert p.cheapest.power >= 0.8
    assert p.cheapest.rollouts == p.cheapest.cases * p.cheapest.runs * 2
    by_runs = {d.runs: d.cases for d in p.grid}
    assert by_runs[1] > by_runs[5] > by_runs[10]  # more runs, fewer cases
    unconstrained = plan(comp, 0.15)
    assert unconstrained.cheapest is not None
    assert unconstrained.cheapest.rollouts <= p.cheapest.rollouts


def test_plan_says_when_no_design_fits_the_cases_available() -> None:
    comp = VarianceComponents(0.09, 0.2, 0.2, 0.0, True, "test")
    p = plan(comp, 0.05, available_cases=10, max_runs=5)
    assert p.cheapest is None and all(not d.within_available_cases for d in p.grid)


def test_components_from_aa_measure_run_noise() -> None:
    rng = np.random.default_rng(3)
    mu = rng.uniform(0.2, 0.8, 3000)
    a = (rng.random((3000, 1)) < mu[:, None]).astype(float)
    b = (rng.random((3000, 1)) < mu[:, None]).astype(float)
    comp = components_from_aa(paired_scores(a, b), between_case_lift_sd=0.1)
    expected = float(np.mean(mu * (1 - mu)))
    assert comp.within_with == pytest.approx(expected, rel=0.1)
    assert comp.between_case == pytest.approx(0.01)
    assert comp.source == "A/A control"
    with pytest.raises(ValueError, match="between_case_lift_sd"):
        components_from_aa(paired_scores(a, b), between_case_lift_sd=-1)


def test_plan_rejects_impossible_requests() -> None:
    comp = VarianceComponents(0.01, 0.1, 0.1, 0.0, True, "test")
    with pytest.raises(ValueError, match="equals the margin"):
        plan(comp, 0.05, margin=0.05)
    with pytest.raises(ValueError, match="alpha and power"):
        plan(comp, 0.1, alpha=1.5)


def test_power_grows_with_cases() -> None:
    powers = [power_to_detect(0.1, n, 0.3) for n in (5, 10, 20, 40, 80)]
    assert powers == sorted(powers) and powers[-1] > 0.8
    assert math.isclose(power_to_detect(-0.1, 20, 0.3), power_to_detect(0.1, 20, 0.3))


def test_all_ties_are_underpowered_and_need_many_more_cases() -> None:
    """Ten cases that all tie cannot show the skill is neutral: the spread is unobserved."""
    v = verdict(paired_lift(paired_scores([[1], [0]] * 5, [[1], [0]] * 5)))
    assert v.label == "underpowered" and v.settle is not None
    assert v.settle.target == "neutral"
    # q(n) = 1 − 0.025^(1/n) must fall below the pass band 0.05: n ≥ ln 0.025 / ln 0.95 = 71.9.
    assert v.settle.cases_needed == 72 and v.settle.extra_cases == 62


def test_shared_seed_pair_covariance_is_estimated_and_used() -> None:
    rng = np.random.default_rng(9)
    n, runs = 3000, 3
    mu = rng.uniform(0.2, 0.8, n)
    u = rng.random((n, runs))  # the same coin for both conditions: strongly coupled runs
    w = (u < np.clip(mu + 0.1, 0, 1)[:, None]).astype(float)
    c = (u < mu[:, None]).astype(float)
    comp = variance_components(paired_scores(w, c, "shared-seed"))
    assert comp.within_pair_cov > 0.1  # most pairs agree
    independent_sd = math.sqrt(comp.between_case + (comp.within_with + comp.within_control) / runs)
    assert comp.design_sd(runs) < independent_sd / 2  # coupling removes most of the run noise


def test_settle_plan_refuses_a_trial_without_a_lift() -> None:
    from aces_ci.stats import settle_plan

    with pytest.raises(ValueError, match="no lift to settle"):
        settle_plan(paired_lift(paired_scores([[None]], [[1]])), Bands())
