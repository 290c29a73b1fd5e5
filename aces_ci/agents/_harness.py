"""The seam between the rollout engine and whatever runs the agent.

A harness runs one case in one already-staged workspace and reports what happened as an ATIF
trajectory. The built-in tool loop and the CLI adapters (Claude Code, Codex, OpenCode) all
implement :class:`Harness`; the engine treats them alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..models import Usage
from ._types import EndReason, HarnessName, RolloutRequest, SkillEvent


@dataclass(frozen=True)
class Workspace:
    """A fresh directory tree for one rollout."""

    root: Path
    """The agent's working directory: the case's fixture files live here."""
    home: Path
    """A throwaway HOME (CLI harnesses write their config and sessions there)."""
    skill_dirs: Mapping[str, Path]
    """Staged skill name → its directory, wherever this harness looks for skills."""
    staged: Mapping[str, bytes] = field(default_factory=dict)
    """Every file staged under ``root`` (root-relative path → bytes): what the agent found there.
    Anything else under ``root`` when the rollout ends, the agent wrote (see ``capture_artifacts``)."""


@dataclass(frozen=True)
class HarnessOutcome:
    """What a harness reports for one rollout; the engine adds identity, timing and the workspace's artifacts."""

    end_reason: EndReason
    final_answer: str | None
    trajectory: Mapping[str, Any]
    """ATIF-v1.7 document, already redacted."""
    usage: Usage
    skill_events: tuple[SkillEvent, ...] = ()
    infra_error: str | None = None
    """Set when the rollout failed for reasons outside the skill (API down, CLI crashed, timeout)."""


@runtime_checkable
class Harness(Protocol):
    name: HarnessName

    def version(self) -> str:
        """The harness build as a trajectory's ``agent.version`` reports it (for people, not keys)."""
        ...

    def cache_identity(self) -> str:
        """What of the harness changes what an agent does; part of every cache key, so a change misses.

        Only what matters: the built-in harness names its loop protocol, not the aces-ci release, so a
        release that leaves the loop alone keeps every cached rollout.
        """
        ...

    def skill_root(self, workspace_root: Path, home: Path) -> Path:
        """The directory under which this harness discovers skills (each staged as ``<root>/<name>/``)."""
        ...

    async def run(self, request: RolloutRequest, workspace: Workspace) -> HarnessOutcome:
        """Run the case to its end. Must not raise for agent behaviour; infra failures go in ``infra_error``."""
        ...
