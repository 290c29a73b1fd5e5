"""The built-in agent loop: ask the model, run the tools it calls, repeat until it answers or a limit hits.

Every step lands in an ATIF :class:`TrajectoryBuilder` as it happens, so a rollout cut short by a
timeout, a token budget or a dead API still leaves a trajectory that says how far it got. A reply
the model client cut at its size cap ends the rollout as ``reply_too_large``, graded on the kept part. The loop
talks to anything with an async ``generate(ModelRequest) -> ModelResponse``; retries and backoff
belong to that client, not to the loop. A model failure that survives the client's retries ends
the rollout as an infrastructure error: the skill is not to blame for an outage.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, field
from typing import Protocol

from ...models import Message, ModelAPIError, ModelRequest, ModelResponse, RetriesExhausted, Usage
from ...skill import SKILL_FILE, skill_card
from .._atif import StepMetrics, ToolCallRecord, TrajectoryBuilder
from .._harness import HarnessOutcome, Workspace
from .._skill_events import detect_skill_events
from .._types import EndReason, RolloutRequest, SkillEvent
from ._prompts import NUDGE, StagedSkill, system_prompt
from ._sandbox import SandboxLimits
from ._tools import FINAL_ANSWER, TOOL_SPECS, PathFence, WorkspaceTools

AGENT_NAME = "aces-ci-builtin"


class ModelCaller(Protocol):
    """What the loop needs of a model client: one call in, one response out (retries are its own business)."""

    async def generate(self, request: ModelRequest) -> ModelResponse: ...


@dataclass(frozen=True)
class _End:
    reason: EndReason
    answer: str | None = None
    infra_error: str | None = None


@dataclass
class _Conversation:
    system: str
    messages: list[Message] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)

    @property
    def tokens(self) -> int:
        return self.usage.prompt_tokens + self.usage.completion_tokens


def model_seed(request: RolloutRequest) -> int:
    """The sampling seed sent to the model: one per (seed, replicate), shared by every condition.

    Shared, so that the conditions of a pair meet the same sampling noise when the caller couples
    them by giving them one seed; a caller wanting independent draws gives each condition its own seed.
    """
    digest = hashlib.sha256(f"{request.seed}:{request.replicate}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def tool_definitions() -> list[dict[str, object]]:
    """The tools in ATIF's ``agent.tool_definitions`` shape (OpenAI function schema)."""
    return [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in TOOL_SPECS
    ]


