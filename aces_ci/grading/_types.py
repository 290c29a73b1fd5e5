"""The vocabulary of grading: what a grader reads about one rollout, and the grade it gives per metric.

A grade is a value in [0, 1] **or** a status saying why there is none. The distinction carries
the honesty of every lift built on it: a metric that cannot be scored on a rollout (no reference
answer, a judge that answered garbage, a judge API that died) is ``None`` with its reason, never
0, because an outage or a missing reference is not evidence against a skill.

Statuses:

``graded``           the value is set.
``not_applicable``   the metric asks a question this case or condition does not pose (no
                     reference answer; the skill under test is not staged, so whether the agent
                     loaded it measures nothing).
``could_not_grade``  the question applies but the evidence could not answer it (a judge whose
                     reply was unusable, checks that need a judge when none is configured, no
                     paired control figures).
``grader_error``     the grader itself failed (a judge API that is down after retries, a BYOG
                     command that crashed).

Everything here is plain frozen data over plain inputs (the case, the final answer, the ATIF
trajectory as a dict, skill events, the files the agent wrote as ``path → bytes``), so a grader
on any seam can call the metric functions without knowing the engine's types.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from ..agents import EndReason, RolloutResult, RolloutStatus, SkillEvent
from ..evals import EvalCase
from ..models import Usage
from ._actions import agent_turns
from ._grades import GradeStatus

MetricName = Literal["accuracy", "goal_accuracy", "skill_execution", "behavior_check", "skill_efficiency", "security"]
METRICS: tuple[str, ...] = get_args(MetricName)
"""The six ACES metrics, in the order reports list them."""
OUTCOME_METRICS: tuple[str, ...] = ("accuracy", "goal_accuracy")
"""The outcome-only view averages these two."""
Method = Literal["deterministic", "judge", "byog"]
Severity = Literal["critical", "warning", "info"]
Artifacts = Mapping[str, bytes | None]
"""Files the agent wrote or changed, by workspace-relative POSIX path; ``None``: the file is there but its
content was not kept (too large, a symlink, a special file)."""


@dataclass(frozen=True)
class Cost:
    """What grading spent on model calls: judges, or a BYOG grader that reports its cost."""

    usd: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    """Model calls made now; a judge answer read from the cache is not a call."""
    cached_calls: int = 0
    """Judge answers read from the judge cache instead of paid for."""

    def __add__(self, other: Cost) -> Cost:
        return Cost(
            self.usd + other.usd,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.calls + other.calls,
            self.cached_calls + other.cached_calls,
        )


FREE = Cost()


@dataclass(frozen=True)
class Check:
    """One piece of evidence behind a grade: an assertion, a subcheck, a finding."""

    name: str
    """The assertion as written, a subcheck (``activation``), or a finding kind (``destructive_command``)."""
    passed: bool | None
    """None when this check could not be decided (it needed a judge that gave no usable answer)."""
    detail: str = ""
    score: float | None = None
    """Partial credit, when the check gives it (activation through an acceptable skill: 0.75)."""
    method: Method = "deterministic"
    steps: tuple[int, ...] = ()
    """ATIF step ids the evidence comes from."""
    severity: Severity | None = None
    """For security findings."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "passed": self.passed, "method": self.method}
        if self.detail:
            out["detail"] = self.detail
        if self.score is not None:
            out["score"] = self.score
        if self.steps:
            out["steps"] = list(self.steps)
        if self.severity is not None:
            out["severity"] = self.severity
        return out


