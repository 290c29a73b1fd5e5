"""Discordance, degradation shares and trigger stratification."""

from __future__ import annotations

import numpy as np
import pytest

from aces_ci.stats import (
    DISCORDANCE_LABEL,
    beyond_run_noise,
    degradation_shares,
    mean_interval,
    paired_discordance,
    paired_lift,
    paired_scores,
    trigger_strata,
)


def test_discordance_counts_only_differences_beyond_run_noise() -> None:
    s = paired_scores([[1, 1], [0, 1], [0, 0], [0.5, 0.5]], [[0, 1], [1, 0], [1, 1], [0.5, 0.5]])
    d = paired_discordance(s)
    # pooled run sd = sqrt(1.5 / 8) = 0.433, so a case must differ by more than 1.96 · 0.433 = 0.85:
    # 2/2 against 1/2 (+0.5) is within run noise, 0/2 against 2/2 (−1) is a regression.
    assert (d.gains, d.regressions, d.ties, d.n_cases) == (0, 1, 3, 4)
    assert d.label == DISCORDANCE_LABEL and "not the share of tasks the skill harms" in d.label
    assert "run sd 0.433" in d.comparison
    identical = paired_discordance(paired_scores([[0.3, 0.3]] * 3, [[0.3, 0.3]] * 3))
    assert (identical.gains, identical.regressions, identical.ties) == (0, 0, 3)
    noise = beyond_run_noise(s)
    assert noise.run_sd == pytest.approx((1.5 / 8) ** 0.5) and list(noise.beyond) == [False, False, True, False]
    deterministic = paired_discordance(paired_scores([[1, 1], [0, 0]], [[0, 0], [0, 0]]))
    assert (deterministic.gains, deterministic.ties) == (1, 1), "no run spread: every real difference counts"
    tolerant = paired_discordance(paired_scores([[0.52]], [[0.5]]), tolerance=0.05)
    assert tolerant.ties == 1


def test_binary_one_run_discordance_is_the_paired_difference() -> None:
    """With 0/1 scores and one run, (gains − regressions) / n equals the lift exactly (review §3.7)."""
    rng = np.random.default_rng(8)
    w = (rng.random((40, 1)) < 0.6).astype(float)
    c = (rng.random((40, 1)) < 0.5).astype(float)
    s = paired_scores(w, c)
    d = paired_discordance(s)
    assert (d.gains - d.regressions) / d.n_cases == pytest.approx(paired_lift(s).delta)


def test_plug_in_share_is_biased_and_interval_shares_are_not() -> None:
    """p = 0.5 in both conditions, 3 runs: 22/64 of cases look degraded; none is."""
    from itertools import product

    # Exact enumeration of one case's 2^6 outcomes: treated mean below control mean in 22 of 64.
    below = sum(sum(o[:3]) < sum(o[3:]) for o in product((0, 1), repeat=6))
    assert below == 22
    rng = np.random.default_rng(2026)
    w = (rng.random((20_000, 3)) < 0.5).astype(float)
    c = (rng.random((20_000, 3)) < 0.5).astype(float)
    s = paired_scores(w, c)
    w_mean, c_mean = w.mean(axis=1), c.mean(axis=1)
    plug_in = float(np.mean(w_mean < c_mean))
    assert plug_in == pytest.approx(22 / 64, abs=0.01)
    # Discordance counts a regression only beyond run noise: here only 0/3 against 3/3 (1 of 64 outcomes).
    assert paired_discordance(s).regressions / 20_000 == pytest.approx(1 / 64, abs=0.004)
    shares = degradation_shares(paired_scores(w[:200], c[:200]))
    assert shares.confidently_degraded == 0.0  # the truth is 0: no case is confidently degraded
    assert shares.possibly_degraded == 1.0  # and with 3 runs no case can be ruled out
    assert shares.n_cases == 200 and len(shares.per_case) == 200


def test_degradation_needs_two_runs_and_finds_real_harm() -> None:
    one_run = degradation_shares(paired_scores([[1], [0]], [[0], [1]]))
    assert one_run.n_cases == 0 and one_run.confidently_degraded is None and one_run.n_cases_excluded == 2
    harmed = paired_scores([[0.0] * 40, [1.0] * 40], [[1.0] * 40, [1.0] * 40])
    assert degradation_shares(harmed).possibly_count == 2  # at margin 0, a tiny drop in case 1 is not ruled out
    shares = degradation_shares(harmed, margin=0.2)
    assert shares.confidently_count == 1 and shares.possibly_count == 1
    assert shares.per_case[0].upper < 0.0 < shares.per_case[1].upper


def test_mean_interval_exact_and_bounded() -> None:
    lo, hi = mean_interval(np.array([1.0, 1.0, 1.0]), 0.05)
    assert lo == pytest.approx(0.025 ** (1 / 3)) and hi == 1.0
    lo, hi = mean_interval(np.array([0.3, 0.5]), 0.05)  # Hoeffding: ±sqrt(ln(40) / 4)
    assert hi - lo == pytest.approx(min(1.0, 0.4 + np.sqrt(np.log(40) / 4)) - max(0.0, 0.4 - np.sqrt(np.log(40) / 4)))


def test_trigger_identity_and_definitions_by_hand() -> None:
    # Case 0: with runs 1 (triggered), 0 (not); control mean 0.5. Case 1: with 1, 1 (both triggered); control 0.
    s = paired_scores([[1, 0], [1, 1]], [[0, 1], [0, 0]])
    t = trigger_strata(s, [[True, False], [True, True]])
    # Weights: 1/4 per run. Contrasts: +0.5, -0.5, +1, +1.
    assert t.rate == pytest.approx(0.75)
    assert t.d_pair == pytest.approx((0.5 + 1 + 1) / 3)
    assert t.d_skip == pytest.approx(-0.5)
    assert t.tau == pytest.approx(paired_lift(s).delta)
    assert t.identity_residual == pytest.approx(0.0, abs=1e-15)
    assert (t.cases_always, t.cases_sometimes, t.cases_never) == (1, 1, 0)


def test_shared_seed_trigger_pairs_with_the_seed_partner() -> None:
    s = paired_scores([[1, 0]], [[1, 0]], "shared-seed")
    t = trigger_strata(s, [[True, False]])
    # Seed partners are equal, so both strata show 0; against the case mean they would show ±0.5.
    assert t.d_pair == 0.0 and t.d_skip == 0.0 and "seed-sharing" in t.definition


def test_trigger_strata_undefined_sides_are_none() -> None:
    s = paired_scores([[1, 1]], [[0, 0]])
    assert trigger_strata(s, [[True, True]]).d_skip is None
    assert trigger_strata(s, [[False, False]]).d_pair is None
    unknown = trigger_strata(s, [[None, True]])
    assert unknown.unknown_runs == 1 and unknown.triggered_runs == 1
    with pytest.raises(ValueError, match="trigger flags for 2 cases"):
        trigger_strata(s, [[True], [True]])