class AgentLoop:
    """Runs one rollout of the built-in agent in a staged workspace."""

    def __init__(
        self,
        client: ModelCaller,
        request: RolloutRequest,
        workspace: Workspace,
        *,
        agent_version: str,
        sandbox: SandboxLimits,
    ) -> None:
        self.client = client
        self.request = request
        self.workspace = workspace
        self.spec = request.harness
        self.tools = WorkspaceTools(workspace, sandbox)
        self.builder = TrajectoryBuilder(
            agent_name=AGENT_NAME,
            agent_version=agent_version,
            model_name=request.model.model,
            tool_definitions=tool_definitions(),
        )

    def _staged(self) -> list[StagedSkill]:
        fence: PathFence = self.tools.fence
        return [
            StagedSkill(skill_card(skill), fence.shown(self.workspace.skill_dirs[skill.name].resolve()))
            for skill in self.request.skills.skills
        ]

    async def run(self, secrets: tuple[str, ...] = ()) -> HarnessOutcome:
        """Drive the conversation to its end; returns the outcome with a redacted ATIF trajectory."""
        staged = self._staged()
        conversation = _Conversation(system_prompt(self.spec.disclosure, staged))
        system_step = self.builder.system(conversation.system)
        if self.spec.disclosure == "preload":
            for skill in staged:
                self.builder.skill_event(SkillEvent(system_step, skill.card.name, "preloaded", SKILL_FILE))
        self.builder.user(self.request.case.prompt)
        conversation.messages.append(Message("user", self.request.case.prompt))
        deadline = asyncio.get_running_loop().time() + self.spec.timeout_s
        try:
            async with asyncio.timeout(self.spec.timeout_s) as scope:
                end = await self._turns(conversation, deadline)
        except TimeoutError:
            if not scope.expired():
                raise
            end = _End("timeout", infra_error=f"the rollout exceeded its timeout of {self.spec.timeout_s:g}s")
        for event in detect_skill_events(
            {"steps": self.builder.steps},
            {name: str(path) for name, path in self.workspace.skill_dirs.items()},
            workspace_root=str(self.workspace.root),
            home=str(self.workspace.home),
        ):
            self.builder.skill_event(event)
        trajectory = self.builder.build(
            usage=conversation.usage,
            notes=end.infra_error,
            extra={"end_reason": end.reason, "disclosure": self.spec.disclosure},
            secrets=secrets,
        )
        return HarnessOutcome(
            end_reason=end.reason,
            final_answer=end.answer,
            trajectory=trajectory,
            usage=conversation.usage,
            skill_events=self.builder.skill_events,
            infra_error=end.infra_error,
        )

    async def _turns(self, conversation: _Conversation, deadline: float) -> _End:
        loop = asyncio.get_running_loop()
        for _ in range(self.spec.max_turns):
            if conversation.tokens >= self.spec.max_total_tokens:
                return _End("max_tokens")
            try:
                response = await self.client.generate(
                    ModelRequest(
                        system=conversation.system,
                        messages=tuple(conversation.messages),
                        tools=TOOL_SPECS,
                        max_tokens=self.request.model.max_tokens,
                        temperature=self.request.model.temperature,
                        seed=model_seed(self.request),
                    )
                )
            except RetriesExhausted as exc:
                return _End("retries_exhausted", infra_error=str(exc))
            except ModelAPIError as exc:
                return _End("model_error", infra_error=str(exc))
            conversation.usage += response.usage
            step = self._record(response)
            conversation.messages.append(Message("assistant", response.text, tool_calls=response.tool_calls))
            if response.stop_reason == "reply_too_large":
                # The model's own doing, not an outage: graded on the part of the reply the client kept.
                return _End("reply_too_large", answer=response.text.strip())
            if not response.tool_calls:
                if self.spec.disclosure == "preload":
                    return _End("final_answer", answer=response.text.strip())
                self.builder.user(NUDGE, extra={"nudge": True})
                conversation.messages.append(Message("user", NUDGE))
            for call in response.tool_calls:
                if call.name == FINAL_ANSWER and isinstance(call.arguments.get("answer"), str):
                    self.builder.observe(step, call.id, "final answer recorded")
                    return _End("final_answer", answer=str(call.arguments["answer"]).strip())
                if call.name == FINAL_ANSWER:
                    content, is_error = "error: final_answer needs a string argument 'answer'", True
                else:
                    output = await self.tools.call(call.name, call.arguments, time_left_s=deadline - loop.time())
                    content, is_error = output.content, output.is_error
                self.builder.observe(step, call.id, content, extra={"is_error": True} if is_error else None)
                conversation.messages.append(Message("tool", content, tool_call_id=call.id, is_error=is_error))
            if conversation.tokens > self.spec.max_total_tokens:
                return _End("max_tokens")
        return _End("max_turns")

    def _record(self, response: ModelResponse) -> int:
        usage = response.usage
        return self.builder.agent(
            response.text,
            tool_calls=[ToolCallRecord(c.id, c.name, c.arguments) for c in response.tool_calls],
            metrics=StepMetrics(
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                cached_tokens=usage.cache_read_tokens,
                cost_usd=usage.cost_usd,
                extra={"cache_creation_input_tokens": usage.cache_write_tokens} if usage.cache_write_tokens else {},
            ),
            model_name=response.model or None,
        )
