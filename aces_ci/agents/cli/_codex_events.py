"""Codex's ``codex exec --json`` events, as ATIF steps.

The stream (checked against Codex 0.171) is one JSON object per line: ``thread.started``,
``turn.started``, ``item.started`` / ``item.updated`` / ``item.completed`` carrying one ``item``
each, ``turn.completed`` with the turn's ``usage``, ``turn.failed`` with an ``error``, and a
top-level ``error`` for each reconnect attempt. Items are ``agent_message``, ``reasoning``,
``command_execution`` (a shell command and its output), ``file_change``, ``mcp_tool_call``,
``web_search``, ``todo_list`` and ``error`` (a notice, e.g. unknown model metadata; not fatal).

Codex does not say which items came from which model response, so each item becomes its own
agent step, with any reasoning that preceded it. Nor does it report cost, per-response usage or
a call count: tokens come from ``turn.completed`` (``input_tokens`` already includes the cached
ones), cost is 0, and the call count is estimated as one per agent step. Codex reads a skill by
running a shell command, recorded as a ``shell`` tool call whose ``command`` the skill-event
detector parses.
"""

from __future__ import annotations

from typing import Any

from ...models import Usage
from .._atif import ToolCallRecord, TrajectoryBuilder
from ._stream import EventStream, StepDraft, StreamEnd, get_dict, get_int, get_list, get_str, text_of

SHELL_TOOL = "shell"
"""The function name a ``command_execution`` item is recorded under (a name the skill detector reads)."""
RECONNECT_PREFIX = "Reconnecting"
UNFINISHED = "(no result: the run ended before this finished)"


class CodexEvents(EventStream):
    def __init__(self, builder: TrajectoryBuilder) -> None:
        super().__init__(builder)
        self._thread_id: str | None = None
        self._reasoning: list[str] = []
        self._started: dict[str, dict[str, Any]] = {}
        self._last_message: str | None = None
        self._usage = Usage()
        self._agent_steps = 0
        self._turn_completed = False
        self._turn_failed: str | None = None
        self._reconnects = 0
        self._last_error: str | None = None
        self._unknown_items = 0

    def handle(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "thread.started":
            self._thread_id = get_str(event, "thread_id") or None
        elif kind == "item.started":
            item = get_dict(event, "item")
            if get_str(item, "id"):
                self._started[get_str(item, "id")] = item
        elif kind == "item.completed":
            item = get_dict(event, "item")
            self._started.pop(get_str(item, "id"), None)
            self._item(item, finished=True)
        elif kind == "turn.completed":
            self._turn_completed = True
            usage = get_dict(event, "usage")
            self._usage += Usage(
                prompt_tokens=get_int(usage, "input_tokens"),
                completion_tokens=get_int(usage, "output_tokens"),
                cache_read_tokens=get_int(usage, "cached_input_tokens"),
                cache_write_tokens=get_int(usage, "cache_write_input_tokens"),
            )
        elif kind == "turn.failed":
            self._turn_failed = get_str(get_dict(event, "error"), "message") or "turn failed"
        elif kind == "error":
            message = get_str(event, "message")
            if message.startswith(RECONNECT_PREFIX):
                self._reconnects += 1
            self._last_error = message or self._last_error

    def _item(self, item: dict[str, Any], *, finished: bool) -> None:
        item_type = get_str(item, "type")
        item_id = get_str(item, "id") or f"item_{self.raw.total}"
        if item_type == "reasoning":
            self._reasoning.append(get_str(item, "text"))
        elif item_type == "agent_message":
            text = get_str(item, "text")
            self._step(message=text)
            self._last_message = text
        elif item_type == "command_execution":
            status = get_str(item, "status")
            exit_code = item.get("exit_code")
            failed = status in ("failed", "declined") or (isinstance(exit_code, int) and exit_code != 0)
            self._call(
                ToolCallRecord(item_id, SHELL_TOOL, {"command": get_str(item, "command")}),
                get_str(item, "aggregated_output") if finished else UNFINISHED,
                is_error=failed,
                extra={"exit_code": exit_code, "status": status or None},
            )
        elif item_type == "file_change":
            changes = [c for c in get_list(item, "changes") if isinstance(c, dict)]
            status = get_str(item, "status")
            self._call(
                ToolCallRecord(item_id, "file_change", {"changes": changes}),
                status if finished else UNFINISHED,
                is_error=status == "failed",
            )
        elif item_type == "mcp_tool_call":
            name = f"mcp__{get_str(item, 'server')}__{get_str(item, 'tool')}"
            error = get_dict(item, "error")
            content = get_str(error, "message") or text_of(get_dict(item, "result").get("content"))
            self._call(
                ToolCallRecord(item_id, name, get_dict(item, "arguments")),
                content if finished else UNFINISHED,
                is_error=bool(error) or get_str(item, "status") == "failed",
            )
        elif item_type == "web_search":
            self._call(ToolCallRecord(item_id, "web_search", {"query": get_str(item, "query")}), "")
        elif item_type == "todo_list":
            items = [i for i in get_list(item, "items") if isinstance(i, dict)]
            self._call(ToolCallRecord(item_id, "todo_list", {"items": items}), "")
        elif item_type == "error":
            self.builder.system(f"Codex: {get_str(item, 'message')}", extra={"harness_notice": True})
        else:
            self._unknown_items += 1

    def _new_step(self) -> StepDraft:
        """An agent step for the next item, carrying the reasoning that came before it."""
        draft = self.draft()
        draft.reasoning.extend(self._reasoning)
        self._reasoning = []
        self._agent_steps += 1
        return draft

    def _step(self, *, message: str) -> None:
        self._new_step().texts.append(message)
        self.commit()

    def _call(
        self, call: ToolCallRecord, output: str, *, is_error: bool = False, extra: dict[str, Any] | None = None
    ) -> None:
        self._new_step().calls.append(call)
        self.commit()
        kept = {k: v for k, v in (extra or {}).items() if v is not None}
        self.result(call.tool_call_id, output, is_error=is_error, extra=kept)

    def finish(self) -> StreamEnd | None:
        for item in list(self._started.values()):
            self._item(item, finished=False)
        self._started.clear()
        if self._turn_failed is not None:
            return StreamEnd("model_error", infra_error=f"Codex: {self._turn_failed}")
        if self._turn_completed:
            if self._last_message is None:
                return StreamEnd("no_answer")
            return StreamEnd("final_answer", answer=self._last_message)
        return None

    @property
    def usage(self) -> Usage:
        return Usage(
            prompt_tokens=self._usage.prompt_tokens,
            completion_tokens=self._usage.completion_tokens,
            cache_read_tokens=self._usage.cache_read_tokens,
            cache_write_tokens=self._usage.cache_write_tokens,
            model_calls=self._agent_steps,
        )

    @property
    def model_turns(self) -> int:
        return self._agent_steps

    def extra(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "cli_session_id": self._thread_id,
            "reconnects": self._reconnects,
            "cost_source": "not reported by Codex (0)",
            "model_calls_source": "estimated, one per agent step (Codex reports no per-call events)",
        }
        if self._last_error:
            info["last_error"] = self._last_error
        if self._unknown_items:
            info["unknown_items"] = self._unknown_items
        return {k: v for k, v in info.items() if v is not None}
