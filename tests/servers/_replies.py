"""What a scripted server may answer: plain values a test writes down, encoded per wire format later.

A test describes *what the model does* (``Text``, ``ToolUse``) or *what the network does* (``Fault``,
``StreamFault``, ``Hang``, ``Drop``, ``SlowStream``); the wire modules turn that into Anthropic Messages,
OpenAI Chat Completions or OpenAI Responses bytes. Keeping the two apart is what lets one script drive
every client and every harness CLI.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias


@dataclass(frozen=True)
class Tokens:
    """Token counts a reply reports, in Anthropic's split: ``input`` excludes the cached parts.

    OpenAI formats report ``prompt_tokens = input + cache_read + cache_write`` with ``cache_read`` as
    ``cached_tokens``, which is how the real APIs relate.
    """

    input: int = 10
    output: int = 5
    cache_read: int = 0
    cache_write: int = 0

    @property
    def prompt_total(self) -> int:
        return self.input + self.cache_read + self.cache_write


@dataclass(frozen=True)
class Text:
    """The model answers with text and stops.

    ``usage=None`` reports counts derived from the request and reply sizes (about 4 characters a token).
    ``truncated`` reports that the output hit the token limit (``max_tokens`` / ``length`` / ``incomplete``).
    """

    text: str
    usage: Tokens | None = None
    truncated: bool = False


@dataclass(frozen=True)
class Call:
    """One tool call inside a :class:`ToolUse` reply. ``id`` is generated when not given."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None


class ToolUse:
    """The model calls one tool (``ToolUse("read", {"path": "a"})``) or several (``calls=[Call(...), ...]``).

    ``text`` is what the model says before its calls (often empty).
    """

    __slots__ = ("calls", "text", "usage")

    def __init__(
        self,
        name: str | None = None,
        arguments: Mapping[str, Any] | None = None,
        *,
        calls: Sequence[Call] = (),
        text: str = "",
        usage: Tokens | None = None,
    ) -> None:
        if (name is None) == (not calls):
            raise ValueError("ToolUse takes either a tool name (and arguments) or calls=[Call(...)], not both")
        self.calls: tuple[Call, ...] = (Call(name, dict(arguments or {})),) if name is not None else tuple(calls)
        self.text = text
        self.usage = usage

    def __repr__(self) -> str:
        return f"ToolUse(calls={self.calls!r}, text={self.text!r})"


@dataclass(frozen=True)
class Fault:
    """An HTTP error in the API's own error JSON shape.

    ``error_type`` overrides the type derived from the status (e.g. ``"insufficient_quota"`` with 429,
    ``"overloaded_error"`` with 529). ``body`` replaces the whole body (a dict is sent as JSON, a str as is).
    ``retry_after`` becomes the ``retry-after`` header (seconds, or an HTTP date given as str);
    ``retry_after_ms`` the ``retry-after-ms`` header. With status 200 and a ``body`` it serves any raw
    answer a test needs that the model replies cannot express (malformed tool arguments, no usage).
    """

    status: int
    body: Mapping[str, Any] | str | None = None
    retry_after: float | str | None = None
    retry_after_ms: float | None = None
    error_type: str | None = None
    message: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class StreamFault:
    """HTTP 200, then an error *inside* the body: an ``error`` event mid-stream, or an error JSON body.

    This is how Anthropic reports overload during a stream, which the SDKs do not retry on their own.
    ``text_before`` is streamed as a partial answer before the error when the request streams.
    """

    error_type: str = "overloaded_error"
    message: str = "Overloaded"
    text_before: str = ""


@dataclass(frozen=True)
class Hang:
    """Read the request, then answer nothing for ``seconds`` (forever when None) and close the connection.

    A hang always ends when the server stops, so a test that forgets it cannot stall the run.
    """

    seconds: float | None = None


@dataclass(frozen=True)
class Drop:
    """Read the request, then close the connection without a response."""


@dataclass(frozen=True)
class SlowStream:
    """Send ``reply`` as a stream with ``delay_s`` between events (a non-streaming request waits once).

    ``delay_s`` is a pause between network writes, used to test client timeouts during a stream.
    """

    reply: Text | ToolUse
    delay_s: float = 0.05


Reply: TypeAlias = Text | ToolUse | Fault | StreamFault | Hang | Drop | SlowStream
"""Everything a script may return for one request."""

REPLY_TYPES = (Text, ToolUse, Fault, StreamFault, Hang, Drop, SlowStream)
"""The reply classes, for ``isinstance`` checks on what a script returned."""
