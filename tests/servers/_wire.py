"""What every wire format shares: the encoder interface, SSE framing, text chunking and default usage."""

from __future__ import annotations

import abc
import json
import re
from typing import Any

from ._replies import Call, StreamFault, Text, Tokens, ToolUse
from ._request import ScriptedRequest

Answer = Text | ToolUse
"""The replies that are model output (as opposed to network behaviour)."""


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event; ``data`` is JSON-encoded unless it is already a string."""
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


def pieces(text: str, words_per_piece: int = 2) -> list[str]:
    """Split text into small deltas (a couple of words each) so clients must reassemble it."""
    tokens = re.findall(r"\s*\S+\s*|\s+", text)
    return ["".join(tokens[i : i + words_per_piece]) for i in range(0, len(tokens), words_per_piece)]


def chunks(text: str, size: int = 8) -> list[str]:
    """Split text (e.g. tool-call JSON) into fixed-size fragments; at least one, possibly empty."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def arguments_json(call: Call) -> str:
    return json.dumps(dict(call.arguments), separators=(",", ":"))


def usage_of(answer: Answer, request: ScriptedRequest) -> Tokens:
    """The reply's own counts, or counts derived from sizes (~4 characters a token, at least 1)."""
    if answer.usage is not None:
        return answer.usage
    out_chars = len(answer.text) + sum(len(arguments_json(c)) for c in _calls(answer))
    return Tokens(input=max(1, len(request.all_text) // 4), output=max(1, out_chars // 4))


def _calls(answer: Answer) -> tuple[Call, ...]:
    return answer.calls if isinstance(answer, ToolUse) else ()


def call_id(call: Call, request: ScriptedRequest, position: int, prefix: str) -> str:
    return call.id or f"{prefix}{request.index:04d}{position:02d}"


class Wire(abc.ABC):
    """Encodes model output, errors and in-body faults in one API's wire format."""

    name: str

    @abc.abstractmethod
    def reply_body(self, answer: Answer, request: ScriptedRequest) -> dict[str, Any]:
        """The JSON body of a non-streaming success."""

    @abc.abstractmethod
    def reply_events(self, answer: Answer, request: ScriptedRequest) -> list[bytes]:
        """The SSE events of a streaming success, in order."""

    @abc.abstractmethod
    def error_body(self, status: int, error_type: str | None, message: str) -> dict[str, Any]:
        """The API's error JSON for an HTTP error status."""

    @abc.abstractmethod
    def fault_events(self, fault: StreamFault, request: ScriptedRequest) -> list[bytes]:
        """A stream that starts well and then carries an error event."""

    @abc.abstractmethod
    def fault_body(self, fault: StreamFault) -> dict[str, Any]:
        """A 200 non-streaming body that is an error, not an answer."""

    @abc.abstractmethod
    def models_body(self, model_ids: tuple[str, ...]) -> dict[str, Any]:
        """The ``GET /v1/models`` listing."""
