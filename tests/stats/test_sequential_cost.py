"""Sequential stopping, cost summaries and budget caps, the repo-level bootstrap, estimand text."""

from __future__ import annotations

import numpy as np
import pytest

from aces_ci.stats import (
    BudgetCap,
    ProtocolFacts,
    RolloutCost,
    SequentialSettings,
    cap_scores,
    cost_summary,
    estimand_statement,
    lift_per_dollar,
    paired_lift,
    paired_scores,
    per_rollout_cap,
    sequential_decision,
    skill_level_bootstrap,
)


def _trial(rng: np.random.Generator, n: int, runs: int, p_with: float, p_control: float) -> np.ndarray:
    mu = rng.uniform(-0.1, 0.1, n)
    w = (rng.random((n, runs)) < np.clip(p_with + mu, 0, 1)[:, None]).astype(float)
    c = (rng.random((n, runs)) < np.clip(p_control + mu, 0, 1)[:, None]).astype(float)
    return np.stack([w, c])


def test_alpha_spending_sums_to_alpha() -> None:
    settings = SequentialSettings(max_runs=4, alpha=0.05)
    assert sum(settings.alpha_at(k) for k in range(1, 5)) == pytest.approx(0.05)
    assert settings.alpha_at(1) < settings.alpha_at(4)


def test_clear_cut_skill_stops_at_the_first_look() -> None:
    w, c = _trial(np.random.default_rng(1), 40, 3, 0.95, 0.2)
    d = sequential_decision(paired_scores(w[:, :1], c[:, :1]))
    assert d.state == "decided" and d.verdict.label == "pass" and d.look == 1
    assert d.alpha_look == pytest.approx(0.05 / 6)
    assert d.lift.alpha == d.alpha_look


def test_unclear_skill_continues_then_decides_at_the_last_look() -> None:
    w, c = _trial(np.random.default_rng(2), 10, 3, 0.5, 0.5)
    first = sequential_decision(paired_scores(w[:, :1], c[:, :1]))
    assert first.state == "continue" and first.next_batch is not None and "schedule run 2" in first.next_batch
    last = sequential_decision(paired_scores(w, c))
    assert last.state == "decided" and last.look == 3 and "last look" in last.reason


def test_sequential_is_a_pure_function_of_the_data() -> None:
    w, c = _trial(np.random.default_rng(3), 20, 2, 0.6, 0.4)
    s = paired_scores(w, c)
    assert sequential_decision(s) == sequential_decision(s)
    with pytest.raises(ValueError, match="exceed the sequential design"):
        sequential_decision(paired_scores(np.ones((3, 4)), np.zeros((3, 4))), SequentialSettings(max_runs=3))


def test_cost_summary_and_lift_per_dollar() -> None:
    with_cost = cost_summary(
        "with",
        [
            RolloutCost(1000, 200, 100, 3, 2.0, 0.03),
            RolloutCost(800, 100, 0, 2, 4.0, 0.01),
            RolloutCost(5, 5, 0, 1, 1.0),
        ],
    )
    assert with_cost.tokens_in == 1805 and with_cost.calls == 6 and with_cost.unpriced == 1
    assert with_cost.dollars == pytest.approx(0.04) and with_cost.dollars_per_rollout == pytest.approx(0.02)
    assert with_cost.latency_median_s == 2.0
    control = cost_summary("without", [RolloutCost(500, 100, 0, 1, 1.0, 0.01)])
    ratio = lift_per_dollar(0.2, with_cost, control)
    assert ratio.extra_dollars_per_rollout == pytest.approx(0.01)
    assert ratio.lift_per_extra_dollar == pytest.approx(20.0)
    cheaper = lift_per_dollar(0.2, control, with_cost)
    assert cheaper.lift_per_extra_dollar is None and "no extra cost" in cheaper.note
    assert cost_summary("empty", []).dollars is None


