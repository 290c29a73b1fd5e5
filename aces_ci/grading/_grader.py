"""The seam between a finished rollout and its grades, and the one safe way the engine calls it.

A grader receives a :class:`GradingInput` — the request (case, condition, replicate, seed, the
skill under test), and the ungraded result: final answer, ATIF trajectory, usage, skill events
and the workspace artifacts (files the agent wrote, captured before the workspace was removed) —
and returns :class:`Grades` for the metrics it declares. It may be called again, on the same
rollout, by a later run: results are cached ungraded, so grading is always recomputed and a new
grader costs no agent call.

:func:`grade_rollout` is how the engine calls one: it never asks a grader about a rollout that
ended as an infrastructure error (every metric is ``could_not_grade``), turns a grader's
exception into ``grader_error`` grades for all its metrics, and makes every answer cover exactly
the declared metrics. A :class:`~aces_ci.errors.ConfigError` (a judge without its key) is the
user's to fix and would fail every rollout alike, so it propagates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..agents import RolloutRequest, RolloutResult, WorkspaceArtifacts
from ..errors import ConfigError
from ..evals import EvalCase
from ..redact import environment_secrets, get_logger, redact_text
from ._grades import Grades, MetricGrade

_log = get_logger(__name__)


@dataclass(frozen=True)
class GradingInput:
    """One rollout as a grader sees it."""

    request: RolloutRequest
    result: RolloutResult

    @property
    def case(self) -> EvalCase:
        return self.request.case

    @property
    def artifacts(self) -> WorkspaceArtifacts:
        return self.result.artifacts

    @property
    def final_answer(self) -> str | None:
        return self.result.final_answer

    @property
    def trajectory(self) -> Mapping[str, Any]:
        return self.result.trajectory


@runtime_checkable
class Grader(Protocol):
    name: str
    """Stable identifier, reported with its grades."""
    metrics: tuple[str, ...]
    """The metrics every call returns, each graded or with a status."""

    async def grade(self, rollout: GradingInput) -> Grades:
        """Grades for a completed rollout; raise (or return ``grader_error`` grades) when grading fails."""
        ...


async def grade_rollout(grader: Grader, rollout: GradingInput) -> Grades:
    """``grader``'s grades of ``rollout``, one per declared metric, whatever the grader does."""
    result = rollout.result
    if result.status != "completed":
        reason = f"the rollout ended as an infrastructure error ({result.end_reason})"
        return Grades(grader.name, tuple(MetricGrade.could_not_grade(m, reason) for m in grader.metrics))
    try:
        grades = await grader.grade(rollout)
    except ConfigError:
        raise
    except Exception as exc:  # a failing grader costs its grades, never the paid rollout
        _log.debug("grader %s failed", grader.name, exc_info=True)
        reason = redact_text(f"{type(exc).__name__}: {exc}", environment_secrets())  # a judge's error may echo a key
        return Grades(grader.name, tuple(MetricGrade.grader_error(m, reason) for m in grader.metrics))
    return _covering(grader, grades)


def _covering(grader: Grader, grades: Grades) -> Grades:
    """``grades`` reduced to the declared metrics, a missing one filled in as a grader error."""
    declared = set(grader.metrics)
    extra = [grade.metric for grade in grades.metrics if grade.metric not in declared]
    if extra:
        _log.warning("grader %s returned undeclared metrics %s; they are left out", grader.name, extra)
    by_name = {grade.metric: grade for grade in grades.metrics}
    metrics = tuple(
        by_name.get(metric) or MetricGrade.grader_error(metric, "the grader returned no grade for this metric")
        for metric in grader.metrics
    )
    return Grades(grader.name, metrics, grades.usage)
