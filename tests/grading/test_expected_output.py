"""The minimal scorer: does the final answer contain the expected output?"""

from __future__ import annotations

import pytest

from aces_ci.agents import RolloutResult
from aces_ci.grading import ExpectedOutputScorer, Scorer, normalise
from aces_ci.models import Usage
from tests.engine.helpers import case


def finished(answer: str | None, status: str = "completed") -> RolloutResult:
    return RolloutResult("k" * 64, status, "final_answer", answer, {}, Usage(), 1.0)  # type: ignore[arg-type]


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
    assert await ExpectedOutputScorer().score(case(expected=expected), finished(answer)) == score


async def test_no_answer_at_all_scores_zero() -> None:
    assert await ExpectedOutputScorer().score(case(expected="42"), finished(None)) == 0.0


async def test_nothing_to_compare_with_is_not_a_score() -> None:
    scorer = ExpectedOutputScorer()
    assert await scorer.score(case(expected=None), finished("42")) is None
    assert await scorer.score(case(expected=" ... "), finished("42")) is None


async def test_an_infra_error_is_never_scored_as_a_failure() -> None:
    assert await ExpectedOutputScorer().score(case(expected="42"), finished(None, "infra_error")) is None


def test_normalise_strips_edge_punctuation_but_keeps_inner() -> None:
    assert normalise('  "Hello,   World!" ') == "hello, world"
    assert normalise("(v1.2.3)") == "v1.2.3"


def test_the_scorer_meets_the_protocol() -> None:
    assert isinstance(ExpectedOutputScorer(), Scorer)
