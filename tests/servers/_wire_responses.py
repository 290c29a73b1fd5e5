"""OpenAI Responses API wire format (``POST /v1/responses``), the only API the Codex CLI speaks.

Event names and fields follow the openai SDK's ``openai/types/responses/*_event.py`` models, so the SDK's
own stream parser (and Codex's) reads them: ``response.created``, ``response.in_progress``,
``response.output_item.added``, ``response.content_part.added``, ``response.output_text.delta``/``.done``,
``response.content_part.done``, ``response.function_call_arguments.delta``/``.done``,
``response.output_item.done``, and ``response.completed`` (or ``response.incomplete`` / ``response.failed``).
"""

from __future__ import annotations

from typing import Any

from ._replies import StreamFault, Text, Tokens, ToolUse
from ._request import ScriptedRequest
from ._wire import Answer, Wire, arguments_json, call_id, chunks, pieces, sse, usage_of
from ._wire_chat import CREATED, ChatWire


def _usage(tokens: Tokens) -> dict[str, Any]:
    return {
        "input_tokens": tokens.prompt_total,
        "input_tokens_details": {"cached_tokens": tokens.cache_read, "cache_write_tokens": tokens.cache_write},
        "output_tokens": tokens.output,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": tokens.prompt_total + tokens.output,
    }


def _message_item(request: ScriptedRequest, text: str, status: str) -> dict[str, Any]:
    content = (
        [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}] if status == "completed" else []
    )
    return {
        "id": f"msg_{request.index:06d}",
        "type": "message",
        "role": "assistant",
        "status": status,
        "content": content,
    }


def _call_item(request: ScriptedRequest, answer: ToolUse, position: int, status: str) -> dict[str, Any]:
    call = answer.calls[position]
    return {
        "id": f"fc_{request.index:04d}{position:02d}",
        "type": "function_call",
        "call_id": call_id(call, request, position, "call_"),
        "name": call.name,
        "arguments": arguments_json(call) if status == "completed" else "",
        "status": status,
    }


def _output(answer: Answer, request: ScriptedRequest) -> list[dict[str, Any]]:
    items = [_message_item(request, answer.text, "completed")] if answer.text else []
    if isinstance(answer, ToolUse):
        items += [_call_item(request, answer, position, "completed") for position in range(len(answer.calls))]
    return items


class _Sequencer:
    """Numbers events in order, as the API's ``sequence_number`` does."""

    def __init__(self) -> None:
        self.events: list[bytes] = []

    def add(self, kind: str, **fields: Any) -> None:
        self.events.append(sse({"type": kind, "sequence_number": len(self.events), **fields}, kind))


class ResponsesWire(Wire):
    name = "responses"

    def _response(
        self,
        request: ScriptedRequest,
        status: str,
        output: list[dict[str, Any]],
        usage: dict[str, Any] | None,
        **extra: Any,
    ) -> dict[str, Any]:
        tools = request.json.get("tools")
        return {
            "id": f"resp_{request.index:06d}",
            "object": "response",
            "created_at": CREATED,
            "model": request.model or "scripted-model",
            "status": status,
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": tools if isinstance(tools, list) else [],
            "usage": usage,
            "error": None,
            "incomplete_details": None,
            **extra,
        }

    def _final(self, answer: Answer, request: ScriptedRequest) -> dict[str, Any]:
        usage = _usage(usage_of(answer, request))
        if isinstance(answer, Text) and answer.truncated:
            return self._response(
                request,
                "incomplete",
                _output(answer, request),
                usage,
                incomplete_details={"reason": "max_output_tokens"},
            )
        return self._response(request, "completed", _output(answer, request), usage)

    def reply_body(self, answer: Answer, request: ScriptedRequest) -> dict[str, Any]:
        return self._final(answer, request)

    def _opening(self, request: ScriptedRequest) -> _Sequencer:
        seq = _Sequencer()
        seq.add("response.created", response=self._response(request, "in_progress", [], None))
        seq.add("response.in_progress", response=self._response(request, "in_progress", [], None))
        return seq

    def _stream_text(self, seq: _Sequencer, request: ScriptedRequest, text: str, finish: bool = True) -> None:
        item_id = f"msg_{request.index:06d}"
        seq.add("response.output_item.added", output_index=0, item=_message_item(request, "", "in_progress"))
        part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
        seq.add("response.content_part.added", item_id=item_id, output_index=0, content_index=0, part=part)
        for piece in pieces(text):
            seq.add(
                "response.output_text.delta", item_id=item_id, output_index=0, content_index=0, delta=piece, logprobs=[]
            )
        if not finish:
            return
        seq.add("response.output_text.done", item_id=item_id, output_index=0, content_index=0, text=text, logprobs=[])
        seq.add(
            "response.content_part.done", item_id=item_id, output_index=0, content_index=0, part={**part, "text": text}
        )
        seq.add("response.output_item.done", output_index=0, item=_message_item(request, text, "completed"))

    def reply_events(self, answer: Answer, request: ScriptedRequest) -> list[bytes]:
        seq = self._opening(request)
        output_index = 0
        if answer.text:
            self._stream_text(seq, request, answer.text)
            output_index = 1
        if isinstance(answer, ToolUse):
            for position in range(len(answer.calls)):
                added = _call_item(request, answer, position, "in_progress")
                seq.add("response.output_item.added", output_index=output_index, item=added)
                arguments = arguments_json(answer.calls[position])
                for piece in chunks(arguments):
                    seq.add(
                        "response.function_call_arguments.delta",
                        item_id=added["id"],
                        output_index=output_index,
                        delta=piece,
                    )
                seq.add(
                    "response.function_call_arguments.done",
                    item_id=added["id"],
                    output_index=output_index,
                    arguments=arguments,
                )
                seq.add(
                    "response.output_item.done",
                    output_index=output_index,
                    item=_call_item(request, answer, position, "completed"),
                )
                output_index += 1
        final = self._final(answer, request)
        seq.add("response.incomplete" if final["status"] == "incomplete" else "response.completed", response=final)
        return seq.events

    def error_body(self, status: int, error_type: str | None, message: str) -> dict[str, Any]:
        return ChatWire().error_body(status, error_type, message)

    def fault_events(self, fault: StreamFault, request: ScriptedRequest) -> list[bytes]:
        seq = self._opening(request)
        if fault.text_before:
            self._stream_text(seq, request, fault.text_before, finish=False)
        failed = self._response(request, "failed", [], None, error={"code": fault.error_type, "message": fault.message})
        seq.add("response.failed", response=failed)
        return seq.events

    def fault_body(self, fault: StreamFault) -> dict[str, Any]:
        return ChatWire().fault_body(fault)

    def models_body(self, model_ids: tuple[str, ...]) -> dict[str, Any]:
        return ChatWire().models_body(model_ids)
