"""From rollouts to a skill's result: which scores each statistic sees, composites over a pair, triage, splits."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from aces_ci.agents import HarnessSpec, RolloutRequest, RolloutResult, SkillEvent
from aces_ci.engine import RolloutRecord
from aces_ci.evals import EvalCase
from aces_ci.grading import Grades, MetricGrade
from aces_ci.models import ModelSpec, Usage
from aces_ci.stats import Bands
from aces_ci.trials import (
    AnalysisSettings,
    RunTable,
    SequentialLook,
    SkillInputs,
    TrialDesign,
    analyse_skill,
    plan_skill,
    requests_for,
)
from tests.engine.helpers import rendered

Grade = float | str | None
"""A value, ``"na"`` (not applicable), ``None`` (could not grade) or ``"infra"`` (the rollout failed)."""


def _grade(metric: str, value: Grade) -> MetricGrade:
    if value == "na":
        return MetricGrade.not_applicable(metric, "does not apply here")
    if value is None or value == "infra":
        return MetricGrade.could_not_grade(metric, "nothing to grade")
    assert isinstance(value, float | int)
    return MetricGrade.graded(metric, float(value))


Figures = tuple[int, int, float]
"""(prompt tokens, model calls, wall seconds) of one rollout."""
SAME: Figures = (100, 1, 2.0)


def record(
    request: RolloutRequest,
    grades: dict[str, Grade],
    *,
    answer: str = "an answer",
    loaded: bool = True,
    figures: Figures = SAME,
) -> RolloutRecord:
    infra = any(v == "infra" for v in grades.values())
    events = (SkillEvent(1, request.skills.target, "preloaded"),) if loaded and request.condition != "without" else ()
    result = RolloutResult(
        key=request.cache_key("h"),
        status="infra_error" if infra else "completed",
        end_reason="timeout" if infra else "final_answer",
        final_answer=None if infra else answer,
        trajectory={},
        usage=Usage(prompt_tokens=figures[0], completion_tokens=10, model_calls=figures[1], cost_usd=0.01),
        duration_s=figures[2],
        skill_events=events,
    )
    metrics = tuple(_grade(m, v) for m, v in grades.items())
    return RolloutRecord(request, result, "run", Grades("test", metrics))


def settings(design: TrialDesign, metric: str = "accuracy", bands: Bands | None = None) -> AnalysisSettings:
    gate = Bands(metric=metric) if bands is None else bands
    return AnalysisSettings(design, gate, priced=True, harness="builtin", model="m")


def trial(  # type: ignore[no-untyped-def]
    design: TrialDesign,
    outcomes: dict[str, Sequence[dict[str, Grade]]],
    cases: int,
    figures: dict[str, Figures] | None = None,
    *,
    bands: Bands | None = None,
    sequential: Sequence[SequentialLook] = (),
    **plan_options,
):
    """Run every condition's scripted grades through the analysis: ``outcomes[label][i]`` grades case i's runs.

    ``figures[label]`` is what every rollout of that condition spent (default: the same everywhere); ``bands``
    the gate's (default: the accuracy gate); ``sequential`` the looks a sequential trial took.
    """
    skill = rendered("marker")
    plan = plan_skill(skill, design, **plan_options)
    case_list = [EvalCase(id=f"c{i}", prompt=f"q{i}", expected_output="42") for i in range(cases)]
    requests = requests_for(
        plan,
        case_list,
        {},
        design,
        harness=HarnessSpec(name="builtin"),
        model=ModelSpec(provider="openai", model="m"),
        replicates=range(design.runs),
    )
    records = []
    for req in requests:
        per_case = outcomes[req.condition]
        grades = per_case[int(req.case.id[1:]) % len(per_case)]
        spent = (figures or {}).get(req.condition, SAME)
        answer = "42" if grades.get("accuracy") == 1.0 else "wrong"
        records.append(record(req, grades, answer=answer, figures=spent))
    table = RunTable.of([c.id for c in case_list], records, design.runs)
    inputs = SkillInputs(plan, "skills/marker", "skills/marker/evals/evals.json")
    return analyse_skill(table, inputs, settings(design, bands=bands), sequential)


def test_the_composite_of_a_pair_uses_only_the_metrics_graded_in_both_conditions() -> None:
    design = TrialDesign(runs=1)
    result = trial(
        design,
        {
            "with": [{"accuracy": 1.0, "skill_execution": 1.0}],
            "without": [{"accuracy": 0.0, "skill_execution": "na"}],
        },
        cases=12,
    )
    composite = result.lift["composite"]
    assert composite is not None
    # Over accuracy and skill efficiency (both spent the same: 1.0 each side); skill execution exists only in with.
    assert (composite.with_mean, composite.without_mean) == (1.0, 0.5)
    assert result.lift["skill_execution"] is None
    assert "does not apply here" in result.not_applicable["skill_execution"]
    assert result.verdict == "pass"


def test_skill_efficiency_is_graded_per_pair_against_the_paired_control() -> None:
    design = TrialDesign(runs=2)
    grades = [{"accuracy": 1.0}]
    # With the skill every rollout reads twice the prompt tokens, takes two turns and twice the time.
    result = trial(design, {"with": grades, "without": grades}, cases=10, figures={"with": (210, 2, 4.0)})
    efficiency = result.lift["skill_efficiency"]
    assert efficiency is not None
    assert efficiency.without_mean == 1.0, "the control spent no more than its partner"
    assert efficiency.with_mean == pytest.approx(((110 / 220) + 0.5 + 0.5) / 3)
    assert efficiency.delta == pytest.approx(efficiency.with_mean - 1.0) and efficiency.ci[1] < 0
    composite = result.lift["composite"]
    assert composite is not None and composite.delta == pytest.approx(efficiency.delta / 2), "accuracy ties"


def test_skill_efficiency_without_a_completed_partner_is_null_with_the_reason() -> None:
    design = TrialDesign(runs=1)
    result = trial(design, {"with": [{"accuracy": 1.0}], "without": [{"accuracy": "infra"}]}, cases=10)
    assert result.lift["skill_efficiency"] is None and result.lift["accuracy"] is None
    reason = result.not_applicable["skill_efficiency"]
    assert "the paired control did not complete (timeout)" in reason or "infrastructure error" in reason


def test_unscorable_runs_are_left_out_and_counted_never_scored_zero() -> None:
    design = TrialDesign(runs=2)
    result = trial(
        design,
        {"with": [{"accuracy": 1.0}, {"accuracy": None}], "without": [{"accuracy": 1.0}]},
        cases=10,
    )
    accuracy = result.lift["accuracy"]
    assert accuracy is not None
    assert accuracy.delta == 0.0, "an ungradable with-run must not count as a failure"
    assert accuracy.n_cases == 5 and accuracy.n_cases_excluded == 5


def test_triage_tells_a_with_condition_that_failed_to_score_from_a_skill_that_steered_wrong() -> None:
    design = TrialDesign(runs=1)
    result = trial(
        design,
        {
            "with": [{"accuracy": "infra"}, {"accuracy": 0.0}, {"accuracy": 1.0}],
            "without": [{"accuracy": 1.0}],
        },
        cases=9,
    )
    kinds = {case.case: case.triage for case in result.triage}
    assert kinds == {
        "c0": "no_score",
        "c3": "no_score",
        "c6": "no_score",
        "c1": "steered",
        "c4": "steered",
        "c7": "steered",
    }
    assert result.lift["accuracy"] is not None and result.lift["accuracy"].n_cases == 6
    failed = next(case for case in result.triage if case.case == "c0")
    assert failed.with_mean is None and "infrastructure error (timeout)" in failed.evidence[0]
    steered = next(case for case in result.triage if case.case == "c1")
    assert any("loaded the skill at step 1" in e and "'wrong'" in e for e in steered.evidence)


def test_triage_counts_a_case_whose_with_runs_mostly_gave_no_score() -> None:
    design = TrialDesign(runs=2)
    outcomes = {"with": [{"accuracy": 0.0}], "without": [{"accuracy": 1.0}]}
    skill = rendered("marker")
    plan = plan_skill(skill, design)
    cases = [EvalCase(id=f"c{i}", prompt=f"q{i}", expected_output="42") for i in range(4)]
    requests = requests_for(
        plan,
        cases,
        {},
        design,
        harness=HarnessSpec(name="builtin"),
        model=ModelSpec(provider="openai", model="m"),
        replicates=range(2),
    )
    records = []
    for req in requests:
        if req.condition == "with" and req.case.id == "c0" and req.replicate == 1:
            records.append(record(req, {"accuracy": "infra"}))
        else:
            records.append(record(req, outcomes[req.condition][0]))
    table = RunTable.of([c.id for c in cases], records, 2)
    result = analyse_skill(table, SkillInputs(plan, "skills/marker", "evals.json"), settings(design))
    c0 = next(case for case in result.triage if case.case == "c0")
    assert c0.triage == "steered"  # one of two with-runs scored (0.0): the answers were worse
    assert any("infrastructure error (timeout)" in e for e in c0.evidence)


def _triage_of(runs: int, per_case: dict[str, list[tuple[str, float, str, float]]]):  # type: ignore[no-untyped-def]
    """Triage of cases scripted run by run: ``per_case[case][r] = (with answer, with score, control answer, score)``."""
    design = TrialDesign(runs=runs)
    plan = plan_skill(rendered("marker"), design)
    cases = [EvalCase(id=c, prompt=f"q {c}", expected_output="42") for c in per_case]
    requests = requests_for(
        plan,
        cases,
        {},
        design,
        harness=HarnessSpec(name="builtin"),
        model=ModelSpec(provider="openai", model="m"),
        replicates=range(runs),
    )
    records = []
    for req in requests:
        w_answer, w_score, c_answer, c_score = per_case[req.case.id][req.replicate]
        mine = req.condition == "with"
        records.append(record(req, {"accuracy": w_score if mine else c_score}, answer=w_answer if mine else c_answer))
    table = RunTable.of(list(per_case), records, runs)
    return analyse_skill(table, SkillInputs(plan, "skills/marker", "evals.json"), settings(design)).triage


def test_triage_calls_no_case_steered_when_answers_match_or_run_noise_explains_the_gap() -> None:
    noisy = [("x", 1.0, "x", 1.0), ("y", 0.0, "y", 1.0), ("x", 1.0, "x", 1.0)]
    triage = _triage_of(
        3,
        {
            "same-answers": [("42", 0.0, "42", 1.0)] * 3,  # a grader that scored one string two ways
            "within-noise": noisy,  # 2/3 against 3/3 while other cases show runs flipping
            "noise-a": [("a", 1.0, "a", 0.0), ("b", 0.0, "b", 1.0), ("a", 1.0, "a", 0.0)],
            "steered": [("wrong", 0.0, "42", 1.0)] * 3,
        },
    )
    assert [case.case for case in triage] == ["steered"]
    evidence = triage[0].evidence
    assert [e.split(":")[0] for e in evidence] == [
        "with run 0",
        "with run 1",
        "with run 2",
        "without run 0",
        "without run 1",
        "without run 2",
    ], "every run of both conditions is listed"


def test_metadata_only_splits_the_total_lift_into_presence_and_content() -> None:
    design = TrialDesign(runs=2, metadata_only=True)
    result = trial(
        design,
        {
            "with": [{"accuracy": 1.0}],
            "metadata-only": [{"accuracy": 1.0}, {"accuracy": 0.0}],
            "without": [{"accuracy": 0.0}],
        },
        cases=10,
    )
    split = result.presence
    assert split is not None
    assert split.presence == pytest.approx(0.5) and split.content == pytest.approx(0.5)
    assert split.presence + split.content == pytest.approx(split.total)


def test_costs_count_every_rollout_of_the_design_and_a_dearer_skill_has_a_lift_per_dollar() -> None:
    design = TrialDesign(runs=1)
    result = trial(design, {"with": [{"accuracy": 1.0}], "without": [{"accuracy": 0.0}]}, cases=4)
    arms = {arm.arm: arm for arm in result.cost}
    assert arms["with"].rollouts == 4 and arms["with"].input_tokens == 400 and arms["with"].usd == pytest.approx(0.04)
    assert arms["with"].wall_s == pytest.approx(8.0)
    assert result.lift_per_dollar is not None and result.lift_per_dollar.lift_per_extra_usd is None


def test_the_estimand_states_the_six_axes_and_labels_a_small_sample() -> None:
    result = trial(TrialDesign(runs=1), {"with": [{"accuracy": 1.0}], "without": [{"accuracy": 0.0}]}, cases=6)
    assert set(result.estimand_axes) == {"contrast", "population", "unit", "budget", "summary", "identification"}
    assert "Small sample: 6 case(s)" in result.estimand
    assert "1 time(s) per condition" in result.estimand_axes["unit"]


def test_trigger_strata_split_the_lift_by_whether_the_skill_was_loaded() -> None:
    design = TrialDesign(runs=1)
    result = trial(design, {"with": [{"accuracy": 1.0}], "without": [{"accuracy": 0.0}]}, cases=5)
    assert result.trigger is not None
    assert result.trigger.rate == 1.0 and result.trigger.d_pair == 1.0 and result.trigger.d_skip is None
    assert result.trigger.tau is not None and math.isclose(result.trigger.tau, 1.0)


def test_each_case_row_carries_its_prompt_and_answers_cut_and_redacted() -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    long = "word " * 100
    design = TrialDesign(runs=1)
    plan = plan_skill(rendered("marker"), design)
    cases = [EvalCase(id="c0", prompt="q " * 200, expected_output="42")]
    requests = requests_for(
        plan,
        cases,
        {},
        design,
        harness=HarnessSpec(name="builtin"),
        model=ModelSpec(provider="openai", model="m"),
        replicates=range(1),
    )
    records = [
        record(
            req,
            {"accuracy": 1.0 if req.condition == "with" else 0.0},
            answer=f"key {token}" if req.condition == "with" else long,
        )
        for req in requests
    ]
    result = analyse_skill(
        RunTable.of(["c0"], records, 1), SkillInputs(plan, "skills/marker", "evals.json"), settings(design)
    )
    (row,) = result.cases
    assert row.with_scores == (1.0,) and row.control_scores == (0.0,)
    assert row.with_answer is not None and token not in row.with_answer and row.with_answer.startswith("key ")
    assert row.control_answer is not None and len(row.control_answer) <= 121 and row.control_answer.endswith("…")
    assert row.prompt is not None and row.prompt.startswith("q q") and row.prompt.endswith("…")
