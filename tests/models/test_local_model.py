"""The embedded llama.cpp model: really started, asked, shared and stopped (tests marked ``local_model``).

Work is bounded by tokens (short answers, ``max_tokens`` of a few dozen), never by racing a clock:
every deadline here guards against a hang and is far above the expected duration.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest

from aces_ci.errors import ConfigError, InfraError
from aces_ci.models import (
    LOCAL_MODEL_ID,
    LOCAL_THREADS,
    LocalModelManager,
    LocalModelServer,
    Message,
    ModelRequest,
    ModelSpec,
    create_client,
    local_runtime_identity,
)
from tests.engine.helpers import request
from tests.processes import running

QUESTION = ModelRequest(
    "Answer in one short sentence.", (Message("user", "What is the capital of France?"),), max_tokens=24, seed=0
)


HANG_GUARD_S = 120
"""How long a test waits for something that normally takes well under a second."""


def wait_until_gone(pid: int) -> bool:
    deadline = time.monotonic() + HANG_GUARD_S
    while running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not running(pid)


OWNER = textwrap.dedent(
    """
    import signal, time
    from aces_ci.models import LocalModelServer

    # As in a terminal, whatever this test runs under (a job started in the background ignores SIGINT).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    server = LocalModelServer()
    server.start()
    print(server.pid, flush=True)
    time.sleep(300)
    """
)
"""A process that starts the server, prints the server's pid and waits to be signalled."""


@pytest.mark.local_model
async def test_create_client_answers_with_the_embedded_model():
    manager = LocalModelManager()
    client = create_client(ModelSpec("local", LOCAL_MODEL_ID), local_models=manager)
    try:
        response = await client.generate(QUESTION)
        assert manager.users == 1
    finally:
        await client.aclose()
    assert response.text.strip()
    assert response.model == LOCAL_MODEL_ID
    assert response.usage.prompt_tokens > 0
    assert response.usage.completion_tokens > 0
    assert response.usage.cost_usd == 0.0
    assert client.cost_known, "the embedded model is free, not of unknown price"
    assert manager.users == 0, "closing the last client stops the server"


@pytest.mark.local_model
def test_manager_shares_one_server_and_stops_it_with_the_last_user():
    manager = LocalModelManager()
    first = manager.acquire()
    second = manager.acquire()
    assert first == second
    manager.release()
    assert httpx.get(f"{first}/models", timeout=10).json()["data"][0]["id"] == LOCAL_MODEL_ID
    manager.release()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{first}/models", timeout=10)
    manager.release()  # one release too many is harmless
    assert manager.users == 0


@pytest.mark.local_model
def test_a_server_that_dies_while_starting_names_its_log(tmp_path):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF but not really" * 100)
    server = LocalModelServer(model_path=broken, startup_timeout_s=HANG_GUARD_S)
    with pytest.raises(InfraError) as caught:
        server.start()
    assert "exited with code" in str(caught.value)
    assert server.log_path is not None
    assert str(server.log_path) in str(caught.value)
    assert server.log_path.is_file(), "the log of a failed start is kept for the user to read"
    server.log_path.unlink()


@pytest.mark.local_model
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_the_server_is_stopped_when_its_owner_is_interrupted_or_killed(signum):
    """SIGTERM and Ctrl-C are caught and stop the server in order; after a SIGKILL the server notices alone."""
    owner = subprocess.Popen([sys.executable, "-c", OWNER], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        child = int(owner.stdout.readline())
        assert running(child)
        owner.send_signal(signum)
        owner.wait(timeout=HANG_GUARD_S)
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait()
        owner.stdout.close()
        owner.stderr.close()
    assert wait_until_gone(child), "the llama.cpp server must not outlive its owner"


@pytest.mark.local_model
def test_no_secret_reaches_the_server_process(monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_" + "x" * 36)
    monkeypatch.setenv("ACES_TEST_PLAIN", "visible")
    server = LocalModelServer()
    server.start()
    try:
        assert server.pid is not None
        names = {entry.split(b"=", 1)[0] for entry in Path(f"/proc/{server.pid}/environ").read_bytes().split(b"\0")}
    finally:
        server.stop()
    assert b"ACES_TEST_PLAIN" in names
    assert b"GITHUB_TOKEN" not in names


@pytest.mark.local_model
async def test_the_same_prompt_gets_the_same_answer_from_every_server():
    """Greedy decoding: the rollout cache and the example tests rely on one answer per prompt and seed."""
    question = ModelRequest(
        "Answer in one short sentence.",
        (Message("user", "Name a colour of the sky and a colour of grass."),),
        max_tokens=32,
        seed=7,
    )
    answers = []
    for _ in range(2):  # two servers, one after the other: nothing carries over but the weights
        client = create_client(ModelSpec("local", LOCAL_MODEL_ID), local_models=LocalModelManager())
        try:
            answers += [(await client.generate(question)).text for _ in range(2)]
        finally:
            await client.aclose()
    assert answers[0].strip()
    assert answers == [answers[0]] * 4


async def test_a_missing_model_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="model file not found"):
        async with LocalModelServer(model_path=tmp_path / "absent.gguf"):
            pass


def test_a_new_runtime_or_thread_count_does_not_replay_cached_local_rollouts(monkeypatch):
    """The rollout cache key of a local rollout names the llama.cpp build, its threads and the weights."""
    local = request("with", model=ModelSpec("local", LOCAL_MODEL_ID))
    identity = local.model.cache_identity()["local_runtime"]
    assert identity == local_runtime_identity()
    assert identity["runtime"].startswith("xllamacpp ") and identity["threads"] == str(LOCAL_THREADS)
    before = local.cache_key("v1")
    newer = {**identity, "runtime": "xllamacpp 2099.1.1"}
    monkeypatch.setattr("aces_ci.models.local_runtime_identity", lambda: newer)
    assert local.cache_key("v1") != before
    remote = request("with", model=ModelSpec("openai", "gpt-x", base_url="http://127.0.0.1:9/v1"))
    assert "local_runtime" not in remote.model.cache_identity()


@pytest.mark.local_model
def test_no_prompt_is_answered_from_the_previous_ones_computation():
    """Reusing a cached prompt prefix may change an answer, so the embedded server never does by default."""
    body = {
        "model": LOCAL_MODEL_ID,
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hi."}],
        "max_tokens": 4,
        "temperature": 0,
    }

    def cached_tokens(server: LocalModelServer) -> list[int]:
        server.start()
        try:
            replies = [httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=HANG_GUARD_S) for _ in "ab"]
        finally:
            server.stop()
        return [reply.json()["usage"].get("prompt_tokens_details", {}).get("cached_tokens", 0) for reply in replies]

    assert cached_tokens(LocalModelServer()) == [0, 0]
    assert cached_tokens(LocalModelServer(reuse_prompt_prefix=True))[1] > 0, "the option does what it says"
