"""Grade one rollout: named metrics, each a value in [0, 1] or a status with its reason.

:class:`Grader` is the seam (the six ACES metrics, LLM judges and bring-your-own graders all
implement it); :func:`grade_rollout` is how the engine calls one; :class:`ExpectedOutputGrader`
is the minimal grader the ``rollout`` verb prints; :class:`GraderSuite` runs several as one.
"""

from ._expected_output import EXPECTED_OUTPUT, ExpectedOutputGrader, normalise
from ._grader import Grader, GradingInput, grade_rollout
from ._grades import GRADE_STATUSES, Grades, GradeStatus, MetricGrade
from ._suite import GraderSuite

__all__ = [
    "EXPECTED_OUTPUT",
    "GRADE_STATUSES",
    "ExpectedOutputGrader",
    "GradeStatus",
    "Grader",
    "GraderSuite",
    "Grades",
    "GradingInput",
    "MetricGrade",
    "grade_rollout",
    "normalise",
]