def test_a_free_or_unpriced_model_states_the_skills_cost_in_tokens_and_never_calls_it_free() -> None:
    dear = [RolloutCost(2400, 200, 0, 1, 1.0, 0.0)] * 4  # the embedded local model: priced at $0
    lean = [RolloutCost(900, 100, 0, 1, 1.0, 0.0)] * 4
    free = lift_per_dollar(0.3, cost_summary("with", dear), cost_summary("without", lean))
    assert free.lift_per_extra_dollar is None and "no extra cost" not in free.note
    assert free.note == (
        "not defined, the model costs $0 per rollout; its cost in tokens: "
        "with 2,600 tokens per rollout vs without 1,000 (2.60× as many)"
    )
    unpriced = [RolloutCost(c.tokens_in, c.tokens_out) for c in dear]
    control = [RolloutCost(c.tokens_in, c.tokens_out) for c in lean]
    none = lift_per_dollar(0.3, cost_summary("with", unpriced), cost_summary("without", control))
    assert none.note.startswith("not defined, the model is unpriced") and "2.60× as many" in none.note
    # Cached tokens are cheap: fewer dollars per rollout, but more tokens, is no "extra cost" claim.
    cached = lift_per_dollar(
        0.3,
        cost_summary("with", [RolloutCost(2400, 200, 2000, 1, 1.0, 0.001)]),
        cost_summary("without", [RolloutCost(900, 100, 0, 1, 1.0, 0.002)]),
    )
    assert "no extra cost" not in cached.note and "more tokens" in cached.note and "2.60×" in cached.note


def test_budget_cap_scores_over_budget_rollouts_as_zero_in_both_conditions() -> None:
    s = paired_scores([[1, 1]], [[1, None]])
    cheap, dear = RolloutCost(tokens_in=100, dollars=0.01), RolloutCost(tokens_in=100, dollars=0.5)
    capped = cap_scores(s, [[cheap, dear]], [[dear, dear]], BudgetCap(dollars=0.1))
    assert capped.capped_with == 1 and capped.capped_control == 1  # the unscorable control run stays NaN
    assert paired_lift(capped.scores).delta == pytest.approx(0.5)
    assert per_rollout_cap(10.0, 100).dollars == pytest.approx(0.1)
    with pytest.raises(ValueError, match="needs dollars or tokens"):
        BudgetCap()
    assert BudgetCap(tokens=150).exceeded(RolloutCost(tokens_in=100, tokens_out=60))


def test_skill_level_bootstrap_is_seeded_and_counts_skills_once() -> None:
    rng = np.random.default_rng(5)
    skills = [rng.normal(0.2, 0.1, 30), rng.normal(0.0, 0.1, 5), np.array([np.nan, 0.1])]
    a = skill_level_bootstrap(skills, seed=7, resamples=500)
    b = skill_level_bootstrap(skills, seed=7, resamples=500)
    assert a == b and a.n_skills == 3 and a.n_cases == 36
    assert a.delta == pytest.approx(np.mean([skills[0].mean(), skills[1].mean(), 0.1]))
    assert a.ci is not None and a.ci[0] < a.delta < a.ci[1]
    one = skill_level_bootstrap([skills[0]], resamples=200)
    assert "one skill" in one.method
    assert skill_level_bootstrap([], resamples=200).delta is None


def test_estimand_statement_covers_the_six_axes() -> None:
    facts = ProtocolFacts(
        skill="pdf-tools",
        contrast="against-ref",
        control_ref="v1.2.0",
        metric="accuracy",
        eval_source="evals/evals.json",
        n_cases=24,
        runs_per_arm=3,
        coupling="shared-seed",
        mode="group",
        decoys=4,
        harness="claude-code",
        budget_cap_dollars=0.25,
        trigger_event="the skill was loaded",
    )
    st = estimand_statement(facts)
    assert len(st.sentences) == 6
    assert "v1.2.0" in st.contrast and "4 other skill(s)" in st.contrast
    assert "24 case(s) in evals/evals.json" in st.population
    assert "3 time(s) per condition" in st.unit and "shares a random seed" in st.unit
    assert "$0.25" in st.budget
    assert "accuracy" in st.summary and "95%" in st.summary
    assert "the skill was loaded" in st.identification
    plain = estimand_statement(ProtocolFacts("x", "with-without", "composite", "EVAL.md", 3, 1, "independent"))
    assert "Budget: none" in plain.budget and "without it" in plain.contrast


def test_sequential_can_add_cases_instead_of_runs() -> None:
    settings = SequentialSettings(case_looks=(10, 20, 40))
    assert settings.max_looks == 3
    w, c = _trial(np.random.default_rng(6), 40, 2, 0.55, 0.45)
    first = sequential_decision(paired_scores(w[:10], c[:10]), settings)
    assert first.look == 1 and first.state == "continue"
    assert first.next_batch is not None and "up to 20 in total" in first.next_batch
    last = sequential_decision(paired_scores(w, c), settings)
    assert last.look == 3 and last.state == "decided" and last.next_batch is None
    with pytest.raises(ValueError, match="declared at"):
        sequential_decision(paired_scores(w[:15], c[:15]), settings)
    with pytest.raises(ValueError, match="strictly increasing"):
        SequentialSettings(case_looks=(10, 10))
