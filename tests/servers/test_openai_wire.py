"""The scripted server speaks OpenAI Chat Completions and Responses for the real openai SDK and raw readers."""

from __future__ import annotations

import json

import httpx
import openai
import pytest

from tests.servers import Call, Fault, StreamFault, Text, Tokens, ToolUse

CHAT = [{"role": "system", "content": "Be brief. MARKER-7"}, {"role": "user", "content": "Sum 2 and 2"}]


def client_for(server) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=server.openai_url, api_key="test-key", max_retries=0)


async def test_chat_non_streaming_with_cached_tokens(scripted_server):
    server = scripted_server([Text("4", usage=Tokens(input=10, output=1, cache_read=30))])
    async with client_for(server) as client:
        completion = await client.chat.completions.create(model="gpt-test", messages=CHAT, seed=3)
    assert completion.choices[0].message.content == "4"
    assert completion.choices[0].finish_reason == "stop"
    assert completion.usage is not None
    assert completion.usage.prompt_tokens == 40, "prompt tokens include the cached ones"
    assert completion.usage.prompt_tokens_details.cached_tokens == 30
    request = server.requests[0]
    assert request.system_text == "Be brief. MARKER-7"
    assert request.last_user_text == "Sum 2 and 2"
    assert request.json["seed"] == 3


async def test_chat_script_can_branch_on_the_system_prompt(scripted_server):
    server = scripted_server(lambda req: Text("42") if "MARKER-7" in req.system_text else Text("no idea"))
    async with client_for(server) as client:
        marked = await client.chat.completions.create(model="m", messages=CHAT)
        plain = await client.chat.completions.create(model="m", messages=CHAT[1:])
    assert (marked.choices[0].message.content, plain.choices[0].message.content) == ("42", "no idea")
    assert server.calls == 2


async def test_chat_stream_with_tool_call_deltas_and_final_usage_chunk(scripted_server):
    reply = ToolUse(calls=[Call("add", {"a": 2, "b": 2}), Call("log", {"msg": "adding numbers now"})])
    server = scripted_server([reply])
    async with client_for(server) as client:
        stream = await client.chat.completions.create(
            model="m",
            messages=CHAT,
            stream=True,
            stream_options={"include_usage": True},
            tools=[{"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}],
        )
        chunks = [chunk async for chunk in stream]
    arguments: dict[int, str] = {}
    names: dict[int, str] = {}
    for chunk in chunks:
        for choice in chunk.choices:
            for delta in choice.delta.tool_calls or []:
                arguments[delta.index] = arguments.get(delta.index, "") + (delta.function.arguments or "")
                if delta.function.name:
                    names[delta.index] = delta.function.name
    assert names == {0: "add", 1: "log"}
    assert [json.loads(arguments[i]) for i in (0, 1)] == [{"a": 2, "b": 2}, {"msg": "adding numbers now"}]
    assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == ["tool_calls"]
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert server.requests[0].tools == ["add"]


async def test_chat_stream_ends_with_done_marker(scripted_server):
    server = scripted_server([Text("hello world")])
    body = {"model": "m", "messages": CHAT, "stream": True}
    async with httpx.AsyncClient() as http:
        response = await http.post(f"{server.openai_url}/chat/completions", json=body)
    lines = [line for line in response.text.splitlines() if line]
    assert lines[-1] == "data: [DONE]"
    assert all(line.startswith("data: ") for line in lines)
    assert '"usage"' not in response.text, "no usage chunk unless stream_options.include_usage"


async def test_chat_errors_use_openai_shapes(scripted_server):
    server = scripted_server([Fault(429, error_type="insufficient_quota"), Fault(500), Fault(400)])
    async with client_for(server) as client:
        with pytest.raises(openai.RateLimitError) as quota:
            await client.chat.completions.create(model="m", messages=CHAT)
        with pytest.raises(openai.InternalServerError):
            await client.chat.completions.create(model="m", messages=CHAT)
        with pytest.raises(openai.BadRequestError):
            await client.chat.completions.create(model="m", messages=CHAT)
    assert quota.value.code == "insufficient_quota"


async def test_chat_stream_error_mid_stream(scripted_server):
    server = scripted_server([StreamFault(error_type="server_error", message="boom", text_before="par")])
    async with client_for(server) as client:
        stream = await client.chat.completions.create(model="m", messages=CHAT, stream=True)
        with pytest.raises(openai.APIError, match="boom"):
            async for _ in stream:
                pass


async def test_responses_stream_text_and_usage(scripted_server):
    server = scripted_server([Text("Done deal.", usage=Tokens(input=12, output=3, cache_read=8))])
    async with (
        client_for(server) as client,
        client.responses.stream(
            model="codex-test",
            instructions="Follow AGENTS.md",
            input=[
                {"role": "developer", "content": "sandbox: read-only"},
                {"role": "user", "content": [{"type": "input_text", "text": "finish it"}]},
            ],
        ) as stream,
    ):
        kinds = [event.type async for event in stream]
        response = await stream.get_final_response()
    assert response.output_text == "Done deal."
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.input_tokens_details.cached_tokens) == (20, 8)
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] == "response.completed"
    assert "response.output_text.delta" in kinds
    request = server.requests[0]
    assert request.system_text == "Follow AGENTS.md\nsandbox: read-only"
    assert request.last_user_text == "finish it"


async def test_responses_stream_function_calls(scripted_server):
    server = scripted_server([ToolUse("shell", {"command": ["ls", "-la"]}, text="Listing.")])
    async with client_for(server) as client, client.responses.stream(model="m", input="list files") as stream:
        kinds = [event.type async for event in stream]
        response = await stream.get_final_response()
    calls = [item for item in response.output if item.type == "function_call"]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("shell", {"command": ["ls", "-la"]})]
    assert response.output_text == "Listing."
    assert kinds.count("response.output_item.done") == 2
    assert "response.function_call_arguments.done" in kinds


async def test_responses_follow_up_carries_function_output(scripted_server):
    server = scripted_server(lambda req: Text(f"got {req.tool_results}"))
    follow_up = [
        {"role": "user", "content": "list"},
        {"type": "function_call", "call_id": "c1", "name": "shell", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "a.txt b.txt"},
    ]
    async with client_for(server) as client:
        response = await client.responses.create(model="m", input=follow_up)
    assert response.output_text == "got ['a.txt b.txt']"


async def test_responses_failure_event(scripted_server):
    server = scripted_server([StreamFault()])
    async with client_for(server) as client, client.responses.stream(model="m", input="x") as stream:
        kinds = [event.type async for event in stream]
    assert kinds[-1] == "response.failed"


async def test_openai_models_listing(scripted_server):
    server = scripted_server(model_ids=["gpt-a"])
    async with client_for(server) as client:
        page = await client.models.list()
    assert [model.id for model in page.data] == ["gpt-a"]
