"""The part of every CLI harness that is not about one CLI: run it, watch its limits, report the outcome.

A subclass says where its CLI finds skills, how to configure and invoke it, and how to read its
event stream; :meth:`CliHarness.run` does the rest the same way for all three:

* the CLI runs in its own process group with the case prompt on stdin, ``cwd`` at the workspace
  root and an environment built from nothing (:mod:`._env`);
* every stdout line is parsed as it arrives, so the token budget and turn limit can stop a run
  that overshoots them (a CLI cannot be told either limit reliably) and a run cut short by the
  timeout still leaves the steps it made;
* the end is decided in one place: what the CLI's stream said when it said anything (an answer
  printed before a hang at exit is still the answer), else our timeout or limits, and only then
  its exit status (with the redacted tail of its stderr);
* skill events come from the finished steps (:func:`detect_skill_events`), leaving out tool
  calls that failed — a denied read did not load a skill.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import InfraError
from ...models import PLACEHOLDER_KEY, Provider
from ...redact import environment_secrets, redact_text
from .._atif import TrajectoryBuilder
from .._harness import HarnessOutcome, Workspace
from .._skill_events import detect_skill_events
from .._types import EndReason, HarnessName, RolloutRequest, SkillEvent
from ._env import api_key
from ._install import cli_version
from ._process import ProcessResult, run_process
from ._stream import EventStream, StreamEnd

ADAPTER_VERSION = 1
"""Bump when an adapter's configuration, flags or stream reading change what a rollout does or
reports: it is part of :meth:`CliHarness.cache_identity`, hence of every cache key."""
STDERR_IN_MESSAGE_CHARS = 1000
"""How much of stderr's end an infra-error message quotes (the trajectory keeps more)."""


@dataclass(frozen=True)
class Invocation:
    argv: list[str]
    env: dict[str, str]


