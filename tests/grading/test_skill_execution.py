"""Skill execution from skill events, in the tool vocabulary of every harness."""

from __future__ import annotations

from dataclasses import replace

import pytest

from aces_ci.agents import SkillEvent
from aces_ci.grading import grade_skill_execution
from tests.grading.helpers import HARNESSES, SKILL, Rollout, load, negative, positive, read, run, run_script, skill_dir


@pytest.mark.parametrize("harness", HARNESSES)
def test_loading_then_running_the_expected_script_scores_one(harness):
    case = positive(expected_script="summarize_csv.py")
    grade = grade_skill_execution(Rollout(case, [load(harness), run_script(harness)], harness=harness).build())
    assert grade.value == 1.0
    assert [c.name for c in grade.checks] == ["activation", "script", "order"]
    assert grade.checks[0].steps == (2,)


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_skill_never_loaded_scores_zero(harness):
    grade = grade_skill_execution(Rollout(positive(), [read(harness, "orders.csv")], harness=harness).build())
    assert grade.value == 0.0
    assert grade.checks[0].detail == f"{SKILL} was never loaded"


def test_only_an_acceptable_alternate_loaded_earns_three_quarters():
    case = positive(acceptable_skills=("data-profiler",))
    rollout = Rollout(
        case, [load("claude-code", "data-profiler")], harness="claude-code", skills=(SKILL, "data-profiler")
    )
    grade = grade_skill_execution(rollout.build())
    assert grade.value == 0.75
    assert "acceptable skill data-profiler" in grade.checks[0].detail


def test_running_the_script_before_reading_the_skill_loses_the_order_subcheck():
    case = positive(expected_script="summarize_csv.py")
    grade = grade_skill_execution(Rollout(case, [run_script("opencode"), load("opencode")], harness="opencode").build())
    scores = {c.name: c.score for c in grade.checks}
    assert scores == {"activation": 1.0, "script": 1.0, "order": 0.0}
    assert grade.value == pytest.approx(2 / 3, abs=1e-6)


def test_a_script_that_failed_every_time_earns_half_the_script_subcheck():
    case = positive(expected_script="scripts/summarize_csv.py")
    failing = run("builtin", f"python3 {skill_dir('builtin')}/scripts/summarize_csv.py x.csv", "boom", failed=True)
    grade = grade_skill_execution(Rollout(case, [load("builtin"), failing]).build())
    assert {c.name: c.score for c in grade.checks}["script"] == 0.5


def test_the_expected_script_never_run_scores_zero_on_that_subcheck():
    case = positive(expected_script="summarize_csv.py")
    grade = grade_skill_execution(Rollout(case, [load("codex")], harness="codex").build())
    assert {c.name: c.score for c in grade.checks} == {"activation": 1.0, "script": 0.0}
    assert grade.value == 0.5


def test_no_expected_script_means_no_free_subcheck():
    grade = grade_skill_execution(Rollout(positive(), [load("builtin")]).build())
    assert [c.name for c in grade.checks] == ["activation"] and grade.value == 1.0


@pytest.mark.parametrize("harness", HARNESSES)
def test_on_a_negative_case_loading_the_skill_is_the_failure(harness):
    grade = grade_skill_execution(Rollout(negative(), [load(harness)], harness=harness).build())
    assert grade.value == 0.0
    assert "should not trigger" in grade.reason
    assert grade_skill_execution(Rollout(negative(), [read(harness, "q.sql")], harness=harness).build()).value == 1.0


def test_on_a_negative_case_a_preload_is_not_the_agents_choice():
    rollout = Rollout(negative(), []).build()
    preloaded = replace(rollout, skill_events=(SkillEvent(1, SKILL, "preloaded", "SKILL.md"),))
    assert grade_skill_execution(preloaded).value == 1.0
    assert grade_skill_execution(replace(preloaded, case=positive())).value == 1.0


def test_the_baseline_and_unlabelled_cases_are_not_applicable_never_zero():
    baseline = grade_skill_execution(Rollout(positive(), [], staged=False).build())
    assert (baseline.status, baseline.value) == ("not_applicable", None)
    assert "not staged" in baseline.reason
    unlabelled = grade_skill_execution(Rollout(positive(should_trigger=None), [load("builtin")]).build())
    assert unlabelled.status == "not_applicable"
