"""A received request, parsed once, with the views a script needs to decide its reply.

The three wire formats put the same things in different places (Anthropic's top-level ``system``,
OpenAI's system/developer messages, the Responses ``instructions`` and typed input items); the
properties here hide that, so a script such as
``lambda req: Text("42") if "MARKER" in req.system_text else Text("no idea")`` works for every client.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Dialect = Literal["anthropic", "chat", "responses"]
"""Anthropic Messages, OpenAI Chat Completions, OpenAI Responses."""

DIALECT_BY_PATH: dict[str, Dialect] = {
    "/v1/messages": "anthropic",
    "/v1/chat/completions": "chat",
    "/v1/responses": "responses",
}


def _text_of(content: Any) -> str:
    """Text of a content value: a string, or a list of blocks/parts carrying ``text`` (nested results too)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [_text_of(part) for part in content]
        return "\n".join(part for part in parts if part)
    if isinstance(content, dict) and isinstance(content.get("text"), str):
        return str(content["text"])
    return ""


@dataclass(frozen=True)
class Turn:
    """One conversation turn reduced to role and text, whatever the wire format."""

    role: str
    text: str
    tool_results: tuple[str, ...] = ()
    tool_calls: tuple[str, ...] = ()
    """Names of the tools an assistant turn called."""


@dataclass(frozen=True)
class ScriptedRequest:
    """One request as the server received it."""

    index: int
    """0-based order of arrival among the server's model requests."""
    method: str
    path: str
    """Path without the query string."""
    query: str
    headers: Mapping[str, str]
    """Lower-cased header names."""
    json: dict[str, Any]
    dialect: Dialect
    turns: tuple[Turn, ...] = field(default=())
    system_text: str = ""
    """Anthropic ``system``; OpenAI system/developer messages; Responses ``instructions`` + developer input."""

    @classmethod
    def parse(
        cls,
        index: int,
        *,
        method: str,
        raw_path: str,
        headers: Mapping[str, str],
        body: dict[str, Any],
        dialect: Dialect,
    ) -> ScriptedRequest:
        path, _, query = raw_path.partition("?")
        system_parts: list[str] = []
        turns: list[Turn] = []
        if dialect == "anthropic":
            system_parts.append(_text_of(body.get("system", "")))
            turns = [_anthropic_turn(message) for message in _dicts(body.get("messages"))]
        elif dialect == "chat":
            for message in _dicts(body.get("messages")):
                if message.get("role") in ("system", "developer"):
                    system_parts.append(_text_of(message.get("content")))
                else:
                    turns.append(_chat_turn(message))
        else:
            system_parts.append(_text_of(body.get("instructions", "")))
            system_parts_from_input, turns = _responses_turns(body.get("input"))
            system_parts.extend(system_parts_from_input)
        return cls(
            index=index,
            method=method,
            path=path,
            query=query,
            headers={name.lower(): value for name, value in headers.items()},
            json=body,
            dialect=dialect,
            turns=tuple(turns),
            system_text="\n".join(part for part in system_parts if part),
        )

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    @property
    def model(self) -> str:
        value = self.json.get("model")
        return value if isinstance(value, str) else ""

    @property
    def stream(self) -> bool:
        return self.json.get("stream") is True

    @property
    def last_user_text(self) -> str:
        """Text of the latest user turn that has text of its own (turns carrying only tool results are skipped)."""
        for turn in reversed(self.turns):
            if turn.role == "user" and turn.text:
                return turn.text
        return ""

    @property
    def tool_results(self) -> list[str]:
        """Every tool result sent back to the model, oldest first."""
        return [result for turn in self.turns for result in turn.tool_results]

    @property
    def all_text(self) -> str:
        """System text, every turn's text and every tool result, joined by newlines."""
        pieces = [self.system_text]
        for turn in self.turns:
            pieces.append(turn.text)
            pieces.extend(turn.tool_results)
        return "\n".join(piece for piece in pieces if piece)

    @property
    def tools(self) -> list[str]:
        """Names of the tools offered to the model."""
        names: list[str] = []
        for tool in _dicts(self.json.get("tools")):
            function = tool.get("function")
            name = function.get("name") if isinstance(function, dict) else tool.get("name")
            if isinstance(name, str):
                names.append(name)
        return names


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _anthropic_turn(message: dict[str, Any]) -> Turn:
    role = str(message.get("role", ""))
    content = message.get("content")
    if isinstance(content, str):
        return Turn(role, content)
    texts: list[str] = []
    results: list[str] = []
    calls: list[str] = []
    for block in _dicts(content):
        kind = block.get("type")
        if kind == "text":
            texts.append(str(block.get("text", "")))
        elif kind == "tool_result":
            results.append(_text_of(block.get("content", "")))
        elif kind == "tool_use":
            calls.append(str(block.get("name", "")))
    return Turn(role, "\n".join(t for t in texts if t), tuple(results), tuple(calls))


def _chat_turn(message: dict[str, Any]) -> Turn:
    role = str(message.get("role", ""))
    text = _text_of(message.get("content"))
    if role == "tool":
        return Turn(role, "", (text,))
    calls = tuple(
        str(call.get("function", {}).get("name", ""))
        for call in _dicts(message.get("tool_calls"))
        if isinstance(call.get("function"), dict)
    )
    return Turn(role, text, (), calls)


def _responses_turns(items: Any) -> tuple[list[str], list[Turn]]:
    """System texts and turns of a Responses ``input`` (a string, or a list of typed items)."""
    if isinstance(items, str):
        return [], [Turn("user", items)]
    system: list[str] = []
    turns: list[Turn] = []
    for item in _dicts(items):
        kind = item.get("type", "message")
        if kind == "message":
            role = str(item.get("role", ""))
            text = _text_of(item.get("content"))
            if role in ("system", "developer"):
                system.append(text)
            else:
                turns.append(Turn(role, text))
        elif kind == "function_call_output":
            turns.append(Turn("tool", "", (_text_of(item.get("output")),)))
        elif kind == "function_call":
            turns.append(Turn("assistant", "", (), (str(item.get("name", "")),)))
    return system, turns
