"""OpenAI Chat Completions wire format: ``POST /v1/chat/completions`` bodies, ``data:`` chunks, error JSON."""

from __future__ import annotations

from typing import Any

from ._replies import StreamFault, Tokens, ToolUse
from ._request import ScriptedRequest
from ._wire import Answer, Wire, arguments_json, call_id, chunks, pieces, sse, usage_of

CREATED = 1_735_689_600
"""A fixed ``created`` timestamp (2025-01-01): replies stay byte-identical between runs."""

ERROR_BY_STATUS: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("permission_error", None),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}


def usage_json(tokens: Tokens) -> dict[str, Any]:
    return {
        "prompt_tokens": tokens.prompt_total,
        "completion_tokens": tokens.output,
        "total_tokens": tokens.prompt_total + tokens.output,
        "prompt_tokens_details": {"cached_tokens": tokens.cache_read},
        "completion_tokens_details": {"reasoning_tokens": 0},
    }


def _finish_reason(answer: Answer) -> str:
    if isinstance(answer, ToolUse):
        return "tool_calls"
    return "length" if answer.truncated else "stop"


class ChatWire(Wire):
    name = "chat"

    def _envelope(self, request: ScriptedRequest, kind: str, **fields: Any) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{request.index:06d}",
            "object": kind,
            "created": CREATED,
            "model": request.model or "scripted-model",
            "system_fingerprint": "fp_scripted",
            **fields,
        }

    def reply_body(self, answer: Answer, request: ScriptedRequest) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": answer.text or None, "refusal": None}
        if isinstance(answer, ToolUse):
            message["tool_calls"] = [
                {
                    "id": call_id(call, request, position, "call_"),
                    "type": "function",
                    "function": {"name": call.name, "arguments": arguments_json(call)},
                }
                for position, call in enumerate(answer.calls)
            ]
        choice = {"index": 0, "message": message, "finish_reason": _finish_reason(answer), "logprobs": None}
        return self._envelope(request, "chat.completion", choices=[choice], usage=usage_json(usage_of(answer, request)))

    def _chunk(self, request: ScriptedRequest, delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        extra: dict[str, Any] = {"usage": None} if _include_usage(request) else {}
        return sse(self._envelope(request, "chat.completion.chunk", choices=[choice], **extra))

    def _text_chunks(self, request: ScriptedRequest, text: str) -> list[bytes]:
        events = [self._chunk(request, {"role": "assistant", "content": ""})]
        events += [self._chunk(request, {"content": piece}) for piece in pieces(text)]
        return events

    def reply_events(self, answer: Answer, request: ScriptedRequest) -> list[bytes]:
        events = self._text_chunks(request, answer.text)
        if isinstance(answer, ToolUse):
            for position, call in enumerate(answer.calls):
                head = {
                    "index": position,
                    "id": call_id(call, request, position, "call_"),
                    "type": "function",
                    "function": {"name": call.name, "arguments": ""},
                }
                events.append(self._chunk(request, {"tool_calls": [head]}))
                for piece in chunks(arguments_json(call)):
                    part = {"index": position, "function": {"arguments": piece}}
                    events.append(self._chunk(request, {"tool_calls": [part]}))
        events.append(self._chunk(request, {}, _finish_reason(answer)))
        if _include_usage(request):
            usage = usage_json(usage_of(answer, request))
            events.append(sse(self._envelope(request, "chat.completion.chunk", choices=[], usage=usage)))
        events.append(sse("[DONE]"))
        return events

    def error_body(self, status: int, error_type: str | None, message: str) -> dict[str, Any]:
        kind, code = ERROR_BY_STATUS.get(status, ("server_error" if status >= 500 else "invalid_request_error", None))
        if error_type is not None:
            kind, code = error_type, error_type
        return {"error": {"message": message, "type": kind, "param": None, "code": code}}

    def fault_events(self, fault: StreamFault, request: ScriptedRequest) -> list[bytes]:
        events = self._text_chunks(request, fault.text_before)
        events.append(sse(self.fault_body(fault)))
        return events

    def fault_body(self, fault: StreamFault) -> dict[str, Any]:
        return {"error": {"message": fault.message, "type": fault.error_type, "param": None, "code": None}}

    def models_body(self, model_ids: tuple[str, ...]) -> dict[str, Any]:
        data = [{"id": m, "object": "model", "created": CREATED, "owned_by": "scripted"} for m in model_ids]
        return {"object": "list", "data": data}


def _include_usage(request: ScriptedRequest) -> bool:
    options = request.json.get("stream_options")
    return isinstance(options, dict) and options.get("include_usage") is True
