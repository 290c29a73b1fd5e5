"""Anthropic Messages API client: one streamed call per ``generate``, no retries of its own.

Streaming is used even though we only want the final message: a stream keeps long generations from
tripping the SDK's "non-streaming request too long" guard, and overload arrives as an ``error`` event
inside an HTTP 200 stream, which we then classify as retryable like a 529.

Sampling settings are not sent: the Messages API of the anthropic SDK we build on (2.x) has no
``temperature`` (nor ``seed``) parameter, so ``ModelRequest.temperature``/``seed`` do not apply here.

A reply is read to :data:`~aces_ci.models._reply.MAX_REPLY_BODY_BYTES` at most (the capped HTTP client);
one cut there comes back as ``reply_too_large`` with the text streamed so far. Its completion tokens
are counted as ``max_tokens``, the least a provider bills for a reply that long, since the usage the
end of the stream would have reported was never read.

Prompt caching puts ``cache_control`` on the system prompt, which caches tools and system together
(the API caches the prefix in that order); prompts under the model's minimum are simply not cached.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anthropic

from ._base import FinishReason, Message, ModelAPIError, ModelClient, ModelRequest, ModelResponse, ToolCall
from ._errors import api_error, transport_error
from ._reply import REPLY_TOO_LARGE, ReplyTooLarge, reply_too_large_in
from ._tool_args import tool_arguments
from ._transport import capped_http_client
from ._types import Usage

STOP_REASONS: dict[str, FinishReason] = {
    "end_turn": "end_turn",
    "stop_sequence": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
}


class AnthropicClient(ModelClient):
    provider = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout_s: float = 120.0,
        prompt_cache: bool = True,
    ) -> None:
        self.model = model
        self.timeout_s = timeout_s
        self.prompt_cache = prompt_cache
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key,
            base_url=base_url,
            max_retries=0,
            timeout=timeout_s,
            http_client=capped_http_client(anthropic.DefaultAsyncHttpxClient),
        )

    async def generate(self, request: ModelRequest) -> ModelResponse:
        params = self._params(request)
        try:
            async with asyncio.timeout(self.timeout_s):
                async with self._client.messages.stream(**params) as stream:
                    try:
                        message = await stream.get_final_message()
                    except ReplyTooLarge:
                        return self._cut_short(stream, request)
                    request_id = stream.request_id
        except TimeoutError as exc:
            raise transport_error(self.provider, timed_out=True, detail="", timeout_s=self.timeout_s) from exc
        except ReplyTooLarge:
            return self._cut_short(None, request)
        except anthropic.APIError as exc:
            if reply_too_large_in(exc) is not None:
                return self._cut_short(None, request)
            raise self._error(exc) from exc
        return self._response(message, request_id)

    def _cut_short(self, stream: Any, request: ModelRequest) -> ModelResponse:
        """The message as far as the stream got before the transport's cap: its text, marked too large.

        The SDK's public ``current_message_snapshot`` asserts that a message started; this reads it or None.
        """
        snapshot = stream._current_snapshot_or_none() if stream is not None else None
        text = "".join(block.text for block in snapshot.content if block.type == "text") if snapshot else ""
        return ModelResponse(
            text=text,
            tool_calls=(),
            stop_reason=REPLY_TOO_LARGE,
            usage=Usage(
                prompt_tokens=snapshot.usage.input_tokens if snapshot else 0,
                completion_tokens=request.max_tokens,
                model_calls=1,
            ),
            model=snapshot.model if snapshot else self.model,
            request_id=stream.request_id if stream is not None else None,
        )

    def _params(self, request: ModelRequest) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_tokens,
            "messages": to_anthropic_messages(request.messages),
        }
        if request.system:
            block: dict[str, Any] = {"type": "text", "text": request.system}
            if self.prompt_cache:
                block["cache_control"] = {"type": "ephemeral"}
            params["system"] = [block]
        if request.tools:
            params["tools"] = [
                {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
                for tool in request.tools
            ]
        return params

    def _error(self, exc: anthropic.APIError) -> ModelAPIError:
        if isinstance(exc, anthropic.APITimeoutError):
            return transport_error(self.provider, timed_out=True, detail=exc.message, timeout_s=self.timeout_s)
        if isinstance(exc, anthropic.APIConnectionError):
            return transport_error(self.provider, timed_out=False, detail=exc.message, timeout_s=self.timeout_s)
        if isinstance(exc, anthropic.APIStatusError):
            message = exc.api_message or _body_text(exc.body) or exc.message
            return api_error(
                self.provider,
                status=exc.status_code,
                error_type=exc.type,
                message=message,
                headers=dict(exc.response.headers),
            )
        return api_error(self.provider, status=None, error_type=None, message=exc.message)

    def _response(self, message: Any, request_id: str | None) -> ModelResponse:
        texts: list[str] = []
        calls: list[ToolCall] = []
        for block in message.content:
            if block.type == "text":
                texts.append(block.text)
            elif block.type == "tool_use":
                calls.append(ToolCall(id=block.id, name=block.name, arguments=tool_arguments(block.input)))
        usage = message.usage
        cache_read = usage.cache_read_input_tokens or 0
        cache_write = usage.cache_creation_input_tokens or 0
        return ModelResponse(
            text="".join(texts),
            tool_calls=tuple(calls),
            stop_reason=STOP_REASONS.get(message.stop_reason or "", "other"),
            usage=Usage(
                prompt_tokens=usage.input_tokens + cache_read + cache_write,
                completion_tokens=usage.output_tokens,
                cache_read_tokens=cache_read,
                cache_write_tokens=cache_write,
                model_calls=1,
            ),
            model=message.model,
            request_id=request_id,
        )

    async def aclose(self) -> None:
        await self._client.close()


def to_anthropic_messages(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    """Provider-neutral turns as Messages API turns.

    Tool results travel as ``tool_result`` blocks in a user turn; consecutive user-side turns (results of
    parallel calls, then maybe a user message) merge into one turn, as the API expects alternation.
    Turns with nothing to send (an assistant turn with neither text nor calls, an empty user text) are
    left out, because the API refuses empty text blocks.
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "assistant":
            blocks: list[dict[str, Any]] = [{"type": "text", "text": message.content}] if message.content else []
            blocks += [
                {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
                for call in message.tool_calls
            ]
            if blocks:
                out.append({"role": "assistant", "content": blocks})
            continue
        if message.role == "tool":
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id or "",
                "content": message.content,
            }
            if message.is_error:
                block["is_error"] = True
        elif message.content:
            block = {"type": "text", "text": message.content}
        else:
            continue  # the API refuses empty text blocks
        if out and out[-1]["role"] == "user":
            out[-1]["content"].append(block)
        else:
            out.append({"role": "user", "content": [block]})
    return out


def _body_text(body: object) -> str:
    return body if isinstance(body, str) else json.dumps(body) if body is not None else ""
