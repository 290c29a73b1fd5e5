"""The minimal grader: does the final answer contain the case's expected output?

Comparison is :func:`aces_ci.evals.contains_phrase` (normalised text, the reference as a whole: ``12``
is not found in ``120``), the same rule as the ``contains`` mode of the accuracy metric. This is a
containment check, not a judge. Its one metric, ``expected_output``, is 1.0 or 0.0 (a rollout that
ended with no answer scores 0.0), and ``not_applicable`` when the case has no usable expected output.
"""

from __future__ import annotations

from ..evals import contains_phrase
from ._grader import GradingInput
from ._grades import Grades, MetricGrade

EXPECTED_OUTPUT = "expected_output"


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
        found = contains_phrase(answer or "", expected_output)
        if found is None:
            return MetricGrade.not_applicable(EXPECTED_OUTPUT, "the expected output is empty once normalised")
        if answer is None:
            return MetricGrade.graded(EXPECTED_OUTPUT, 0.0, "the agent gave no final answer")
        return MetricGrade.graded(EXPECTED_OUTPUT, 1.0 if found else 0.0)