class CliHarness(ABC):
    """One harness CLI behind the :class:`~aces_ci.agents.Harness` protocol."""

    name: HarnessName
    display_name: str
    providers: tuple[Provider, ...]
    """The providers this CLI can talk to."""
    not_applied: tuple[str, ...]
    """:class:`ModelSpec` settings this CLI offers no way to set; listed in every trajectory."""

    def __init__(self, executable: Path, *, api_retries: int = 2, kill_grace_s: float = 5.0) -> None:
        self.executable = executable
        self.api_retries = api_retries
        """Retries the CLI itself makes of a failed API call, where it lets us say (the engine retries rollouts)."""
        self.kill_grace_s = kill_grace_s

    def version(self) -> str:
        return f"{cli_version(self.executable)}; aces-ci adapter {ADAPTER_VERSION}"

    def cache_identity(self) -> str:
        """The CLI's own version and our adapter's: either changes what a rollout does."""
        return f"{self.name} {self.version()}"

    @abstractmethod
    def skill_root(self, workspace_root: Path, home: Path) -> Path:
        """Where this CLI discovers skills (each staged as ``<root>/<name>/SKILL.md``)."""

    @abstractmethod
    def invocation(self, request: RolloutRequest, workspace: Workspace, key_env: str, key: str) -> Invocation:
        """Write the CLI's configuration into ``workspace.home``; the command line and environment to run.

        May raise :class:`OSError` when the configuration cannot be written.
        """

    @abstractmethod
    def events(self, builder: TrajectoryBuilder) -> EventStream:
        """A fresh converter of this CLI's event stream into ``builder``."""

    async def run(self, request: RolloutRequest, workspace: Workspace) -> HarnessOutcome:
        """Run the case; raises only :class:`~aces_ci.errors.ConfigError` (an unusable provider or key)."""
        key_env, key = api_key(request.model, self.name, self.providers)
        secrets = (*environment_secrets(), *([key] if key != PLACEHOLDER_KEY else []))
        process: ProcessResult | None = None
        try:
            version, failure = await asyncio.to_thread(self.version), ""  # cached after the first call
        except InfraError as exc:  # installed but broken: the run cannot start, the outcome says why
            version, failure = "unknown", str(exc)
        builder = TrajectoryBuilder(agent_name=self.name, agent_version=version, model_name=request.model.model)
        builder.user(request.case.prompt)
        stream = self.events(builder)
        if not failure:
            process, failure = await self._launch(request, workspace, key_env, key, stream)
        end = self._end(stream.finish(), process, failure, request.harness.timeout_s, secrets)
        for event in skill_events(builder.steps, stream.failed_calls, workspace):
            builder.skill_event(event)
        usage = stream.usage
        trajectory = builder.build(
            usage=usage,
            notes=end.infra_error,
            extra=self._extra(request, end, stream, process),
            secrets=secrets,
        )
        return HarnessOutcome(
            end_reason=end.reason,
            final_answer=redact_text(end.answer, secrets) if end.answer is not None else None,
            trajectory=trajectory,
            usage=usage,
            skill_events=builder.skill_events,
            infra_error=end.infra_error,
        )

    async def _launch(
        self, request: RolloutRequest, workspace: Workspace, key_env: str, key: str, stream: EventStream
    ) -> tuple[ProcessResult | None, str]:
        """Configure and run the CLI, feeding ``stream``; the result, or None and why it could not start."""
        limits = request.harness

        def on_line(line: str) -> EndReason | None:
            stream.feed(line)
            if stream.tokens_used > limits.max_total_tokens:
                return "max_tokens"
            if stream.model_turns > limits.max_turns:
                return "max_turns"
            return None

        try:
            invocation = self.invocation(request, workspace, key_env, key)
            process = await run_process(
                invocation.argv,
                cwd=workspace.root,
                env=invocation.env,
                stdin=request.case.prompt.encode("utf-8"),
                timeout_s=limits.timeout_s,
                on_line=on_line,
                kill_grace_s=self.kill_grace_s,
            )
        except OSError as exc:
            return None, f"could not start {self.display_name} ({self.executable}): {exc}"
        return process, ""

    def _end(
        self,
        said: StreamEnd | None,
        process: ProcessResult | None,
        start_failure: str,
        timeout_s: float,
        secrets: tuple[str, ...],
    ) -> StreamEnd:
        if process is None:
            return StreamEnd("harness_error", infra_error=redact_text(start_failure, secrets))
        if said is not None:  # the CLI's own account wins: a hang while exiting does not undo an answer
            if said.infra_error is None:
                return said
            return StreamEnd(said.reason, said.answer, redact_text(said.infra_error, secrets))
        if process.timed_out:
            return StreamEnd(
                "timeout",
                infra_error=f"{self.display_name} did not finish within {timeout_s:g}s; its processes were stopped",
            )
        if process.stopped is not None:
            return StreamEnd(process.stopped)
        code = process.exit_code
        if code == 0:
            what = "exited without reporting how the run ended"
        elif code is not None and code < 0:
            what = f"was killed by signal {-code}"
        else:
            what = f"exited with code {code}"
        stderr = process.stderr_tail.strip()[-STDERR_IN_MESSAGE_CHARS:]
        message = f"{self.display_name} {what}" + (f"; stderr ends: {stderr}" if stderr else "")
        return StreamEnd("harness_error", infra_error=redact_text(message, secrets))

    def _extra(
        self, request: RolloutRequest, end: StreamEnd, stream: EventStream, process: ProcessResult | None
    ) -> dict[str, Any]:
        extra: dict[str, Any] = {
            "end_reason": end.reason,
            "disclosure": request.harness.disclosure,
            "harness": self.name,
            **stream.extra(),
            "model_settings_not_applied": list(self.not_applied),
            "raw_event_lines": stream.raw.total,
            "unparsed_lines": stream.unparsed_lines,
            "raw_events_tail": stream.raw.lines(),
        }
        if process is not None:
            extra["exit_code"] = process.exit_code
            extra["dropped_lines"] = process.dropped_lines
            if end.infra_error is not None and process.stderr_tail.strip():
                extra["stderr_tail"] = process.stderr_tail
        return extra


def skill_events(steps: Iterable[dict[str, Any]], failed_calls: set[str], workspace: Workspace) -> list[SkillEvent]:
    """The skill events of a CLI run's steps; calls in ``failed_calls`` are left out (they loaded nothing)."""
    return detect_skill_events(
        {"steps": _without_calls(steps, failed_calls)},
        {name: str(path) for name, path in workspace.skill_dirs.items()},
        workspace_root=str(workspace.root),
        home=str(workspace.home),
    )


def _without_calls(steps: Iterable[dict[str, Any]], call_ids: set[str]) -> list[dict[str, Any]]:
    """The steps with the named tool calls left out (steps keep their ids)."""
    kept = []
    for step in steps:
        calls = step.get("tool_calls")
        if call_ids and isinstance(calls, list):
            kept.append({**step, "tool_calls": [c for c in calls if c.get("tool_call_id") not in call_ids]})
        else:
            kept.append(step)
    return kept
