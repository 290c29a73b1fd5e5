"""What one ``run`` of the engine produced: each rollout's outcome, where it came from, its grades, what was not run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..agents import RolloutRequest, RolloutResult
from ..grading import Grades
from ..models import Usage
from ._budget import StopReason

RolloutSource = Literal["run", "cache", "journal", "session"]
"""``run``: executed by this call; ``cache``: found in the rollout cache; ``journal``: finished by an
earlier process that wrote the same journal; ``session``: finished by an earlier ``run`` call of
this same engine."""


@dataclass(frozen=True)
class RolloutRecord:
    request: RolloutRequest
    result: RolloutResult
    """The ungraded outcome, as the cache and the journal hold it."""
    source: RolloutSource
    grades: Grades | None = None
    """This call's grader's grades of it; None when the call was given no grader."""
    workspace: Path | None = None
    """The kept workspace (``keep_workspaces``); None when it was removed or never made."""

    @property
    def cache_hit(self) -> bool:
        return self.source == "cache"

    def value(self, metric: str) -> float | None:
        """The metric's graded value; None when ungraded, not graded or absent (see ``grades``)."""
        return self.grades.value(metric) if self.grades is not None else None


@dataclass(frozen=True)
class NotRun:
    """A requested rollout a budget cap or the tripped circuit breaker did not allow, or that was cancelled at the
    wall-time cap."""

    request: RolloutRequest
    key: str
    reason: StopReason


@dataclass(frozen=True)
class RolloutBatch:
    batch_id: str
    """The label of this call, recorded in every journal line it wrote (metadata only: the
    journal resumes by rollout key, whatever the batch)."""
    records: tuple[RolloutRecord, ...]
    """One per requested rollout that finished, in request order."""
    not_run: tuple[NotRun, ...] = ()
    stopped_by: StopReason | None = None
    """The cap (or ``circuit_breaker``) that left rollouts of this call unrun; None when every one ran (or came
    from a store)."""
    breaker: str | None = None
    """Why the circuit breaker tripped (errors in a row, the first one's reason) when it left rollouts unrun."""

    @property
    def usage(self) -> Usage:
        """The agent's tokens and dollars spent by this call (cache, journal and session hits were paid before)."""
        total = Usage()
        seen: set[str] = set()
        for record in self.records:
            if record.source == "run" and record.result.key not in seen:
                seen.add(record.result.key)
                total += record.result.usage
        return total

    @property
    def grading_usage(self) -> Usage:
        """What the graders (judges) spent on this call's records, each distinct request counted once."""
        total = Usage()
        seen: set[RolloutRequest] = set()
        for record in self.records:
            if record.grades is not None and record.request not in seen:
                seen.add(record.request)
                total += record.grades.usage
        return total

    @property
    def infra_errors(self) -> tuple[RolloutRecord, ...]:
        return tuple(r for r in self.records if r.result.status == "infra_error")

    @property
    def grader_errors(self) -> tuple[RolloutRecord, ...]:
        """Records with at least one ``grader_error`` metric: kept rollouts a regrade can finish."""
        return tuple(r for r in self.records if r.grades is not None and r.grades.errors)

    @property
    def all_completed(self) -> bool:
        """Every requested rollout ran to an end: none left out, none lost to infrastructure."""
        return not self.not_run and not self.infra_errors

    def for_condition(self, condition: str) -> tuple[RolloutRecord, ...]:
        return tuple(r for r in self.records if r.request.condition == condition)
