"""What every CLI event-stream converter shares: tolerant JSON lines, agent steps assembled from
several events, tool results matched to the step that made the call, and a bounded raw tail.

Each CLI's converter (``_claude_events``, ``_codex_events``, ``_opencode_events``) subclasses
:class:`EventStream` and only says what its events mean. Whatever a line holds — not JSON, JSON
of the wrong shape, an event type from a newer CLI — it is kept in the raw tail and otherwise
ignored: a converter never raises on input, because a half-parsed trajectory of a crashed run is
still worth reporting.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ...models import Usage
from ...redact import environment_secrets, redact_text
from .._atif import StepMetrics, ToolCallRecord, TrajectoryBuilder
from .._types import EndReason

RAW_TAIL_LINES = 50
"""How many of the last stdout lines ride along in the trajectory's ``extra.raw_events_tail``."""
RAW_LINE_CHARS = 2000
"""Each kept line is cut to this many characters: the tail is for diagnosis, not replay."""


def json_object(line: str) -> dict[str, Any] | None:
    """The line as a JSON object, or None for anything else (blank, text, a list, a broken line)."""
    text = line.strip()
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def get_str(obj: Mapping[str, Any], key: str, default: str = "") -> str:
    value = obj.get(key)
    return value if isinstance(value, str) else default


def get_int(obj: Mapping[str, Any], key: str) -> int:
    """A non-negative integer field; anything else (missing, negative, a string, a bool) counts as 0."""
    value = obj.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def get_float(obj: Mapping[str, Any], key: str) -> float:
    value = obj.get(key)
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    return 0.0


