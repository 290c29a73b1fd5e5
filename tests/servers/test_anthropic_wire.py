"""The scripted server speaks Anthropic Messages well enough for the real anthropic SDK and raw SSE readers."""

from __future__ import annotations

import json

import anthropic
import httpx
import pytest

from tests.servers import Call, Fault, StreamFault, Text, Tokens, ToolUse

MESSAGES = [{"role": "user", "content": "What is in notes.txt?"}]


def client_for(server) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(base_url=server.url, api_key="test-key", max_retries=0)


async def test_non_streaming_text_reply_with_cache_usage(scripted_server):
    usage = Tokens(input=7, output=3, cache_read=100, cache_write=20)
    server = scripted_server([Text("It holds a shopping list.", usage=usage)])
    async with client_for(server) as client:
        message = await client.messages.create(
            model="claude-test", max_tokens=50, system="You are terse.", messages=MESSAGES
        )
    assert message.content[0].type == "text"
    assert message.content[0].text == "It holds a shopping list."
    assert message.stop_reason == "end_turn"
    assert message.model == "claude-test"
    assert (message.usage.input_tokens, message.usage.output_tokens) == (7, 3)
    assert message.usage.cache_read_input_tokens == 100
    assert message.usage.cache_creation_input_tokens == 20
    assert server.requests[0].system_text == "You are terse."
    assert server.requests[0].last_user_text == "What is in notes.txt?"


async def test_streamed_tool_use_is_reassembled_by_the_sdk(scripted_server):
    reply = ToolUse(
        calls=[Call("read_file", {"path": "notes.txt"}), Call("grep", {"pattern": "milk", "n": 3})], text="Let me look."
    )
    server = scripted_server([reply])
    async with (
        client_for(server) as client,
        client.messages.stream(
            model="claude-test",
            max_tokens=50,
            messages=MESSAGES,
            tools=[
                {"name": "read_file", "input_schema": {"type": "object"}},
                {"name": "grep", "input_schema": {"type": "object"}},
            ],
        ) as stream,
    ):
        message = await stream.get_final_message()
    assert message.stop_reason == "tool_use"
    assert message.content[0].type == "text"
    assert message.content[0].text == "Let me look."
    calls = [(block.name, block.input) for block in message.content if block.type == "tool_use"]
    assert calls == [("read_file", {"path": "notes.txt"}), ("grep", {"pattern": "milk", "n": 3})]
    assert server.requests[0].tools == ["read_file", "grep"]
    assert server.requests[0].stream


async def test_raw_stream_has_the_documented_event_sequence(scripted_server):
    server = scripted_server([Text("one two three four five", usage=Tokens(input=4, output=5))])
    body = {"model": "m", "max_tokens": 10, "messages": MESSAGES, "stream": True}
    async with httpx.AsyncClient() as http:
        response = await http.post(f"{server.url}/v1/messages?beta=true", json=body)
    assert response.headers["content-type"] == "text/event-stream"
    events = [line.removeprefix("event: ") for line in response.text.splitlines() if line.startswith("event: ")]
    assert events[0] == "message_start"
    assert events[-3:] == ["content_block_stop", "message_delta", "message_stop"]
    assert events.count("content_block_delta") > 1, "text must arrive in several deltas"
    data = [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]
    deltas = "".join(d["delta"]["text"] for d in data if d["type"] == "content_block_delta")
    assert deltas == "one two three four five"
    message_delta = next(d for d in data if d["type"] == "message_delta")
    assert message_delta["usage"]["output_tokens"] == 5
    assert server.requests[0].query == "beta=true"


async def test_tool_results_are_visible_to_the_script(scripted_server):
    def script(request):
        return Text(f"saw {request.tool_results}") if request.tool_results else ToolUse("read_file", {"p": "x"})

    server = scripted_server(script)
    conversation = [
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "read_file", "input": {}}]},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "milk, eggs"}]}
            ],
        },
    ]
    async with client_for(server) as client:
        message = await client.messages.create(model="m", max_tokens=10, messages=conversation)
    assert message.content[0].text == "saw ['milk, eggs']"
    assert server.requests[0].last_user_text == "read it"


async def test_overload_and_rate_limit_errors_use_anthropic_shapes(scripted_server):
    server = scripted_server([Fault(529), Fault(429, retry_after=7), Fault(401)])
    async with client_for(server) as client:
        with pytest.raises(anthropic.OverloadedError) as overloaded:
            await client.messages.create(model="m", max_tokens=10, messages=MESSAGES)
        with pytest.raises(anthropic.RateLimitError) as limited:
            await client.messages.create(model="m", max_tokens=10, messages=MESSAGES)
        with pytest.raises(anthropic.AuthenticationError):
            await client.messages.create(model="m", max_tokens=10, messages=MESSAGES)
    assert overloaded.value.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "scripted fault 529"},
    }
    assert limited.value.response.headers["retry-after"] == "7"
    assert limited.value.type == "rate_limit_error"


async def test_overload_inside_a_200_stream_reaches_the_sdk_as_an_error(scripted_server):
    server = scripted_server([StreamFault(text_before="Partial answ")])
    async with client_for(server) as client:
        with pytest.raises(anthropic.APIStatusError) as caught:
            async with client.messages.stream(model="m", max_tokens=10, messages=MESSAGES) as stream:
                await stream.get_final_message()
    assert caught.value.status_code == 200
    assert caught.value.type == "overloaded_error"


async def test_truncated_reply_reports_max_tokens(scripted_server):
    server = scripted_server([Text("cut", truncated=True)])
    async with client_for(server) as client:
        message = await client.messages.create(model="m", max_tokens=1, messages=MESSAGES)
    assert message.stop_reason == "max_tokens"


async def test_models_listing(scripted_server):
    server = scripted_server(model_ids=["claude-a", "claude-b"])
    async with client_for(server) as client:
        page = await client.models.list()
    assert [model.id for model in page.data] == ["claude-a", "claude-b"]
