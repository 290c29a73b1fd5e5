"""OpenCode's ``opencode run --format json`` events, as ATIF steps.

The stream (checked against OpenCode 1.18) is one JSON object per line, each with ``type``,
``timestamp`` (epoch milliseconds), ``sessionID`` and a ``part``:

* ``step_start`` opens a model response; ``text`` and ``reasoning`` (with ``--thinking``) parts
  add to it; ``tool_use`` reports a finished call with its ``state`` (``input``, ``output`` or
  ``error``); ``step_finish`` closes it with ``reason`` (``stop``, ``tool-calls``, ``length``),
  ``tokens`` and ``cost``. Token counts are split: ``input`` excludes the cache reads and writes
  and ``output`` excludes ``reasoning``, so both are added back for ATIF's totals.
* ``error`` carries ``error.name`` (``APIError`` with ``data.statusCode`` when the model API
  failed after OpenCode's own retries) and ``error.data.message``.

OpenCode loads a skill with its ``skill`` tool (``input.name``), whose output wraps the body in
``<skill_content name="…">``; the skill-event detector reads the call.
"""

from __future__ import annotations

from typing import Any

from ...models import Usage
from .._atif import StepMetrics, ToolCallRecord, TrajectoryBuilder
from ._stream import (
    EventStream,
    StreamEnd,
    get_dict,
    get_float,
    get_int,
    get_str,
    ms_timestamp,
    text_of,
)

MODEL_ERRORS = frozenset({"APIError", "ProviderAuthError", "ContextOverflowError"})
"""Error names that mean the model provider failed, not OpenCode."""
FINAL_REASONS = frozenset({"stop", "end_turn", "length"})


class OpenCodeEvents(EventStream):
    def __init__(self, builder: TrajectoryBuilder) -> None:
        super().__init__(builder)
        self._session_id: str | None = None
        self._usage = Usage()
        self._error: dict[str, Any] | None = None
        self._last_reason: str | None = None
        self._last_text: str | None = None
        self._steps_started = 0

    def handle(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        part = get_dict(event, "part")
        self._session_id = self._session_id or get_str(event, "sessionID") or None
        timestamp = ms_timestamp(event.get("timestamp"))
        if kind == "step_start":
            self.commit()
            self._steps_started += 1
            self.draft(get_str(part, "messageID") or None, timestamp)
        elif kind == "text":
            self.draft(get_str(part, "messageID") or None, timestamp).texts.append(get_str(part, "text"))
        elif kind == "reasoning":
            self.draft(get_str(part, "messageID") or None, timestamp).reasoning.append(get_str(part, "text"))
        elif kind == "tool_use":
            self._tool(part, timestamp)
        elif kind == "step_finish":
            self._finish_step(part, timestamp)
        elif kind == "error":
            self.commit()
            self._error = get_dict(event, "error")

    def _tool(self, part: dict[str, Any], timestamp: str | None) -> None:
        draft = self.draft(get_str(part, "messageID") or None, timestamp)
        state = get_dict(part, "state")
        call_id = get_str(part, "callID") or get_str(part, "id") or f"call_{len(draft.calls)}"
        draft.calls.append(ToolCallRecord(call_id, get_str(part, "tool", "tool"), get_dict(state, "input")))
        status = get_str(state, "status")
        if status == "error":
            self.result(call_id, get_str(state, "error") or "tool failed", is_error=True)
        else:
            self.result(call_id, text_of(state.get("output")))

    def _finish_step(self, part: dict[str, Any], timestamp: str | None) -> None:
        draft = self.draft(get_str(part, "messageID") or None, timestamp)
        tokens = get_dict(part, "tokens")
        cache = get_dict(tokens, "cache")
        usage = Usage(
            prompt_tokens=get_int(tokens, "input") + get_int(cache, "read") + get_int(cache, "write"),
            completion_tokens=get_int(tokens, "output") + get_int(tokens, "reasoning"),
            cache_read_tokens=get_int(cache, "read"),
            cache_write_tokens=get_int(cache, "write"),
            cost_usd=get_float(part, "cost"),
            model_calls=1,
        )
        self._usage += usage
        draft.metrics = StepMetrics(
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            cached_tokens=usage.cache_read_tokens,
            cost_usd=usage.cost_usd,
            extra={
                "cache_creation_input_tokens": usage.cache_write_tokens,
                "reasoning_tokens": get_int(tokens, "reasoning"),
            },
        )
        self._last_reason = get_str(part, "reason") or None
        if self._last_reason:
            draft.extra["finish_reason"] = self._last_reason
        text = "\n\n".join(t for t in draft.texts if t)
        if text:
            self._last_text = text
        self.commit()

    def finish(self) -> StreamEnd | None:
        open_draft = self.open_draft
        if open_draft is not None and any(open_draft.texts):
            self._last_text = "\n\n".join(t for t in open_draft.texts if t)
        self.commit()
        if self._error is not None:
            name = get_str(self._error, "name", "error")
            data = get_dict(self._error, "data")
            message = get_str(data, "message") or text_of(data) or name
            status = data.get("statusCode")
            code = f" (HTTP {status})" if isinstance(status, int) else ""
            if name in MODEL_ERRORS:
                return StreamEnd("model_error", infra_error=f"OpenCode: model API error{code}: {message}")
            return StreamEnd("harness_error", infra_error=f"OpenCode: {name}: {message}")
        if self._last_reason in FINAL_REASONS:
            return StreamEnd("final_answer", answer=self._last_text)
        return None

    @property
    def usage(self) -> Usage:
        return self._usage

    @property
    def model_turns(self) -> int:
        return self._steps_started

    def extra(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "cli_session_id": self._session_id,
            "cost_source": "OpenCode step cost (0 when it has no price for the model)",
        }
        return {k: v for k, v in info.items() if v is not None}
