"""What a trial grades each rollout on: the metrics, through the engine's grading seam.

The trial is generic over metric names: it reads every metric a :class:`~aces_ci.grading.Grader`
declares from each rollout's grades, and adds the pair-level and derived ones itself (see
:mod:`aces_ci.trials._table`). :func:`trial_grader` is the one place that decides which graders a
trial runs. Accuracy is the ``contains`` rule of :class:`~aces_ci.grading.ExpectedOutputGrader`
(the normalised answer holds the reference as a whole), the default match of ACES's accuracy.
"""

from __future__ import annotations

from ..grading import ExpectedOutputGrader, Grader, Grades, GradingInput, MetricGrade

ACCURACY = "accuracy"


class AccuracyGrader:
    """``accuracy``: the reference answer contained in the final answer, as a whole (1.0 or 0.0)."""

    name: str = "accuracy-contains"
    metrics: tuple[str, ...] = (ACCURACY,)

    async def grade(self, rollout: GradingInput) -> Grades:
        grade = ExpectedOutputGrader.grade_answer(rollout.case.expected_output, rollout.final_answer)
        return Grades(self.name, (MetricGrade(ACCURACY, grade.status, grade.value, grade.reason),))


def trial_grader() -> Grader:
    """The grader every rollout of a trial is graded with."""
    return AccuracyGrader()
