"""Provider clients against the scripted servers: wire mapping, usage, tool round trips, error classification."""

from __future__ import annotations

import json

import pytest

from aces_ci.models import (
    INVALID_ARGUMENTS_KEY,
    AnthropicClient,
    Message,
    ModelAPIError,
    ModelRequest,
    OpenAIChatClient,
    ToolCall,
    ToolSpec,
    tool_arguments,
)
from tests.servers import Call, Drop, Fault, Hang, SlowStream, StreamFault, Text, Tokens, ToolUse

READ_TOOL = ToolSpec("read_file", "Read a file of the workspace.", {"type": "object", "properties": {"path": {}}})
QUESTION = (Message("user", "What does notes.txt say?"),)


def anthropic_client(server, **options):
    return AnthropicClient("claude-test", api_key="sk-test", base_url=server.url, **options)


def openai_client(server, **options):
    return OpenAIChatClient("gpt-test", api_key="sk-test", base_url=server.openai_url, **options)


CLIENTS = {"anthropic": anthropic_client, "openai": openai_client}


@pytest.fixture(params=sorted(CLIENTS))
def make_client(request):
    return CLIENTS[request.param]


async def generate(client, request):
    try:
        return await client.generate(request)
    finally:
        await client.aclose()


# -- answers ------------------------------------------------------------------------------------------


async def test_text_answer_and_usage(scripted_server, make_client):
    server = scripted_server([Text("It says: buy milk.", usage=Tokens(input=40, output=6))])
    response = await generate(make_client(server), ModelRequest("Be brief.", QUESTION, max_tokens=64, seed=7))
    assert response.text == "It says: buy milk."
    assert response.tool_calls == ()
    assert response.stop_reason == "end_turn"
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (40, 6)
    assert response.usage.model_calls == 1
    assert response.request_id, "the server's request id is kept for support tickets"
    sent = server.requests[0]
    assert sent.system_text == "Be brief."
    assert sent.last_user_text == "What does notes.txt say?"


async def test_truncated_answer_reports_max_tokens(scripted_server, make_client):
    server = scripted_server([Text("It says: bu", truncated=True)])
    response = await generate(make_client(server), ModelRequest("", QUESTION, max_tokens=3))
    assert response.stop_reason == "max_tokens"


async def test_tool_calls_round_trip(scripted_server, make_client):
    def script(request):
        if not request.tool_results:
            return ToolUse(calls=[Call("read_file", {"path": "notes.txt"}), Call("read_file", {"path": "b.txt"})])
        return Text(" | ".join(request.tool_results))

    server = scripted_server(script)
    client = make_client(server)
    try:
        first = await client.generate(ModelRequest("sys", QUESTION, tools=(READ_TOOL,)))
        assert first.stop_reason == "tool_use"
        assert [(c.name, c.arguments) for c in first.tool_calls] == [
            ("read_file", {"path": "notes.txt"}),
            ("read_file", {"path": "b.txt"}),
        ]
        follow_up = (
            *QUESTION,
            Message("assistant", "", tool_calls=first.tool_calls),
            Message("tool", "buy milk", tool_call_id=first.tool_calls[0].id),
            Message("tool", "no such file", tool_call_id=first.tool_calls[1].id, is_error=True),
        )
        second = await client.generate(ModelRequest("sys", follow_up, tools=(READ_TOOL,)))
    finally:
        await client.aclose()
    assert second.text == "buy milk | no such file"
    assert server.requests[0].tools == ["read_file"]


async def test_anthropic_tool_results_merge_into_one_user_turn_with_error_flag(scripted_server):
    server = scripted_server([Text("ok")])
    calls = (ToolCall("toolu_1", "read_file", {"path": "a"}), ToolCall("toolu_2", "read_file", {"path": "b"}))
    conversation = (
        *QUESTION,
        Message("assistant", "Reading both.", tool_calls=calls),
        Message("tool", "A", tool_call_id="toolu_1"),
        Message("tool", "missing", tool_call_id="toolu_2", is_error=True),
    )
    await generate(anthropic_client(server), ModelRequest("sys", conversation))
    sent = server.requests[0].json["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[1]["content"] == [
        {"type": "text", "text": "Reading both."},
        {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a"}},
        {"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": {"path": "b"}},
    ]
    assert sent[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "A"},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "missing", "is_error": True},
    ]


async def test_anthropic_prompt_caching_marks_the_system_prompt(scripted_server):
    usage = Tokens(input=10, output=2, cache_read=3000, cache_write=500)
    server = scripted_server([Text("a", usage=usage), Text("b")])
    cached = await generate(anthropic_client(server), ModelRequest("Long stable system prompt.", QUESTION))
    await generate(anthropic_client(server, prompt_cache=False), ModelRequest("Long stable system prompt.", QUESTION))
    with_cache, without_cache = (r.json["system"] for r in server.requests)
    assert with_cache == [
        {"type": "text", "text": "Long stable system prompt.", "cache_control": {"type": "ephemeral"}}
    ]
    assert without_cache == [{"type": "text", "text": "Long stable system prompt."}]
    assert cached.usage.prompt_tokens == 3510, "prompt tokens include cache reads and writes"
    assert (cached.usage.cache_read_tokens, cached.usage.cache_write_tokens) == (3000, 500)


async def test_openai_request_shape_and_cached_tokens(scripted_server):
    server = scripted_server([Text("a", usage=Tokens(input=100, output=2, cache_read=900))])
    response = await generate(
        openai_client(server), ModelRequest("sys", QUESTION, tools=(READ_TOOL,), max_tokens=99, seed=5)
    )
    body = server.requests[0].json
    assert body["seed"] == 5
    assert body["max_tokens"] == 99, "compatible servers read max_tokens"
    assert body["messages"][0] == {"role": "system", "content": "sys"}
    assert body["tools"] == [
        {
            "type": "function",
            "function": {"name": "read_file", "description": READ_TOOL.description, "parameters": READ_TOOL.parameters},
        }
    ]
    assert (response.usage.prompt_tokens, response.usage.cache_read_tokens) == (1000, 900)


