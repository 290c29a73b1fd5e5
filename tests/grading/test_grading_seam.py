"""The grading seam: metric grades with statuses, the engine's safe call, and several graders as one."""

from __future__ import annotations

import logging
import math

import pytest

from aces_ci.agents import RolloutResult
from aces_ci.errors import ConfigError
from aces_ci.grading import (
    EXPECTED_OUTPUT,
    ExpectedOutputGrader,
    Grader,
    GraderSuite,
    Grades,
    GradingInput,
    MetricGrade,
    grade_rollout,
)
from aces_ci.models import Usage
from tests.engine.helpers import request


def rollout(status: str = "completed", answer: str | None = "42") -> GradingInput:
    reason = "final_answer" if status == "completed" else "timeout"
    result = RolloutResult("k" * 64, status, reason, answer, {}, Usage(), 1.0)  # type: ignore[arg-type]
    return GradingInput(request("with"), result)


class Scripted:
    """A grader that answers what it is told to, or raises it; counts its calls."""

    def __init__(self, name: str, metrics: tuple[str, ...], answer: Grades | Exception) -> None:
        self.name = name
        self.metrics = metrics
        self.answer = answer
        self.calls = 0

    async def grade(self, rollout: GradingInput) -> Grades:
        self.calls += 1
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


JUDGE_COST = Usage(prompt_tokens=900, completion_tokens=40, cost_usd=0.003, model_calls=1)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: MetricGrade.graded("accuracy", 1.5), "outside"),
        (lambda: MetricGrade.graded("accuracy", math.nan), "finite"),
        (lambda: MetricGrade("accuracy", "graded", True), "finite"),  # type: ignore[arg-type]
        (lambda: MetricGrade("accuracy", "graded"), "finite"),
        (lambda: MetricGrade.not_applicable("accuracy", ""), "needs a reason"),
        (lambda: MetricGrade("accuracy", "grader_error", 0.0, "down"), "has no value"),
        (lambda: MetricGrade("accuracy", "skipped", None, "x"), "unknown grade status"),  # type: ignore[arg-type]
        (lambda: MetricGrade.graded(" ", 1.0), "printable name"),
        (lambda: Grades("g", (MetricGrade.graded("a", 1.0), MetricGrade.graded("a", 0.0))), "twice"),
    ],
)
def test_a_grade_is_a_value_in_0_1_or_a_status_with_its_reason(make, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        make()


def test_grades_read_back_by_metric() -> None:
    grades = Grades(
        "g",
        (MetricGrade.graded("accuracy", 1), MetricGrade.grader_error("goal_accuracy", "judge down")),
        JUDGE_COST,
    )
    assert grades.value("accuracy") == 1.0 and isinstance(grades.value("accuracy"), float)
    assert grades.value("goal_accuracy") is None and grades.value("absent") is None
    assert [g.metric for g in grades.errors] == ["goal_accuracy"]


async def test_a_rollout_that_never_ended_is_not_shown_to_the_grader() -> None:
    grader = Scripted("g", ("accuracy", "security"), Grades("g", ()))
    grades = await grade_rollout(grader, rollout("infra_error"))
    assert grader.calls == 0
    assert [(g.metric, g.status) for g in grades.metrics] == [
        ("accuracy", "could_not_grade"),
        ("security", "could_not_grade"),
    ]
    assert grades.metrics[0].reason == "the rollout ended as an infrastructure error (timeout)"


async def test_a_failing_grader_costs_its_grades_never_the_rollout() -> None:
    grades = await grade_rollout(Scripted("judge", ("accuracy",), TimeoutError("judge timed out")), rollout())
    assert grades == Grades("judge", (MetricGrade.grader_error("accuracy", "TimeoutError: judge timed out"),))


async def test_a_grader_errors_reason_never_carries_a_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    key = "judge-key-Zq81mWx2Lk93Pv"
    monkeypatch.setenv("JUDGE_API_KEY", key)
    grades = await grade_rollout(Scripted("judge", ("accuracy",), RuntimeError(f"401: bad key {key}")), rollout())
    reason = grades.metrics[0].reason or ""
    assert key not in reason and reason.startswith("RuntimeError: 401: bad key [REDACTED")


async def test_a_judge_without_its_key_is_a_config_error_for_the_user() -> None:
    with pytest.raises(ConfigError, match="JUDGE_KEY"):
        await grade_rollout(Scripted("judge", ("accuracy",), ConfigError("set JUDGE_KEY")), rollout())


async def test_every_declared_metric_is_answered_and_undeclared_ones_are_left_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    answer = Grades("judge", (MetricGrade.graded("bonus", 1.0), MetricGrade.graded("security", 0.5)), JUDGE_COST)
    with caplog.at_level(logging.WARNING):
        grades = await grade_rollout(Scripted("judge", ("accuracy", "security"), answer), rollout())
    assert grades.metrics == (
        MetricGrade.grader_error("accuracy", "the grader returned no grade for this metric"),
        MetricGrade.graded("security", 0.5),
    )
    assert grades.usage == JUDGE_COST and "undeclared metrics ['bonus']" in caplog.text


async def test_a_suite_grades_with_every_member_and_one_failure_costs_only_its_metrics() -> None:
    judge = Scripted("judge", ("accuracy", "goal_accuracy"), RuntimeError("unparseable reply"))
    behaved = Grades("paid", (MetricGrade.graded("behavior_check", 1.0),), JUDGE_COST)
    paid = Scripted("paid", ("behavior_check",), behaved)
    suite = GraderSuite(ExpectedOutputGrader(), judge, paid)
    assert isinstance(suite, Grader)
    assert suite.metrics == (EXPECTED_OUTPUT, "accuracy", "goal_accuracy", "behavior_check")
    grades = await grade_rollout(suite, rollout())
    assert [(g.metric, g.status) for g in grades.metrics] == [
        (EXPECTED_OUTPUT, "graded"),
        ("accuracy", "grader_error"),
        ("goal_accuracy", "grader_error"),
        ("behavior_check", "graded"),
    ]
    assert grades.grader == "expected-output-contains+judge+paid" and grades.usage == JUDGE_COST


def test_a_suite_refuses_two_graders_of_one_metric() -> None:
    with pytest.raises(ConfigError, match="'accuracy' is graded by both 'a' and 'b'"):
        GraderSuite(Scripted("a", ("accuracy",), Grades("a", ())), Scripted("b", ("accuracy",), Grades("b", ())))
