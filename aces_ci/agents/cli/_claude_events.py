"""Claude Code's ``--output-format stream-json --verbose`` events, as ATIF steps.

The stream (checked against Claude Code 2.1) is one JSON object per line:

* ``system``/``init``: session id, model, tools and the ``skills`` it discovered, which is how a
  test proves a staged skill was seen; ``system``/``api_retry`` for each retried API call.
* ``assistant``: one event *per content block* (text, thinking, tool_use), all carrying the same
  ``message.id``, so consecutive events of one id are merged back into one agent step. A message
  with ``error`` set and model ``<synthetic>`` is Claude Code reporting an API failure, not the model.
* ``user``: ``tool_result`` blocks answering earlier calls, or text Claude Code injects itself
  (a loaded skill's body after the ``Skill`` tool), recorded as a system step.
* ``result``: the final answer (``result``), ``subtype`` (``success``, ``error_max_turns``,
  ``error_during_execution``…), ``is_error``, ``api_error_status``, ``total_cost_usd`` and the
  run's token ``usage``, which is authoritative: per-message usage in the stream is the count at
  the *start* of each response, so its output tokens are too low.
"""

from __future__ import annotations

from typing import Any

from ...models import Usage
from .._atif import StepMetrics, ToolCallRecord, TrajectoryBuilder
from ._stream import EventStream, StreamEnd, get_dict, get_float, get_int, get_list, get_str, text_of

SYNTHETIC_MODEL = "<synthetic>"


def _prompt_tokens(usage: dict[str, Any]) -> int:
    """Anthropic's ``input_tokens`` excludes cache reads and writes; ATIF's prompt count includes them."""
    return (
        get_int(usage, "input_tokens")
        + get_int(usage, "cache_read_input_tokens")
        + get_int(usage, "cache_creation_input_tokens")
    )


class ClaudeEvents(EventStream):
    def __init__(self, builder: TrajectoryBuilder) -> None:
        super().__init__(builder)
        self._init: dict[str, Any] = {}
        self._result: dict[str, Any] | None = None
        self._message_usage: dict[str, dict[str, Any]] = {}
        """Usage of each model response by message id, as streamed: input counts are final, output counts are not."""
        self._api_retries = 0
        self._api_error: str | None = None

    def handle(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "system":
            subtype = event.get("subtype")
            if subtype == "init":
                self._init = event
            elif subtype == "api_retry":
                self._api_retries += 1
        elif kind == "assistant":
            self._assistant(event)
        elif kind == "user":
            self._user(event)
        elif kind == "result":
            self.commit()
            self._result = event

    def _assistant(self, event: dict[str, Any]) -> None:
        message = get_dict(event, "message")
        content = get_list(message, "content")
        if event.get("error") or get_str(message, "model") == SYNTHETIC_MODEL:
            self.commit()
            text = "\n".join(text_of([b]) for b in content if isinstance(b, dict)) or get_str(event, "error")
            self._api_error = text or "API error"
            self.builder.system(text or "API error", extra={"harness_message": True})
            return
        message_id = get_str(message, "id") or None
        draft = self.draft(message_id)
        for block in content:
            if not isinstance(block, dict):
                continue
            block_type = get_str(block, "type")
            if block_type == "text":
                draft.texts.append(get_str(block, "text"))
            elif block_type == "thinking":
                draft.reasoning.append(get_str(block, "thinking"))
            elif block_type in ("tool_use", "server_tool_use", "mcp_tool_use"):
                call_id = get_str(block, "id") or f"call_{len(draft.calls)}"
                draft.calls.append(
                    ToolCallRecord(call_id, get_str(block, "name", block_type), get_dict(block, "input"))
                )
        usage = get_dict(message, "usage")
        if message_id:
            self._message_usage[message_id] = usage
        if usage:
            draft.metrics = StepMetrics(
                prompt_tokens=_prompt_tokens(usage),
                cached_tokens=get_int(usage, "cache_read_input_tokens"),
                extra={"cache_creation_input_tokens": get_int(usage, "cache_creation_input_tokens")},
            )
        draft.model_name = get_str(message, "model") or None
        parent = event.get("parent_tool_use_id")
        if isinstance(parent, str) and parent:
            draft.extra["parent_tool_use_id"] = parent  # a subagent's step, under the Task call that started it

    def _user(self, event: dict[str, Any]) -> None:
        self.commit()
        content = get_dict(event, "message").get("content")
        injected: list[str] = []
        if isinstance(content, str):
            injected.append(content)
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_result":
                self.result(
                    get_str(block, "tool_use_id"), text_of(block.get("content")), is_error=block.get("is_error") is True
                )
            elif block.get("type") == "text":
                injected.append(get_str(block, "text"))
        text = "\n".join(t for t in injected if t)
        if text:
            self.builder.system(text, extra={"injected_by": "claude-code"})

    def finish(self) -> StreamEnd | None:
        self.commit()
        result = self._result
        if result is None:
            return None
        subtype = get_str(result, "subtype")
        text = get_str(result, "result")
        if subtype == "success" and result.get("is_error") is not True:
            return StreamEnd("final_answer", answer=text)
        if subtype == "error_max_turns":
            return StreamEnd("max_turns")
        status = result.get("api_error_status")
        if self._api_error is not None or isinstance(status, int):
            code = f" (HTTP {status})" if isinstance(status, int) else ""
            return StreamEnd(
                "model_error", infra_error=f"Claude Code: model API error{code}: {text or self._api_error}"
            )
        errors = "; ".join(e for e in get_list(result, "errors") if isinstance(e, str))
        return StreamEnd(
            "harness_error",
            infra_error=f"Claude Code ended with {subtype or 'an error'}: {errors or text or 'no detail'}",
        )

    @property
    def usage(self) -> Usage:
        calls = len(self._message_usage)
        if self._result is not None:
            usage = get_dict(self._result, "usage")
            return Usage(
                prompt_tokens=_prompt_tokens(usage),
                completion_tokens=get_int(usage, "output_tokens"),
                cache_read_tokens=get_int(usage, "cache_read_input_tokens"),
                cache_write_tokens=get_int(usage, "cache_creation_input_tokens"),
                cost_usd=get_float(self._result, "total_cost_usd"),
                model_calls=calls,
            )
        total = Usage()
        for usage in self._message_usage.values():
            total += Usage(
                prompt_tokens=_prompt_tokens(usage),
                completion_tokens=get_int(usage, "output_tokens"),
                cache_read_tokens=get_int(usage, "cache_read_input_tokens"),
                cache_write_tokens=get_int(usage, "cache_creation_input_tokens"),
                model_calls=1,
            )
        return total

    @property
    def model_turns(self) -> int:
        return len(self._message_usage)

    def extra(self) -> dict[str, Any]:
        init, result = self._init, self._result or {}
        info: dict[str, Any] = {
            "cli_session_id": get_str(init, "session_id") or get_str(result, "session_id") or None,
            "cli_model": get_str(init, "model") or None,
            "skills_listed": [s for s in get_list(init, "skills") if isinstance(s, str)],
            "tools_listed": [t for t in get_list(init, "tools") if isinstance(t, str)],
            "api_retries": self._api_retries,
            "cost_source": "Claude Code total_cost_usd" if self._result is not None else "not reported (run cut short)",
        }
        if result:
            info["num_turns"] = get_int(result, "num_turns")
            info["duration_ms"] = get_int(result, "duration_ms")
        return {k: v for k, v in info.items() if v is not None}