async def test_openai_invalid_tool_arguments_are_kept_not_dropped(scripted_server):
    raw = "{'path': notes.txt"  # what a small model writes
    body = {
        "id": "c1",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-test",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": raw}}
                    ],
                },
            }
        ],
    }
    server = scripted_server([Fault(200, body=json.dumps(body)), Text("fixed")])
    client = openai_client(server)
    try:
        response = await client.generate(ModelRequest("", QUESTION, tools=(READ_TOOL,)))
        assert response.tool_calls[0].arguments == {INVALID_ARGUMENTS_KEY: raw}
        assert response.usage.prompt_tokens == 0, "a server without usage counts nothing, not garbage"
        echoed = (*QUESTION, Message("assistant", "", tool_calls=response.tool_calls))
        await client.generate(ModelRequest("", (*echoed, Message("tool", "bad JSON", tool_call_id="call_1"))))
    finally:
        await client.aclose()
    sent_back = server.requests[1].json["messages"][1]["tool_calls"][0]["function"]["arguments"]
    assert sent_back == raw, "the model sees its own text again, not our wrapper"


# -- errors -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "retryable"),
    [
        (Fault(400), False),
        (Fault(401), False),
        (Fault(403), False),
        (Fault(404), False),
        (Fault(408), True),
        (Fault(409), True),
        (Fault(429), True),
        (Fault(429, error_type="insufficient_quota"), False),
        (Fault(500), True),
        (Fault(503), True),
        (Fault(529), True),
        (Fault(500, headers={"x-should-retry": "false"}), False),
        (Fault(400, headers={"x-should-retry": "true"}), True),
    ],
)
async def test_http_errors_are_classified(scripted_server, make_client, fault, retryable):
    server = scripted_server([fault])
    with pytest.raises(ModelAPIError) as caught:
        await generate(make_client(server), ModelRequest("", QUESTION))
    assert caught.value.status == fault.status
    assert caught.value.retryable is retryable
    assert server.calls == 1, "clients never retry on their own"


async def test_retry_after_headers_are_read(scripted_server, make_client):
    server = scripted_server([Fault(429, retry_after=7), Fault(429, retry_after=7, retry_after_ms=1500)])
    client = make_client(server)
    try:
        with pytest.raises(ModelAPIError) as seconds:
            await client.generate(ModelRequest("", QUESTION))
        with pytest.raises(ModelAPIError) as millis:
            await client.generate(ModelRequest("", QUESTION))
    finally:
        await client.aclose()
    assert seconds.value.retry_after_s == 7.0
    assert millis.value.retry_after_s == 1.5, "retry-after-ms is the more precise hint"


async def test_overload_inside_a_200_body_is_retryable(scripted_server, make_client):
    server = scripted_server([StreamFault(text_before="Half an ans")])
    with pytest.raises(ModelAPIError) as caught:
        await generate(make_client(server), ModelRequest("", QUESTION))
    assert caught.value.retryable
    assert "overloaded_error" in str(caught.value)


async def test_dropped_connection_is_retryable(scripted_server, make_client):
    server = scripted_server([Drop()])
    with pytest.raises(ModelAPIError) as caught:
        await generate(make_client(server), ModelRequest("", QUESTION))
    assert caught.value.retryable
    assert caught.value.status is None


async def test_hanging_server_times_out_at_the_configured_timeout(scripted_server, make_client):
    server = scripted_server([Hang(seconds=120)])
    with pytest.raises(ModelAPIError) as caught:
        await generate(make_client(server, timeout_s=0.3), ModelRequest("", QUESTION))
    assert caught.value.retryable
    assert "timed out after 0.3 s" in str(caught.value)


async def test_a_stream_that_stalls_times_out(scripted_server):
    server = scripted_server([SlowStream(Text("word " * 50), delay_s=5.0)])
    with pytest.raises(ModelAPIError, match=r"timed out after 0\.3 s") as caught:
        await generate(anthropic_client(server, timeout_s=0.3), ModelRequest("", QUESTION))
    assert caught.value.retryable


async def test_openai_answer_without_choices_is_a_retryable_error(scripted_server):
    empty = json.dumps({"id": "c1", "object": "chat.completion", "created": 0, "model": "m", "choices": []})
    server = scripted_server([Fault(200, body=empty)])
    with pytest.raises(ModelAPIError, match="without any choices") as caught:
        await generate(openai_client(server), ModelRequest("", QUESTION))
    assert caught.value.retryable


async def test_error_messages_name_the_problem_but_not_the_key(scripted_server, make_client):
    server = scripted_server([Fault(401, message="invalid x-api-key")])
    with pytest.raises(ModelAPIError) as caught:
        await generate(make_client(server), ModelRequest("", QUESTION))
    assert "401" in str(caught.value)
    assert "invalid x-api-key" in str(caught.value)
    assert "sk-test" not in str(caught.value)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"a": 1}, {"a": 1}),
        ('{"a": 1}', {"a": 1}),
        ("", {}),
        ("[1, 2]", {INVALID_ARGUMENTS_KEY: "[1, 2]"}),
        ("{oops", {INVALID_ARGUMENTS_KEY: "{oops"}),
        ("[" * 50_000, {INVALID_ARGUMENTS_KEY: "[" * 50_000}),
    ],
)
def test_tool_arguments_never_lose_what_the_model_wrote(raw, expected):
    assert tool_arguments(raw) == expected