def get_dict(obj: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = obj.get(key)
    return value if isinstance(value, dict) else {}


def get_list(obj: Mapping[str, Any], key: str) -> list[Any]:
    value = obj.get(key)
    return value if isinstance(value, list) else []


def text_of(content: Any) -> str:
    """Readable text of a tool result: a string, or content blocks (text kept, others named)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict):
                text = block.get("text")
                parts.append(text if isinstance(text, str) else f"[{get_str(block, 'type', 'content')}]")
        return "\n".join(parts)
    if content is None:
        return ""
    return json.dumps(content, ensure_ascii=False, default=str)


def ms_timestamp(value: Any) -> str | None:
    """An epoch-milliseconds value as ATIF's ISO 8601 timestamp, or None when it is not one."""
    if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
        return None
    try:
        moment = datetime.fromtimestamp(value / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class RawTail:
    """The last :data:`RAW_TAIL_LINES` lines, each cut to :data:`RAW_LINE_CHARS` characters."""

    def __init__(self) -> None:
        self._lines: deque[str] = deque(maxlen=RAW_TAIL_LINES)
        self._secrets = environment_secrets()
        self.total = 0

    def add(self, line: str) -> None:
        self.total += 1
        if len(line) > RAW_LINE_CHARS:
            # Redact before cutting: half a secret is no longer recognised, and its first half would stay.
            line = redact_text(line, self._secrets)
        if len(line) > RAW_LINE_CHARS:
            line = f"{line[:RAW_LINE_CHARS]}…[{len(line) - RAW_LINE_CHARS} more characters]"
        self._lines.append(line)

    def lines(self) -> list[str]:
        return list(self._lines)


@dataclass(frozen=True)
class StreamEnd:
    """How the CLI itself said the run ended."""

    reason: EndReason
    answer: str | None = None
    infra_error: str | None = None
    """Set when the end is not the skill's doing (the model API failed, the CLI gave up)."""


@dataclass
class _Result:
    call_id: str
    content: str
    is_error: bool
    extra: dict[str, Any]


@dataclass
class StepDraft:
    """An agent step being assembled from several events (one model response's text, thinking and calls)."""

    key: str | None = None
    """What identifies the model response (a message id), when the CLI gives one."""
    texts: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    calls: list[ToolCallRecord] = field(default_factory=list)
    results: list[_Result] = field(default_factory=list)
    metrics: StepMetrics | None = None
    model_name: str | None = None
    timestamp: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class EventStream(ABC):
    """Feeds one CLI's stdout lines into a :class:`TrajectoryBuilder` as they arrive."""

    def __init__(self, builder: TrajectoryBuilder) -> None:
        self.builder = builder
        self.raw = RawTail()
        self.unparsed_lines = 0
        self.failed_calls: set[str] = set()
        """Ids of tool calls whose result was an error (a denied read did not load a skill)."""
        self._draft: StepDraft | None = None
        self._step_of_call: dict[str, int] = {}

    # -- what the harness reads ----------------------------------------------------------------------

    def feed(self, line: str) -> None:
        self.raw.add(line)
        event = json_object(line)
        if event is None:
            if line.strip():
                self.unparsed_lines += 1
            return
        self.handle(event)

    @abstractmethod
    def handle(self, event: dict[str, Any]) -> None:
        """Interpret one JSON event; unknown or malformed events are ignored."""

    @abstractmethod
    def finish(self) -> StreamEnd | None:
        """Close open steps; how the stream says the run ended, or None when it never said."""

    @property
    @abstractmethod
    def usage(self) -> Usage:
        """Tokens, cost and model calls so far (final totals once :meth:`finish` ran)."""

    @property
    @abstractmethod
    def model_turns(self) -> int:
        """Model responses seen so far: what ``max_turns`` limits."""

    @property
    def tokens_used(self) -> int:
        """Prompt plus completion tokens reported so far: what ``max_total_tokens`` limits."""
        usage = self.usage
        return usage.prompt_tokens + usage.completion_tokens

    @abstractmethod
    def extra(self) -> dict[str, Any]:
        """What the CLI told about itself (session id, listed skills, retries), for ``trajectory.extra``."""

    # -- what converters use -------------------------------------------------------------------------

    def draft(self, key: str | None = None, timestamp: str | None = None) -> StepDraft:
        """The open step for response ``key``; a different key first commits the open step."""
        if self._draft is not None and key is not None and self._draft.key not in (None, key):
            self.commit()
        if self._draft is None:
            self._draft = StepDraft(key=key, timestamp=timestamp)
        elif key is not None and self._draft.key is None:
            self._draft.key = key
        return self._draft

    @property
    def open_draft(self) -> StepDraft | None:
        return self._draft

    def commit(self) -> None:
        """Write the open step, if any, to the builder with the results already known."""
        draft, self._draft = self._draft, None
        if draft is None:
            return
        step = self.builder.agent(
            "\n\n".join(t for t in draft.texts if t),
            tool_calls=draft.calls,
            reasoning="\n\n".join(r for r in draft.reasoning if r) or None,
            metrics=draft.metrics,
            model_name=draft.model_name,
            timestamp=draft.timestamp,
            extra=draft.extra or None,
        )
        for call in draft.calls:
            self._step_of_call[call.tool_call_id] = step
        for result in draft.results:
            self._observe(step, result)

    def result(
        self, call_id: str, content: str, *, is_error: bool = False, extra: Mapping[str, Any] | None = None
    ) -> None:
        """Record a tool result: on the open step if it made the call, else on the committed step that did."""
        result = _Result(call_id, content, is_error, dict(extra or {}))
        if is_error:
            self.failed_calls.add(call_id)
        draft = self._draft
        if draft is not None and any(c.tool_call_id == call_id for c in draft.calls):
            draft.results.append(result)
            return
        step = self._step_of_call.get(call_id)
        if step is None:
            # A result for a call we never saw (its line was lost or garbled): keep it, unattached.
            self.builder.system(
                content, extra={"orphan_tool_result": call_id, **({"is_error": True} if is_error else {})}
            )
            return
        self._observe(step, result)

    def _observe(self, step: int, result: _Result) -> None:
        extra = dict(result.extra)
        if result.is_error:
            extra["is_error"] = True
        self.builder.observe(step, result.call_id, result.content, extra=extra or None)
