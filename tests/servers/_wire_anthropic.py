"""Anthropic Messages API wire format: ``POST /v1/messages`` bodies, SSE events and error JSON."""

from __future__ import annotations

from typing import Any

from ._replies import StreamFault, Text, Tokens, ToolUse
from ._request import ScriptedRequest
from ._wire import Answer, Wire, arguments_json, call_id, chunks, pieces, sse, usage_of

ERROR_TYPE_BY_STATUS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def _usage(tokens: Tokens, output: int | None = None) -> dict[str, int]:
    return {
        "input_tokens": tokens.input,
        "output_tokens": tokens.output if output is None else output,
        "cache_creation_input_tokens": tokens.cache_write,
        "cache_read_input_tokens": tokens.cache_read,
    }


def _stop_reason(answer: Answer) -> str:
    if isinstance(answer, ToolUse):
        return "tool_use"
    return "max_tokens" if answer.truncated else "end_turn"


def _blocks(answer: Answer, request: ScriptedRequest) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if answer.text:
        blocks.append({"type": "text", "text": answer.text})
    if isinstance(answer, ToolUse):
        for position, call in enumerate(answer.calls):
            blocks.append(
                {
                    "type": "tool_use",
                    "id": call_id(call, request, position, "toolu_"),
                    "name": call.name,
                    "input": dict(call.arguments),
                }
            )
    return blocks


class AnthropicWire(Wire):
    name = "anthropic"

    def _message(self, request: ScriptedRequest, content: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        return {
            "id": f"msg_{request.index:06d}",
            "type": "message",
            "role": "assistant",
            "model": request.model or "scripted-model",
            "content": content,
            "stop_sequence": None,
            **extra,
        }

    def reply_body(self, answer: Answer, request: ScriptedRequest) -> dict[str, Any]:
        return self._message(
            request,
            _blocks(answer, request),
            stop_reason=_stop_reason(answer),
            usage=_usage(usage_of(answer, request)),
        )

    def _start(self, request: ScriptedRequest, tokens: Tokens) -> list[bytes]:
        start = self._message(request, [], stop_reason=None, usage=_usage(tokens, output=1))
        return [sse({"type": "message_start", "message": start}, "message_start"), sse({"type": "ping"}, "ping")]

    def _text_block(self, index: int, text: str) -> list[bytes]:
        events = [
            sse(
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
                "content_block_start",
            )
        ]
        for piece in pieces(text):
            delta = {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}}
            events.append(sse(delta, "content_block_delta"))
        events.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
        return events

    def reply_events(self, answer: Answer, request: ScriptedRequest) -> list[bytes]:
        tokens = usage_of(answer, request)
        events = self._start(request, tokens)
        index = 0
        if answer.text:
            events += self._text_block(index, answer.text)
            index += 1
        if isinstance(answer, ToolUse):
            for position, call in enumerate(answer.calls):
                block = {
                    "type": "tool_use",
                    "id": call_id(call, request, position, "toolu_"),
                    "name": call.name,
                    "input": {},
                }
                events.append(
                    sse({"type": "content_block_start", "index": index, "content_block": block}, "content_block_start")
                )
                for piece in chunks(arguments_json(call)):
                    delta = {"type": "input_json_delta", "partial_json": piece}
                    events.append(
                        sse({"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta")
                    )
                events.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
                index += 1
        message_delta = {
            "type": "message_delta",
            "delta": {"stop_reason": _stop_reason(answer), "stop_sequence": None},
            "usage": _usage(tokens),
        }
        events.append(sse(message_delta, "message_delta"))
        events.append(sse({"type": "message_stop"}, "message_stop"))
        return events

    def error_body(self, status: int, error_type: str | None, message: str) -> dict[str, Any]:
        kind = error_type or ERROR_TYPE_BY_STATUS.get(status, "api_error" if status >= 500 else "invalid_request_error")
        return {"type": "error", "error": {"type": kind, "message": message}}

    def fault_events(self, fault: StreamFault, request: ScriptedRequest) -> list[bytes]:
        events = self._start(request, usage_of(Text(fault.text_before), request))
        if fault.text_before:
            events += self._text_block(0, fault.text_before)
        events.append(sse(self.fault_body(fault), "error"))
        return events

    def fault_body(self, fault: StreamFault) -> dict[str, Any]:
        return {"type": "error", "error": {"type": fault.error_type, "message": fault.message}}

    def models_body(self, model_ids: tuple[str, ...]) -> dict[str, Any]:
        data = [
            {"type": "model", "id": model_id, "display_name": model_id, "created_at": "2025-01-01T00:00:00Z"}
            for model_id in model_ids
        ]
        return {
            "data": data,
            "has_more": False,
            "first_id": model_ids[0] if model_ids else None,
            "last_id": model_ids[-1] if model_ids else None,
        }
