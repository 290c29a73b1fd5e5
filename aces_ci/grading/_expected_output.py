"""The minimal grader: does the final answer contain the case's expected output?

Comparison is on normalised text, so an answer is not failed for typography:

* Unicode compatibility forms are folded (NFKC) and case is folded (``casefold``);
* every run of whitespace becomes one space;
* punctuation and symbols at either end are stripped (``"Paris."`` matches ``paris``), while
  punctuation inside is kept (``3.14`` still differs from ``314``).

The expected output must appear inside the answer as a whole: not as part of a longer word or
number (``12`` is not found in ``120``). This is a containment check, not a judge. Its one metric,
``expected_output``, is 1.0 or 0.0 (a rollout that ended with no answer scores 0.0), and
``not_applicable`` when the case has no usable expected output.
"""

from __future__ import annotations

import re
import unicodedata

from ._grader import GradingInput
from ._grades import Grades, MetricGrade

EXPECTED_OUTPUT = "expected_output"


def normalise(text: str) -> str:
    """``text`` folded for comparison as described in the module docstring."""
    folded = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    start, end = 0, len(folded)
    while start < end and _is_edge_noise(folded[start]):
        start += 1
    while end > start and _is_edge_noise(folded[end - 1]):
        end -= 1
    return folded[start:end]


def _is_edge_noise(char: str) -> bool:
    return char.isspace() or unicodedata.category(char)[0] in ("P", "S")


class ExpectedOutputGrader:
    """``expected_output``: 1.0 when the normalised final answer contains the normalised expected output."""

    name: str = "expected-output-contains"
    metrics: tuple[str, ...] = (EXPECTED_OUTPUT,)

    async def grade(self, rollout: GradingInput) -> Grades:
        return Grades(self.name, (self.grade_answer(rollout.case.expected_output, rollout.final_answer),))

    @staticmethod
    def grade_answer(expected_output: str | None, answer: str | None) -> MetricGrade:
        if expected_output is None:
            return MetricGrade.not_applicable(EXPECTED_OUTPUT, "the case gives no expected output")
        expected = normalise(expected_output)
        if not expected:
            return MetricGrade.not_applicable(EXPECTED_OUTPUT, "the expected output is empty once normalised")
        if answer is None:
            return MetricGrade.graded(EXPECTED_OUTPUT, 0.0, "the agent gave no final answer")
        pattern = rf"(?<!\w){re.escape(expected)}(?!\w)"
        return MetricGrade.graded(EXPECTED_OUTPUT, 1.0 if re.search(pattern, normalise(answer)) else 0.0)
