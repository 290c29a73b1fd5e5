"""The built-in harness: our own tool-using agent over any model client, as a :class:`Harness`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ... import __version__
from ...models import ModelSpec
from ...redact import environment_secrets
from .._harness import HarnessOutcome, Workspace
from .._types import HarnessName, RolloutRequest
from ._loop import AgentLoop, ModelCaller
from ._sandbox import SandboxLimits

LOOP_PROTOCOL_VERSION = 1
"""Bump whenever the prompts, the tools, the sandbox or the loop's rules change: it is the built-in
harness's cache identity, so rollouts of the old agent are not mistaken for rollouts of the new one,
while a release that leaves the agent alone keeps every cached rollout."""

ClientFor = Callable[[ModelSpec], ModelCaller]
"""Returns the (shared) model client for a model spec."""


class BuiltinHarness:
    """Runs :class:`AgentLoop` with the client ``client_for(request.model)`` returns.

    Skills are staged under ``<workspace>/.agents/skills/<name>/``, the cross-harness project
    location (Codex, OpenCode), so the paths the agent sees are short and the same in every run.
    """

    name: HarnessName = "builtin"

    def __init__(self, client_for: ClientFor, *, sandbox: SandboxLimits | None = None) -> None:
        self._client_for = client_for
        self.sandbox = sandbox or SandboxLimits()

    def version(self) -> str:
        return f"{__version__}+loop{LOOP_PROTOCOL_VERSION}"

    def cache_identity(self) -> str:
        return f"builtin-loop{LOOP_PROTOCOL_VERSION}"

    def skill_root(self, workspace_root: Path, home: Path) -> Path:
        return workspace_root / ".agents" / "skills"

    async def run(self, request: RolloutRequest, workspace: Workspace) -> HarnessOutcome:
        loop = AgentLoop(
            self._client_for(request.model), request, workspace, agent_version=self.version(), sandbox=self.sandbox
        )
        return await loop.run(secrets=environment_secrets())