@dataclass(frozen=True)
class MetricResult:
    """The grade of one metric on one rollout: a value in [0, 1], or a status and its reason."""

    metric: str
    status: GradeStatus
    value: float | None
    reason: str
    """Why this value or status, in a sentence a skill author can act on."""
    checks: tuple[Check, ...] = ()
    cost: Cost = FREE
    grader: str = "aces-ci"
    """Who graded: ``aces-ci`` (deterministic rules), ``judge:<model>``, or ``byog:<grader>``."""

    def __post_init__(self) -> None:
        if (self.value is None) != (self.status != "graded"):
            raise ValueError(f"{self.metric}: a grade has a value exactly when its status is 'graded'")
        if self.value is not None and not 0.0 <= self.value <= 1.0:
            raise ValueError(f"{self.metric}: grade {self.value} is outside [0, 1]")

    @property
    def applies(self) -> bool:
        """Whether this grade enters means (composite, outcome, lift)."""
        return self.value is not None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, as ``schemas/grade.schema.json`` describes it."""
        out: dict[str, Any] = {
            "metric": self.metric,
            "status": self.status,
            "value": self.value,
            "reason": self.reason,
            "grader": self.grader,
            "checks": [check.to_dict() for check in self.checks],
        }
        if self.cost != FREE:
            out["cost"] = {
                "usd": round(self.cost.usd, 8),
                "prompt_tokens": self.cost.prompt_tokens,
                "completion_tokens": self.cost.completion_tokens,
                "calls": self.cost.calls,
                "cached_calls": self.cost.cached_calls,
            }
        return out


def graded(
    metric: str,
    value: float,
    reason: str,
    checks: tuple[Check, ...] = (),
    *,
    cost: Cost = FREE,
    grader: str = "aces-ci",
) -> MetricResult:
    """A grade with a value, clamped to [0, 1] and rounded to six places (reruns print the same digits)."""
    return MetricResult(metric, "graded", round(min(1.0, max(0.0, value)), 6), reason, checks, cost, grader)


def ungraded(
    metric: str,
    status: GradeStatus,
    reason: str,
    checks: tuple[Check, ...] = (),
    *,
    cost: Cost = FREE,
    grader: str = "aces-ci",
) -> MetricResult:
    return MetricResult(metric, status, None, reason, checks, cost, grader)


@dataclass(frozen=True)
class RolloutFigures:
    """What one rollout spent: the figures skill efficiency compares between paired rollouts."""

    tokens: int
    """Prompt (cached included) plus completion tokens over every model call."""
    turns: int
    """Model calls (agent turns)."""
    duration_s: float
    status: RolloutStatus = "completed"
    end_reason: EndReason = "final_answer"

    @classmethod
    def of(
        cls,
        usage: Usage,
        duration_s: float,
        status: RolloutStatus = "completed",
        end_reason: EndReason = "final_answer",
        trajectory: Mapping[str, Any] | None = None,
    ) -> RolloutFigures:
        """The figures of a rollout; turns fall back to the trajectory's agent steps when no model call was counted."""
        turns = usage.model_calls or (agent_turns(trajectory) if trajectory is not None else 0)
        return cls(usage.prompt_tokens + usage.completion_tokens, turns, duration_s, status, end_reason)


@dataclass(frozen=True)
class RolloutFacts:
    """Everything the six metrics read about one rollout, as plain data."""

    case: EvalCase
    skill: str
    """The skill under test, named in every condition whether it is staged or not."""
    skill_staged: bool
    """Whether the skill under test was in this rollout's workspace (False in the without-skill baseline)."""
    final_answer: str | None
    trajectory: Mapping[str, Any]
    """The ATIF document (schemas/atif.schema.json), secrets already redacted."""
    figures: RolloutFigures
    skill_events: tuple[SkillEvent, ...] = ()
    artifacts: Artifacts = field(default_factory=dict)
    """Files the agent wrote or changed in its workspace (staged files it left untouched are not here)."""
    artifacts_complete: bool = True
    """False when the capture stopped listing files at a cap: a file not listed may then exist."""
    workspace_root: str | None = None
    """The agent's working directory as it appears in the trajectory's paths, when known."""
    skill_files: frozenset[str] = frozenset()
    """Paths inside the skill under test (``SKILL.md``, ``scripts/fill.py``), so a check about one of
    them is recognised as a check about the skill even in a condition where it is not staged."""

    @property
    def completed(self) -> bool:
        return self.figures.status == "completed"

    @classmethod
    def from_result(
        cls,
        case: EvalCase,
        result: RolloutResult,
        *,
        skill: str,
        skill_staged: bool,
        artifacts: Artifacts | None = None,
        workspace_root: str | None = None,
        skill_files: frozenset[str] = frozenset(),
    ) -> RolloutFacts:
        """The grading view of a finished :class:`~aces_ci.agents.RolloutResult`."""
        return cls(
            case=case,
            skill=skill,
            skill_staged=skill_staged,
            final_answer=result.final_answer,
            trajectory=result.trajectory,
            figures=RolloutFigures.of(
                result.usage, result.duration_s, result.status, result.end_reason, result.trajectory
            ),
            skill_events=result.skill_events,
            artifacts=artifacts or {},
            workspace_root=workspace_root,
            skill_files=skill_files,
        )
