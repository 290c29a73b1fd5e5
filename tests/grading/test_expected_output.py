"""The minimal grader: does the final answer contain the expected output?"""

from __future__ import annotations

import pytest

from aces_ci.agents import RolloutResult
from aces_ci.grading import (
    EXPECTED_OUTPUT,
    ExpectedOutputGrader,
    Grader,
    GradingInput,
    MetricGrade,
    grade_rollout,
    normalise,
)
from aces_ci.models import Usage
from tests.engine.helpers import case, request


def finished(answer: str | None, status: str = "completed") -> RolloutResult:
    reason = "final_answer" if status == "completed" else "retries_exhausted"
    return RolloutResult("k" * 64, status, reason, answer, {}, Usage(), 1.0)  # type: ignore[arg-type]


async def grade(expected: str | None, answer: str | None, status: str = "completed") -> MetricGrade:
    rollout = GradingInput(request("with", eval_case=case(expected=expected)), finished(answer, status))
    grades = await grade_rollout(ExpectedOutputGrader(), rollout)
    assert [g.metric for g in grades.metrics] == [EXPECTED_OUTPUT] and grades.usage == Usage()
    return grades.metrics[0]


@pytest.mark.parametrize(
    ("expected", "answer", "score"),
    [
        ("Paris", "The capital of France is paris.", 1.0),
        ("Paris.", "PARIS", 1.0),
        ("  ORCA-7 ", "Give the code ORCA-7 when you call.", 1.0),
        ("12 projects", "It allows 12\n   projects in total", 1.0),
        ("１２", "12", 1.0),  # full-width digits fold to ASCII
        ("12", "The free tier allows 120 projects.", 0.0),
        ("ORCA-7", "Say ORCA-71.", 0.0),
        ("3.14", "roughly 314", 0.0),
        ("Paris", "I do not know.", 0.0),
        ("42", "", 0.0),
    ],
)
async def test_containment_after_normalisation(expected: str, answer: str, score: float) -> None:
    assert await grade(expected, answer) == MetricGrade.graded(EXPECTED_OUTPUT, score)


async def test_no_answer_at_all_scores_zero() -> None:
    grade_of_silence = await grade("42", None)
    assert (grade_of_silence.status, grade_of_silence.value) == ("graded", 0.0)
    assert grade_of_silence.reason == "the agent gave no final answer"


async def test_nothing_to_compare_with_is_not_applicable_never_a_score() -> None:
    for expected in (None, " ... "):
        nothing = await grade(expected, "42")
        assert (nothing.status, nothing.value) == ("not_applicable", None) and nothing.reason


async def test_an_infra_error_is_never_graded_as_a_failure() -> None:
    outage = await grade("42", None, "infra_error")
    assert (outage.status, outage.value) == ("could_not_grade", None)
    assert outage.reason == "the rollout ended as an infrastructure error (retries_exhausted)"


def test_normalise_strips_edge_punctuation_but_keeps_inner() -> None:
    assert normalise('  "Hello,   World!" ') == "hello, world"
    assert normalise("(v1.2.3)") == "v1.2.3"


def test_the_grader_meets_the_protocol() -> None:
    assert isinstance(ExpectedOutputGrader(), Grader)
