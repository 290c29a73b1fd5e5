"""create_client: provider choice, API keys from the environment, prices, and lazy SDK imports."""

from __future__ import annotations

import subprocess
import sys

import pytest

from aces_ci.config import Price
from aces_ci.errors import ConfigError
from aces_ci.models import (
    LOCAL_MODEL_ID,
    ConcurrencyLimiter,
    Message,
    ModelAPIError,
    ModelRequest,
    ModelSpec,
    PriceTable,
    RetryPolicy,
    create_client,
)
from tests.servers import Fault, Text, Tokens

REQUEST = ModelRequest("sys", (Message("user", "hi"),))


@pytest.fixture
def no_keys(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


async def answer(client):
    try:
        return await client.generate(REQUEST)
    finally:
        await client.aclose()


async def test_anthropic_key_comes_from_the_environment(scripted_server, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
    server = scripted_server([Text("hello")])
    client = create_client(ModelSpec("anthropic", "claude-haiku-4-5", base_url=server.url))
    assert (await answer(client)).text == "hello"
    sent = server.requests[0]
    assert "sk-ant-from-env" in f"{sent.header('x-api-key')} {sent.header('authorization')}"


async def test_openai_key_argument_wins_over_the_environment(scripted_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    server = scripted_server([Text("hello")])
    client = create_client(ModelSpec("openai", "gpt-4o-mini", base_url=server.openai_url), api_key="sk-given")
    await answer(client)
    assert server.requests[0].header("authorization") == "Bearer sk-given"


def test_missing_key_for_a_provider_endpoint_names_the_variable(no_keys):
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        create_client(ModelSpec("anthropic", "claude-haiku-4-5"))
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        create_client(ModelSpec("openai", "gpt-4o"))


async def test_a_custom_server_needs_no_key(scripted_server, no_keys):
    server = scripted_server([Text("from vllm")])
    client = create_client(ModelSpec("openai", "meta-llama/Llama-3.1-8B", base_url=server.openai_url))
    response = await answer(client)
    assert response.text == "from vllm"
    assert not client.cost_known, "a self-hosted model is not in the price table"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (ModelSpec("gemini", "g"), "unknown provider 'gemini'"),  # type: ignore[arg-type]
        (ModelSpec("openai", ""), "no model given"),
        (ModelSpec("local", "llama3"), "serves only 'smollm2-135m-instruct'"),
        (ModelSpec("local", LOCAL_MODEL_ID, base_url="http://127.0.0.1:1/v1"), "takes no base_url"),
    ],
)
def test_unusable_specs_are_config_errors(spec, message):
    with pytest.raises(ConfigError, match=message):
        create_client(spec, api_key="k")


async def test_client_applies_price_overrides_and_policy(scripted_server):
    server = scripted_server([Fault(503), Text("ok", usage=Tokens(input=1_000_000, output=0))])
    client = create_client(
        ModelSpec("openai", "house-model", base_url=server.openai_url),
        api_key="k",
        prices=PriceTable({"house-model": Price(input=2.0, output=4.0)}),
        retry=RetryPolicy(base_delay_s=0.0),
        limiter=ConcurrencyLimiter(limit=1),
    )
    response = await answer(client)
    assert response.usage.cost_usd == pytest.approx(2.0)
    assert client.cost_known
    assert server.calls == 2


async def test_a_401_is_reported_without_the_key(scripted_server):
    server = scripted_server([Fault(401, message="invalid x-api-key")])
    client = create_client(ModelSpec("anthropic", "claude-haiku-4-5", base_url=server.url), api_key="sk-ant-secret")
    with pytest.raises(ModelAPIError) as caught:
        await answer(client)
    assert not caught.value.retryable
    assert "sk-ant-secret" not in str(caught.value)


def test_the_scan_path_never_imports_the_provider_sdks():
    code = (
        "import sys, aces_ci.models, aces_ci.scan._judge\n"
        "from aces_ci.models import create_client, ManagedClient\n"
        "loaded = sorted(m for m in ('anthropic', 'openai') if m in sys.modules)\n"
        "print(','.join(loaded))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""
