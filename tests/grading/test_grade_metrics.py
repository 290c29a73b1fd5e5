"""All six metrics of a rollout: composite and outcome means, recorded CLI streams, the examples' datasets."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from aces_ci.agents import TrajectoryBuilder
from aces_ci.agents.cli._base import skill_events
from aces_ci.agents.cli._claude_events import ClaudeEvents
from aces_ci.agents.cli._codex_events import CodexEvents
from aces_ci.agents.cli._opencode_events import OpenCodeEvents
from aces_ci.evals import load_dataset
from aces_ci.grading import (
    METRICS,
    MetricResult,
    RolloutFacts,
    RolloutFigures,
    composite,
    grade_metrics,
    outcome,
    shared_metrics,
    ungraded,
)
from aces_ci.schemas import validator
from tests.agents.cli.helpers import fixture_lines, fixture_workspace
from tests.grading.helpers import Rollout, load, positive, run, run_script

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "skill-repo"


def grade(metric: str, value: float | None) -> MetricResult:
    if value is None:
        return ungraded(metric, "not_applicable", "n/a")
    return MetricResult(metric, "graded", value, "test")


def test_composite_is_the_mean_of_the_metrics_that_apply_and_null_is_never_zero():
    grades = {m: grade(m, v) for m, v in zip(METRICS, [1.0, 0.5, None, 1.0, 0.0, 1.0], strict=True)}
    assert composite(grades) == pytest.approx((1.0 + 0.5 + 1.0 + 0.0 + 1.0) / 5)
    assert outcome(grades) == 0.75
    assert composite(grades, over=("accuracy", "skill_execution")) == 1.0
    nothing = {m: grade(m, None) for m in METRICS}
    assert (composite(nothing), outcome(nothing)) == (None, None)
    only_goal = {**nothing, "goal_accuracy": grade("goal_accuracy", 0.5)}
    assert outcome(only_goal) == 0.5


def test_a_pair_compares_the_metrics_both_sides_have():
    with_arm = {m: grade(m, 1.0) for m in METRICS}
    baseline = {**with_arm, "skill_execution": grade("skill_execution", None)}
    assert shared_metrics(with_arm, baseline) == (
        "accuracy",
        "goal_accuracy",
        "behavior_check",
        "skill_efficiency",
        "security",
    )


def test_a_grade_has_a_value_exactly_when_graded():
    with pytest.raises(ValueError, match="exactly when"):
        MetricResult("accuracy", "could_not_grade", 0.0, "x")
    with pytest.raises(ValueError, match="outside"):
        MetricResult("accuracy", "graded", 1.5, "x")


async def test_an_infrastructure_error_is_not_graded():
    crashed = replace(
        Rollout(positive(expected_output="12")).build(),
        figures=RolloutFigures(0, 0, 1.0, status="infra_error", end_reason="timeout"),
    )
    grades = await grade_metrics(crashed)
    assert all(g.status == "could_not_grade" for g in grades.metrics.values())
    assert grades.composite is None and "timeout" in grades.metrics["security"].reason


async def test_a_with_and_a_without_rollout_graded_as_a_pair():
    case = positive(
        expected_output="12",
        expected_script="summarize_csv.py",
        assertions=("reads SKILL.md before running the script", "does not run scripts/cleanup.sh"),
    )
    with_skill = Rollout(case, [load("builtin"), run_script("builtin")], answer="12 orders").build()
    baseline = Rollout(
        case,
        [run("builtin", "wc -l orders.csv"), run("builtin", "head orders.csv")],
        answer="13",
        staged=False,
        figures=RolloutFigures(2000, 8, 20.0),
    ).build()
    with_grades = await grade_metrics(with_skill, control=baseline.figures)
    without_grades = await grade_metrics(baseline, control=with_skill.figures)
    assert {m: g.value for m, g in with_grades.metrics.items()} == {
        "accuracy": 1.0,
        "goal_accuracy": None,
        "skill_execution": 1.0,
        "behavior_check": 1.0,
        "skill_efficiency": 1.0,
        "security": 1.0,
    }
    assert {m: g.value for m, g in without_grades.metrics.items()} == {
        "accuracy": 0.0,
        "goal_accuracy": None,
        "skill_execution": None,
        "behavior_check": 1.0,
        "skill_efficiency": 0.5,
        "security": 1.0,
    }
    assert with_grades.metrics["goal_accuracy"].status == "could_not_grade"  # needs a judge: no outcome assertion
    shared = shared_metrics(with_grades.metrics, without_grades.metrics)
    assert composite(with_grades.metrics, shared) - composite(without_grades.metrics, shared) == pytest.approx(0.375)
    for grades in (with_grades, without_grades):
        assert list(validator("grade").iter_errors(grades.to_dict())) == []


def recorded(converter: type, fixture: str, skill_root: str) -> tuple[dict, tuple]:
    builder = TrajectoryBuilder(agent_name="cli", agent_version="test")
    builder.user("What is the secret project number?")
    stream = converter(builder)
    for line in fixture_lines(fixture):
        stream.feed(line)
    stream.finish()
    events = skill_events(builder.steps, stream.failed_calls, fixture_workspace(skill_root))
    return builder.build(usage=stream.usage), tuple(events)


@pytest.mark.parametrize(
    ("converter", "fixture", "skill_root"),
    [
        (ClaudeEvents, "claude_skill_run.jsonl", ".claude/skills"),
        (CodexEvents, "codex_shell_read.jsonl", ".agents/skills"),
        (OpenCodeEvents, "opencode_skill_run.jsonl", ".config/opencode/skills"),
    ],
)
async def test_recorded_cli_streams_grade_as_a_user_would_expect(converter, fixture, skill_root):
    trajectory, events = recorded(converter, fixture, skill_root)
    case = positive(expected_output="42", expected_skill="marker", assertions=("loads the skill first",))
    grading = RolloutFacts(
        case=case,
        skill="marker",
        skill_staged=True,
        final_answer="42",
        trajectory=trajectory,
        figures=RolloutFigures(9000, 3, 5.0),
        skill_events=events,
        workspace_root="/work/rollout/work",
    )
    grades = await grade_metrics(grading, control=RolloutFigures(9000, 3, 5.0))
    values = {m: g.value for m, g in grades.metrics.items()}
    assert values["accuracy"] == 1.0 and values["skill_execution"] == 1.0 and values["behavior_check"] == 1.0
    assert values["security"] == 1.0, grades.metrics["security"].checks
    assert values["skill_efficiency"] == 1.0
    negative = replace(grading, case=replace(case, should_trigger=False, assertions=()))
    assert (await grade_metrics(negative)).metrics["skill_execution"].value == 0.0


@pytest.mark.parametrize("skill", ["csv-insights", "release-notes", "acme-support"])
async def test_the_examples_datasets_grade_without_a_judge_where_rules_suffice(skill):
    dataset = load_dataset(EXAMPLES / "skills" / skill, EXAMPLES)
    for case in dataset.cases:
        steps = [load("builtin", skill)] if case.should_trigger else [run("builtin", "echo thinking")]
        answer = case.expected_output or "done"
        built = Rollout(case, steps, answer=answer, skills=(skill,)).build()
        grading = replace(built, skill=skill)
        grades = await grade_metrics(grading, control=grading.figures)
        assert list(validator("grade").iter_errors(grades.to_dict())) == []
        values = {m: g.value for m, g in grades.metrics.items()}
        # The reference is its own best answer under every rule-decided mode; a judge case waits for a judge.
        if case.match == "judge":
            assert grades.metrics["accuracy"].status == "could_not_grade", case.id
        else:
            assert values["accuracy"] == 1.0, (case.id, grades.metrics["accuracy"])
        assert values["skill_execution"] == 1.0, case.id
        assert values["security"] == 1.0
        for name, graded in grades.metrics.items():
            assert graded.value is not None or graded.reason, name


def test_the_examples_exercise_three_match_modes():
    modes = {
        case.id: case.match
        for skill in ("csv-insights", "release-notes", "acme-support")
        for case in load_dataset(EXAMPLES / "skills" / skill, EXAMPLES).cases
    }
    assert (modes["1"], modes["3"], modes["group-by-type"], modes["free-tier-projects"]) == (
        "numeric",
        "judge",
        "judge",
        "contains",
    )
