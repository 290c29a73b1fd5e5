"""What a grader says about one rollout: named metric grades, each a value or a status with its reason.

A trial reports several metrics per rollout (ACES has six), and each can fail to exist for its
own reason; a single number cannot say which. So every metric carries a status:

* ``graded`` — ``value`` in [0, 1] (1 is best);
* ``not_applicable`` — the metric does not apply to this case (no expected output to compare
  with, a negative case for a skill-use metric). Left out of every mean: it is neither a pass nor
  a failure;
* ``could_not_grade`` — the metric applies, but this rollout gives nothing to grade it on: the
  rollout ended as an infrastructure error, or the file the grader needs was not captured;
* ``grader_error`` — the grader itself failed (a judge API down, an unparseable judge reply, a
  bug). The rollout is kept; grading it again later costs no agent call.

None of the three is ever coerced to 0: an outage is not evidence against a skill.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal, get_args

from ..models import Usage

GradeStatus = Literal["graded", "not_applicable", "could_not_grade", "grader_error"]
GRADE_STATUSES: tuple[str, ...] = get_args(GradeStatus)


@dataclass(frozen=True)
class MetricGrade:
    """One metric of one rollout. Build with :meth:`graded` or one of the status constructors."""

    metric: str
    status: GradeStatus
    value: float | None = None
    """In [0, 1] when ``status`` is ``graded``; None otherwise."""
    reason: str | None = None
    """Why: required unless graded (a judge's rationale may ride along on a graded one)."""

    def __post_init__(self) -> None:
        if not isinstance(self.metric, str) or not self.metric.strip() or not self.metric.isprintable():
            raise ValueError(f"a metric needs a printable name, got {self.metric!r}")
        if self.status not in GRADE_STATUSES:
            raise ValueError(f"metric {self.metric!r}: unknown grade status {self.status!r}")
        if self.status == "graded":
            value = self.value
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise ValueError(f"metric {self.metric!r}: a graded metric needs a finite number, got {value!r}")
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"metric {self.metric!r}: value {value} is outside [0, 1]")
            object.__setattr__(self, "value", float(value))
        else:
            if self.value is not None:
                raise ValueError(f"metric {self.metric!r}: a {self.status} grade has no value")
            if not self.reason:
                raise ValueError(f"metric {self.metric!r}: a {self.status} grade needs a reason")

    @classmethod
    def graded(cls, metric: str, value: float, reason: str | None = None) -> MetricGrade:
        return cls(metric, "graded", value, reason)

    @classmethod
    def not_applicable(cls, metric: str, reason: str) -> MetricGrade:
        return cls(metric, "not_applicable", None, reason)

    @classmethod
    def could_not_grade(cls, metric: str, reason: str) -> MetricGrade:
        return cls(metric, "could_not_grade", None, reason)

    @classmethod
    def grader_error(cls, metric: str, reason: str) -> MetricGrade:
        return cls(metric, "grader_error", None, reason)


@dataclass(frozen=True)
class Grades:
    """Every metric one grader gave one rollout, and what grading cost (a judge's tokens and dollars)."""

    grader: str
    metrics: tuple[MetricGrade, ...]
    """One per metric the grader declares, in its declared order."""
    usage: Usage = field(default_factory=Usage)
    """Model use of the grader itself (zero for a deterministic grader); never the agent's."""

    def __post_init__(self) -> None:
        names = [grade.metric for grade in self.metrics]
        if len(set(names)) != len(names):
            raise ValueError(f"grader {self.grader!r} graded a metric twice: {names}")

    def get(self, metric: str) -> MetricGrade | None:
        return next((grade for grade in self.metrics if grade.metric == metric), None)

    def value(self, metric: str) -> float | None:
        """The metric's value when graded; None when absent or not graded (see its status)."""
        grade = self.get(metric)
        return grade.value if grade is not None else None

    @property
    def errors(self) -> tuple[MetricGrade, ...]:
        """The ``grader_error`` grades: what a later regrade could still fill in."""
        return tuple(grade for grade in self.metrics if grade.status == "grader_error")
