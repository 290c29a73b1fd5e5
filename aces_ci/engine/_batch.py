"""What a batch of rollouts produced: each rollout's result and where it came from, and what was not run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..agents import Arm, RolloutRequest, RolloutResult
from ..models import Usage
from ._budget import StopReason

RolloutSource = Literal["run", "cache", "journal"]
"""``run``: executed now; ``cache``: found in the rollout cache; ``journal``: finished by an earlier,
interrupted attempt at this same batch."""


@dataclass(frozen=True)
class RolloutRecord:
    request: RolloutRequest
    result: RolloutResult
    source: RolloutSource
    workspace: Path | None = None
    """The kept workspace (``keep_workspaces``); None when it was removed or never made."""

    @property
    def cache_hit(self) -> bool:
        return self.source == "cache"


@dataclass(frozen=True)
class NotRun:
    """A requested rollout the budget did not allow, or that was cancelled at the wall-time cap."""

    request: RolloutRequest
    key: str
    reason: StopReason


@dataclass(frozen=True)
class RolloutBatch:
    run_id: str
    """Identity of this batch (its rollout keys and scorer): what the journal resumes by."""
    records: tuple[RolloutRecord, ...]
    """One per requested rollout that finished, in request order."""
    not_run: tuple[NotRun, ...] = ()
    stopped_by: StopReason | None = None

    @property
    def usage(self) -> Usage:
        """Tokens and dollars spent by this invocation (cache and journal hits were paid before)."""
        total = Usage()
        seen: set[str] = set()
        for record in self.records:
            if record.source == "run" and record.result.key not in seen:
                seen.add(record.result.key)
                total += record.result.usage
        return total

    @property
    def infra_errors(self) -> tuple[RolloutRecord, ...]:
        return tuple(r for r in self.records if r.result.status == "infra_error")

    @property
    def all_completed(self) -> bool:
        """Every requested rollout ran to an end: none left out, none lost to infrastructure."""
        return not self.not_run and not self.infra_errors

    def for_arm(self, arm: Arm) -> tuple[RolloutRecord, ...]:
        return tuple(r for r in self.records if r.request.arm == arm)
