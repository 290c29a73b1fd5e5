"""Network behaviour of the scripted server: faults, hangs, drops, counters, concurrency and shutdown."""

from __future__ import annotations

import asyncio
import threading

import httpx
import pytest

from tests.servers import Drop, Fault, Hang, ScriptedServer, SlowStream, Text, ToolUse

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


async def post(server, body=None, timeout=10.0, path="/v1/chat/completions"):
    async with httpx.AsyncClient(timeout=timeout) as http:
        return await http.post(server.url + path, json=BODY if body is None else body)


async def test_replies_are_consumed_in_order_and_counted(scripted_server):
    server = scripted_server([Text("first"), Text("second")])
    first = await post(server)
    second = await post(server)
    assert [r.json()["choices"][0]["message"]["content"] for r in (first, second)] == ["first", "second"]
    assert server.calls == 2
    assert [r.index for r in server.requests] == [0, 1]


async def test_exhausted_script_answers_400_and_records_it(scripted_server):
    server = scripted_server([Text("only one")])
    await post(server)
    response = await post(server)
    assert response.status_code == 400
    assert "script exhausted after 1 replies" in response.json()["error"]["message"]
    assert server.errors == ["scripted server: script exhausted after 1 replies"]


async def test_script_exception_is_reported_not_swallowed(scripted_server):
    def script(request):
        raise KeyError("missing case")

    server = scripted_server(script)
    response = await post(server)
    assert response.status_code == 400
    assert "KeyError" in server.errors[0]


async def test_a_script_returning_a_non_reply_is_reported(scripted_server):
    server = scripted_server(lambda req: "just a string")
    response = await post(server)
    assert response.status_code == 400
    assert server.errors == ["scripted server: the script returned 'just a string', which is not a reply"]


async def test_retry_after_headers(scripted_server):
    server = scripted_server([Fault(429, retry_after=3, retry_after_ms=2500, headers={"x-should-retry": "true"})])
    response = await post(server)
    assert response.status_code == 429
    assert response.headers["retry-after"] == "3"
    assert response.headers["retry-after-ms"] == "2500"
    assert response.headers["x-should-retry"] == "true"


async def test_custom_fault_body(scripted_server):
    server = scripted_server([Fault(503, body="<html>upstream down</html>")])
    response = await post(server)
    assert (response.status_code, response.text) == (503, "<html>upstream down</html>")


async def test_drop_closes_the_connection_without_a_response(scripted_server):
    server = scripted_server([Drop(), Text("after the drop")])
    with pytest.raises(httpx.RemoteProtocolError):
        await post(server)
    assert (await post(server)).json()["choices"][0]["message"]["content"] == "after the drop"


async def test_hang_times_out_the_client_and_ends_when_the_server_stops():
    server = ScriptedServer([Hang()]).start()
    try:
        with pytest.raises(httpx.ReadTimeout):
            await post(server, timeout=0.2)
    finally:
        stopper = threading.Thread(target=server.stop)
        stopper.start()
        await asyncio.to_thread(stopper.join, 30)
    assert not stopper.is_alive(), "stop() must not wait for a hung reply"


async def test_slow_stream_delivers_everything(scripted_server):
    server = scripted_server([SlowStream(ToolUse("read", {"path": "a"}), delay_s=0.001)])
    response = await post(server, body={**BODY, "stream": True})
    assert response.text.rstrip().endswith("data: [DONE]")
    assert '"name":"read"' in response.text


async def test_fault_rate_is_seeded_and_keeps_the_script_aligned(scripted_server):
    def outcomes(seed):
        server = scripted_server(lambda req: Text("ok"), fault_rate=0.3, fault_seed=seed)
        with httpx.Client(timeout=5) as http:
            return [http.post(server.url + "/v1/chat/completions", json=BODY).status_code for _ in range(40)]

    first, again = outcomes(11), outcomes(11)
    assert first == again, "same seed, same faults"
    assert set(first) == {200, 429, 500}
    assert 4 <= first.count(429) + first.count(500) <= 24

    server = scripted_server([Text("a"), Text("b")], fault_rate=0.5, fault_seed=1)
    texts = []
    with httpx.Client(timeout=5) as http:
        while len(texts) < 2:
            response = http.post(server.url + "/v1/chat/completions", json=BODY)
            if response.status_code == 200:
                texts.append(response.json()["choices"][0]["message"]["content"])
    assert texts == ["a", "b"], "injected faults do not consume script entries"
    assert server.injected_faults == server.calls - 2


async def test_counts_simultaneous_requests(scripted_server):
    release = threading.Event()

    def script(request):
        release.wait(10)
        return Text("done")

    server = scripted_server(script)
    tasks = [asyncio.create_task(post(server)) for _ in range(3)]
    while server.calls < 3:
        await asyncio.sleep(0.01)
    release.set()
    responses = await asyncio.gather(*tasks)
    assert [r.status_code for r in responses] == [200, 200, 200]
    assert server.max_concurrent == 3


async def test_bad_requests_are_answered_and_recorded(scripted_server):
    async def chunked_body():
        yield b'{"model":'
        yield b'"m"}'

    server = scripted_server([Text("used once")])
    async with httpx.AsyncClient() as http:
        not_json = await http.post(server.url + "/v1/messages", content=b"{not json")
        unknown = await http.post(server.url + "/v2/anything", json={})
        chunked = await http.post(server.url + "/v1/chat/completions", content=chunked_body())
    assert not_json.status_code == 400
    assert not_json.json()["type"] == "error", "Anthropic error shape on the Anthropic path"
    assert unknown.status_code == 404
    assert chunked.status_code == 200, "chunked request bodies are read"
    assert server.calls == 1
    assert len(server.errors) == 2


def test_stop_is_not_held_up_by_idle_keep_alive_connections():
    server = ScriptedServer([Text("x")]).start()
    with httpx.Client() as http:
        http.post(server.url + "/v1/chat/completions", json=BODY)
        stopper = threading.Thread(target=server.stop)
        stopper.start()
        stopper.join(30)
        assert not stopper.is_alive()
    server.stop()  # idempotent
