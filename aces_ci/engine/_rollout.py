"""One rollout, start to finish: stage its workspace, run the harness, capture what the agent wrote.

Everything here is about a single rollout and nothing about batches, stores or budgets; the
engine decides what to run and what to keep. What this module guarantees for each rollout:

* it ends ``completed`` or ``infra_error`` with a labelled reason, whatever the harness does: a
  harness that hangs is cut at its ``timeout_s`` (plus :data:`TIMEOUT_GRACE_S` for a cooperative
  harness to hand back its own partial trajectory), one that crashes costs this rollout only; a
  :class:`~aces_ci.errors.ConfigError` (no API key, a provider the harness cannot use) is the
  user's to fix and would fail every rollout alike, so it propagates;
* the workspace's artifacts are captured before the workspace is handed back for removal;
* its trajectory names it: ``session_id`` and ``trajectory_id`` are the rollout key (never a
  random id) and ``extra.rollout`` holds the case, condition, replicate and seed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from ..agents import (
    NO_ARTIFACTS,
    ArtifactLimits,
    EndReason,
    Harness,
    HarnessOutcome,
    RolloutRequest,
    RolloutResult,
    StagingGuard,
    TrajectoryBuilder,
    Workspace,
    WorkspaceArtifacts,
    capture_artifacts,
    stage_workspace,
)
from ..errors import AcesError, ConfigError, InfraError
from ..models import Usage
from ..redact import get_logger, redact_text

_log = get_logger(__name__)

TIMEOUT_GRACE_S = 1.0
"""How long past ``timeout_s`` a harness may take to hand back its own timeout outcome before it is cut."""

Tidy = Callable[[AbstractContextManager[Workspace] | None, RolloutResult | None], None]
"""Called once per rollout with its staging (to remove the workspace) and, unless cancelled, its result."""


def stamped(trajectory: Mapping[str, Any], key: str, request: RolloutRequest) -> dict[str, Any]:
    """``trajectory`` with the rollout's identity: ids from its key, case/condition/replicate/seed in ``extra``."""
    document: dict[str, Any] = {"schema_version": trajectory.get("schema_version"), "session_id": key}
    document["trajectory_id"] = key
    document.update((name, value) for name, value in trajectory.items() if name not in document)
    extra = dict(trajectory.get("extra") or {})
    extra["rollout"] = request.identity()
    document["extra"] = extra
    return document


Failure = tuple[EndReason, str]
"""A rollout the harness gave nothing back for: how it ended, and the message saying why."""


def _infra_trajectory(harness: Harness, request: RolloutRequest, reason: EndReason, message: str) -> dict[str, Any]:
    """A valid, empty ATIF document for a rollout whose harness gave us nothing back."""
    builder = TrajectoryBuilder(
        agent_name=f"aces-ci-{harness.name}", agent_version=harness.version(), model_name=request.model.model
    )
    return builder.build(usage=Usage(), notes=message, extra={"end_reason": reason})


async def _attempt(harness: Harness, request: RolloutRequest, workspace: Workspace) -> HarnessOutcome | Failure:
    """Run the harness once: its outcome, or the end reason and message of what went wrong."""
    try:
        async with asyncio.timeout(request.harness.timeout_s + TIMEOUT_GRACE_S) as scope:
            return await harness.run(request, workspace)
    except TimeoutError:
        if not scope.expired():
            return "harness_error", "the harness raised TimeoutError"
        return "timeout", f"the harness did not finish within its timeout of {request.harness.timeout_s:g}s"
    except ConfigError:
        raise  # a missing key or an unusable provider is not an outage: see the module doc
    except AcesError as exc:
        return "harness_error", f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # a crashing harness must cost one rollout, not the batch
        _log.debug("harness %s crashed", harness.name, exc_info=True)
        return "harness_error", f"the harness crashed: {type(exc).__name__}: {exc}"


def _capture(workspace: Workspace, limits: ArtifactLimits, secrets: tuple[str, ...]) -> WorkspaceArtifacts:
    try:
        return capture_artifacts(workspace.root, workspace.staged, limits, secrets)
    except OSError as exc:  # an unreadable workspace costs the artifacts, never the paid rollout
        _log.warning("cannot capture the workspace artifacts of %s: %s", workspace.root, exc)
        return NO_ARTIFACTS


class RolloutRunner:
    """Runs single rollouts on one harness, with the staging and capture settings of one engine."""

    def __init__(
        self,
        harness: Harness,
        *,
        guard: StagingGuard | None,
        workspace_dir: Path | None,
        keep_workspaces: bool,
        artifact_limits: ArtifactLimits,
        secrets: tuple[str, ...],
    ) -> None:
        self.harness = harness
        self.guard = guard
        self.workspace_dir = workspace_dir
        self.keep_workspaces = keep_workspaces
        self.artifact_limits = artifact_limits
        self.secrets = secrets

    async def run(self, request: RolloutRequest, key: str, tidy: Tidy) -> tuple[RolloutResult, Path | None]:
        """The rollout's result and its kept workspace (if kept); ``tidy`` gets the disk work that remains."""
        started = time.monotonic()
        outcome: HarnessOutcome | Failure
        artifacts = NO_ARTIFACTS
        kept: Path | None = None
        staged: AbstractContextManager[Workspace] | None = None
        staging = stage_workspace(request, self.harness, self.workspace_dir, self.keep_workspaces, guard=self.guard)
        try:
            workspace = staging.__enter__()
        except InfraError as exc:  # the harness's own errors are caught by _attempt(): this is staging
            outcome = "staging_error", str(exc)
        else:
            staged = staging
            kept = workspace.root.parent if self.keep_workspaces else None
            try:
                outcome = await _attempt(self.harness, request, workspace)
            except BaseException:  # cancelled at the wall-time cap: the workspace still goes
                tidy(staged, None)
                raise
            artifacts = _capture(workspace, self.artifact_limits, self.secrets)
        duration = time.monotonic() - started
        result = self._result(request, key, outcome, duration=duration, artifacts=artifacts)
        tidy(staged, result)
        return result, kept

    def _result(
        self,
        request: RolloutRequest,
        key: str,
        outcome: HarnessOutcome | Failure,
        *,
        duration: float,
        artifacts: WorkspaceArtifacts,
    ) -> RolloutResult:
        """The result from the harness's outcome, or from the failure (end reason, message) when it gave none."""
        if isinstance(outcome, tuple):
            reason, message = outcome
            message = redact_text(message, self.secrets)
            return RolloutResult(
                key=key,
                status="infra_error",
                end_reason=reason,
                final_answer=None,
                trajectory=stamped(_infra_trajectory(self.harness, request, reason, message), key, request),
                usage=Usage(),
                duration_s=duration,
                error=message,
                artifacts=artifacts,
            )
        return RolloutResult(
            key=key,
            status="infra_error" if outcome.infra_error else "completed",
            end_reason=outcome.end_reason,
            final_answer=None if outcome.final_answer is None else redact_text(outcome.final_answer, self.secrets),
            trajectory=stamped(outcome.trajectory, key, request),
            usage=outcome.usage,
            duration_s=duration,
            skill_events=outcome.skill_events,
            error=None if outcome.infra_error is None else redact_text(outcome.infra_error, self.secrets),
            artifacts=artifacts,
        )
