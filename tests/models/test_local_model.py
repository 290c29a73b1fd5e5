"""The embedded llama.cpp model: really started, asked, shared and stopped (tests marked ``local_model``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import httpx
import pytest

from aces_ci.errors import ConfigError, InfraError
from aces_ci.models import (
    LOCAL_MODEL_ID,
    LocalModelManager,
    LocalModelServer,
    Message,
    ModelRequest,
    ModelSpec,
    create_client,
)

QUESTION = ModelRequest(
    "Answer in one short sentence.", (Message("user", "What is the capital of France?"),), max_tokens=24, seed=0
)


def process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


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
    server = LocalModelServer(model_path=broken, startup_timeout_s=120)
    with pytest.raises(InfraError) as caught:
        server.start()
    assert "exited with code" in str(caught.value)
    assert server.log_path is not None
    assert str(server.log_path) in str(caught.value)
    assert server.log_path.is_file(), "the log of a failed start is kept for the user to read"
    server.log_path.unlink()


@pytest.mark.local_model
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_the_server_is_stopped_when_its_owner_is_interrupted(signum):
    script = textwrap.dedent(
        """
        import time
        from aces_ci.models import LocalModelServer

        server = LocalModelServer()
        server.start()
        print(server.pid, flush=True)
        time.sleep(300)
        """
    )
    owner = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        child = int(owner.stdout.readline())
        assert process_exists(child)
        owner.send_signal(signum)
        owner.wait(timeout=60)
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait()
        owner.stdout.close()
        owner.stderr.close()
    assert not process_exists(child), "the llama.cpp server must not outlive its owner"


async def test_a_missing_model_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="model file not found"):
        async with LocalModelServer(model_path=tmp_path / "absent.gguf"):
            pass
