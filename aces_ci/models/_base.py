"""One small interface over every model API: a request in, a response out.

Providers (Anthropic Messages, OpenAI Chat Completions and any OpenAI-compatible server,
the embedded local model) implement only :meth:`ModelClient.generate`. Retries, backoff,
concurrency limits and cost accounting wrap a client from outside, so provider code stays thin
and the policy is written once.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import InfraError
from ..frozen import deep_frozen
from ._types import Usage

Role = Literal["user", "assistant", "tool"]
FinishReason = Literal["end_turn", "tool_use", "max_tokens", "reply_too_large", "other"]
"""``reply_too_large``: the reply passed a cap of :mod:`aces_ci.models._reply` and was cut there."""


@dataclass(frozen=True)
class ToolSpec:
    """A tool the model may call, described by a JSON Schema of its arguments."""

    name: str
    description: str
    parameters: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    """Read-only (a tool list is one module constant shared by every rollout)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameters", deep_frozen(self.parameters))


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: Mapping[str, Any]
    """Read-only: the call is kept in the conversation and the trajectory while tools read it."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "arguments", deep_frozen(self.arguments))


@dataclass(frozen=True)
class Message:
    """One turn of the conversation, provider-neutral.

    ``assistant`` messages may carry tool calls; ``tool`` messages answer one call by ``tool_call_id``.
    """

    role: Role
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    is_error: bool = False


@dataclass(frozen=True)
class ModelRequest:
    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = 1024
    temperature: float = 0.0
    seed: int | None = None


@dataclass(frozen=True)
class ModelResponse:
    text: str
    tool_calls: tuple[ToolCall, ...]
    stop_reason: FinishReason
    usage: Usage
    model: str
    """The model id the server says answered (may differ from the one asked for)."""
    request_id: str | None = None


class ModelAPIError(InfraError):
    """A model call failed. ``retryable`` says whether the same call may succeed later."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.retry_after_s = retry_after_s


class ModelClient(abc.ABC):
    """A provider adapter. Implementations do one HTTP call per ``generate``: no retries of their own."""

    provider: str
    model: str

    @abc.abstractmethod
    async def generate(self, request: ModelRequest) -> ModelResponse:
        """Send one request; raise :class:`ModelAPIError` on any failure."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook; most clients hold nothing to close
        """Release connections."""
