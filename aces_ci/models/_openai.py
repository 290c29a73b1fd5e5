"""OpenAI Chat Completions client, for api.openai.com and any compatible server (vLLM, Ollama, LM Studio,
llama.cpp): one non-streaming call per ``generate``, no retries of its own.

Compatible servers differ from the official API in two ways handled here: the official API wants
``max_completion_tokens`` (its reasoning models reject ``max_tokens``) while most compatible servers
only read ``max_tokens``; and some servers answer an overload with an ``error`` object inside a 200
body, which is classified like the status it stands for instead of being read as an empty answer.

A reply is read to :data:`~aces_ci.models._reply.MAX_REPLY_BODY_BYTES` at most (the capped HTTP client);
one cut there comes back as ``reply_too_large`` with its ``content`` as far as it was read, and
``max_tokens`` completion tokens (the usage at the end of the body was never read).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import openai

from ._base import FinishReason, Message, ModelAPIError, ModelClient, ModelRequest, ModelResponse, ToolCall
from ._errors import api_error, transport_error
from ._reply import REPLY_TOO_LARGE, ReplyTooLarge, partial_json_string, reply_too_large_in
from ._tool_args import arguments_text, tool_arguments
from ._transport import capped_http_client
from ._types import Usage

STOP_REASONS: dict[str, FinishReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
}


class OpenAIChatClient(ModelClient):
    provider = "openai"

    def __init__(
        self,
        model: str,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout_s: float = 120.0,
        provider: str = "openai",
    ) -> None:
        self.model = model
        self.provider = provider
        self.timeout_s = timeout_s
        self._max_tokens_param = "max_completion_tokens" if base_url is None else "max_tokens"
        self._client = openai.AsyncOpenAI(
            api_key=api_key,
            base_url=base_url,
            max_retries=0,
            timeout=timeout_s,
            http_client=capped_http_client(openai.DefaultAsyncHttpxClient),
        )

    async def generate(self, request: ModelRequest) -> ModelResponse:
        try:
            async with asyncio.timeout(self.timeout_s):
                completion = await self._client.chat.completions.create(**self._params(request))
        except TimeoutError as exc:
            raise transport_error(self.provider, timed_out=True, detail="", timeout_s=self.timeout_s) from exc
        except ReplyTooLarge as exc:
            return self._cut_short(exc, request)
        except openai.APIError as exc:
            too_large = reply_too_large_in(exc)
            if too_large is not None:
                return self._cut_short(too_large, request)
            raise self._error(exc) from exc
        return self._response(completion)

    def _cut_short(self, too_large: ReplyTooLarge, request: ModelRequest) -> ModelResponse:
        """A body cut at the transport's cap is no JSON: its answer is the first ``content`` string, as far as read."""
        return ModelResponse(
            text=partial_json_string(too_large.prefix, "content"),
            tool_calls=(),
            stop_reason=REPLY_TOO_LARGE,
            usage=Usage(completion_tokens=request.max_tokens, model_calls=1),
            model=self.model,
        )

    def _params(self, request: ModelRequest) -> dict[str, Any]:
        messages: list[dict[str, Any]] = [{"role": "system", "content": request.system}] if request.system else []
        messages += to_openai_messages(request.messages)
        params: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": request.temperature,
            self._max_tokens_param: request.max_tokens,
        }
        if request.seed is not None:
            params["seed"] = request.seed
        if request.tools:
            params["tools"] = [
                {
                    "type": "function",
                    "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters},
                }
                for tool in request.tools
            ]
        return params

    def _error(self, exc: openai.APIError) -> ModelAPIError:
        if isinstance(exc, openai.APITimeoutError):
            return transport_error(self.provider, timed_out=True, detail=exc.message, timeout_s=self.timeout_s)
        if isinstance(exc, openai.APIConnectionError):
            return transport_error(self.provider, timed_out=False, detail=exc.message, timeout_s=self.timeout_s)
        error_type = exc.code or exc.type
        if isinstance(exc, openai.APIStatusError):
            return api_error(
                self.provider,
                status=exc.status_code,
                error_type=error_type,
                message=_error_message(exc.body) or exc.message,
                headers=dict(exc.response.headers),
            )
        return api_error(self.provider, status=None, error_type=error_type, message=exc.message)

    def _response(self, completion: Any) -> ModelResponse:
        choices = getattr(completion, "choices", None)
        if not choices:
            raise self._empty_answer(completion)
        choice = choices[0]
        message = choice.message
        calls = tuple(
            ToolCall(id=call.id, name=call.function.name, arguments=tool_arguments(call.function.arguments))
            for call in message.tool_calls or ()
            if call.type == "function"
        )
        stop_reason: FinishReason = "tool_use" if calls else STOP_REASONS.get(choice.finish_reason or "", "other")
        return ModelResponse(
            text=message.content or "",
            tool_calls=calls,
            stop_reason=stop_reason,
            usage=_usage(completion.usage),
            model=completion.model or self.model,
            request_id=getattr(completion, "_request_id", None),
        )

    def _empty_answer(self, completion: Any) -> ModelAPIError:
        """An answer without choices: an error object inside a 200 body, or a server that sent nothing usable."""
        extra = getattr(completion, "model_extra", None) or {}
        error = extra.get("error")
        if isinstance(error, dict):
            code = error.get("code") or error.get("type")
            return api_error(
                self.provider,
                status=200,
                error_type=str(code) if code else None,
                message=str(error.get("message") or json.dumps(error)),
            )
        return ModelAPIError(f"{self.provider} API answered without any choices", status=200, retryable=True)

    async def aclose(self) -> None:
        await self._client.close()


def to_openai_messages(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    """Provider-neutral turns as Chat Completions messages.

    Chat Completions has no error flag on tool results: the harness states failures in the result text.
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "tool":
            out.append({"role": "tool", "tool_call_id": message.tool_call_id or "", "content": message.content})
        elif message.role == "assistant":
            entry: dict[str, Any] = {"role": "assistant", "content": message.content or None}
            if message.tool_calls:
                entry["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": arguments_text(call.arguments)},
                    }
                    for call in message.tool_calls
                ]
            out.append(entry)
        else:
            out.append({"role": "user", "content": message.content})
    return out


def _usage(usage: Any) -> Usage:
    if usage is None:
        return Usage(model_calls=1)
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) or 0
    return Usage(
        prompt_tokens=usage.prompt_tokens or 0,
        completion_tokens=usage.completion_tokens or 0,
        cache_read_tokens=cached,
        model_calls=1,
    )


def _error_message(body: object) -> str | None:
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
    return None
