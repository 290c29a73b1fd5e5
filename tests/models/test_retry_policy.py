"""Our retry policy, concurrency cap and cost accounting, run against the scripted servers over HTTP."""

from __future__ import annotations

import asyncio
import logging
import random
import threading

import pytest

from aces_ci.config import Price
from aces_ci.errors import ConfigError
from aces_ci.models import (
    AnthropicClient,
    ConcurrencyLimiter,
    ManagedClient,
    Message,
    ModelAPIError,
    ModelRequest,
    OpenAIChatClient,
    PriceTable,
    RetriesExhausted,
    RetryPolicy,
    endpoint_key,
    retry_after_s,
)
from tests.servers import Fault, StreamFault, Text, Tokens

REQUEST = ModelRequest("sys", (Message("user", "hello"),))


class Sleeps:
    """Records the waits the policy asks for instead of waiting."""

    def __init__(self):
        self.waits = []

    async def __call__(self, seconds):
        self.waits.append(seconds)


def managed(server, *, provider="anthropic", sleeps=None, **options):
    if provider == "anthropic":
        inner = AnthropicClient("claude-haiku-4-5-20251001", api_key="sk-test", base_url=server.url)
    else:
        inner = OpenAIChatClient("gpt-4o-mini", api_key="sk-test", base_url=server.openai_url)
    base_url = server.url if provider == "anthropic" else server.openai_url
    return ManagedClient(inner, base_url=base_url, sleep=sleeps or Sleeps(), rng=random.Random(1), **options)


async def run(client, request=REQUEST):
    try:
        return await client.generate(request)
    finally:
        await client.aclose()


# -- the policy itself ----------------------------------------------------------------------------------


def test_full_jitter_backoff_stays_under_the_doubling_cap():
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=5.0)
    rng = random.Random(3)
    for retry_number, cap in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 5.0), (9, 5.0)]:
        draws = [policy.backoff_s(retry_number, rng) for _ in range(200)]
        assert all(0.0 <= d <= cap for d in draws)
        assert max(draws) > cap * 0.8, "the draw spans the whole interval"


def test_backoff_is_reproducible_from_the_seed():
    policy = RetryPolicy()
    first = [policy.backoff_s(n, random.Random(42)) for n in range(1, 6)]
    again = [policy.backoff_s(n, random.Random(42)) for n in range(1, 6)]
    assert first == again


def test_retry_after_wins_when_longer_and_is_capped():
    policy = RetryPolicy(base_delay_s=0.5, max_retry_after_s=30.0)
    rng = random.Random(0)
    assert policy.delay_s(1, ModelAPIError("x", retryable=True, retry_after_s=10.0), rng) == 10.0
    assert policy.delay_s(1, ModelAPIError("x", retryable=True, retry_after_s=3600.0), rng) == 30.0
    assert policy.delay_s(1, ModelAPIError("x", retryable=True), rng) <= 0.5


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"max_attempts": 0}, "retry.max_attempts"),
        ({"base_delay_s": -1}, "retry.base_delay_s"),
        ({"deadline_s": 0}, "retry.deadline_s"),
    ],
)
def test_invalid_policy_is_a_config_error(options, field):
    with pytest.raises(ConfigError) as caught:
        RetryPolicy(**options)
    assert caught.value.field == field


def test_retry_after_header_forms():
    assert retry_after_s({"Retry-After": "12"}) == 12.0
    assert retry_after_s({"retry-after-ms": "250", "retry-after": "12"}) == 0.25
    assert retry_after_s({"retry-after": "Wed, 21 Oct 2015 07:28:10 GMT"}, now=lambda: 1445412480.0) == 10.0
    assert retry_after_s({"retry-after": "soon"}) is None
    assert retry_after_s({"retry-after": "-5"}) == 0.0
    assert retry_after_s({}) is None


# -- retries over HTTP ----------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_retries_429_500_529_honouring_retry_after(scripted_server, provider):
    server = scripted_server([Fault(429, retry_after=2), Fault(500), Fault(529), StreamFault(), Text("finally")])
    sleeps = Sleeps()
    client = managed(server, provider=provider, sleeps=sleeps, retry=RetryPolicy(max_attempts=6, base_delay_s=0.5))
    response = await run(client)
    assert response.text == "finally"
    assert server.calls == 5
    assert len(sleeps.waits) == 4
    assert sleeps.waits[0] >= 2.0, "the server asked for 2 s"
    assert all(w <= 8.0 for w in sleeps.waits[1:])


@pytest.mark.parametrize("status", [400, 401])
async def test_no_retry_on_client_errors(scripted_server, status):
    server = scripted_server([Fault(status), Text("never")])
    sleeps = Sleeps()
    with pytest.raises(ModelAPIError) as caught:
        await run(managed(server, sleeps=sleeps))
    assert not isinstance(caught.value, RetriesExhausted)
    assert caught.value.status == status
    assert server.calls == 1
    assert sleeps.waits == []


async def test_exhausted_retries_carry_attempts_and_last_error(scripted_server):
    server = scripted_server([Fault(529)] * 2 + [Fault(503, message="upstream gone")])
    with pytest.raises(RetriesExhausted) as caught:
        await run(managed(server, retry=RetryPolicy(max_attempts=3)))
    error = caught.value
    assert error.attempts == 3
    assert error.last_error.status == 503
    assert "upstream gone" in str(error)
    assert not error.retryable, "the engine must not retry a rollout whose retries ran out"
    assert server.calls == 3


async def test_an_endpoint_that_stays_down_gets_one_attempt_per_call_until_it_answers(scripted_server):
    """After one call spent all its attempts, a dead server costs one attempt per call, not six: a batch
    of rollouts against it pays one retry cycle, not one per rollout. A success closes the breaker."""
    state = {"down": True}
    server = scripted_server(lambda req: Fault(500, message="dead") if state["down"] else Text("back"))
    sleeps = Sleeps()
    client = managed(server, provider="openai", sleeps=sleeps, retry=RetryPolicy(max_attempts=6))
    try:
        with pytest.raises(RetriesExhausted) as first:
            await client.generate(REQUEST)
        assert (first.value.attempts, server.calls, len(sleeps.waits)) == (6, 6, 5)
        for _ in range(4):
            with pytest.raises(RetriesExhausted) as later:
                await client.generate(REQUEST)
            assert later.value.attempts == 1 and "failed every attempt of an earlier call" in str(later.value)
        assert (server.calls, len(sleeps.waits)) == (10, 5), "no more backoff once the endpoint is known down"
        state["down"] = False
        assert (await client.generate(REQUEST)).text == "back"
        state["down"] = True
        with pytest.raises(RetriesExhausted) as again:
            await client.generate(REQUEST)
        assert again.value.attempts == 6, "an endpoint that answered is retried in full again"
    finally:
        await client.aclose()


async def test_a_down_endpoint_that_names_its_wait_is_still_waited_for(scripted_server):
    """A 429 with retry-after is a live server asking for time: the down state does not cut its retries."""
    replies = [Fault(500)] * 3 + [Fault(429, retry_after=1), Text("after the wait")]
    server = scripted_server(replies)
    client = managed(server, provider="openai", retry=RetryPolicy(max_attempts=3))
    try:
        with pytest.raises(RetriesExhausted):
            await client.generate(REQUEST)
        assert (await client.generate(REQUEST)).text == "after the wait"
    finally:
        await client.aclose()
    assert server.calls == 5


async def test_deadline_stops_retrying_before_the_attempts_run_out(scripted_server):
    now = [0.0]

    async def sleep(seconds):
        now[0] += seconds

    server = scripted_server([Fault(429, retry_after=40)] * 5)
    policy = RetryPolicy(max_attempts=10, deadline_s=100.0)
    inner = OpenAIChatClient("m", api_key="k", base_url=server.openai_url)
    client = ManagedClient(inner, retry=policy, sleep=sleep, clock=lambda: now[0])
    with pytest.raises(RetriesExhausted) as caught:
        await run(client)
    assert caught.value.attempts == 3, "waits of 40 s fit twice into a 100 s deadline"
    assert "deadline" in caught.value.reason


async def test_seeded_fault_injection_is_ridden_out(scripted_server):
    server = scripted_server(lambda req: Text("ok"), fault_rate=0.3, fault_seed=5)
    client = managed(server, provider="openai", retry=RetryPolicy(max_attempts=10))
    try:
        answers = [(await client.generate(REQUEST)).text for _ in range(12)]
    finally:
        await client.aclose()
    assert answers == ["ok"] * 12
    assert server.injected_faults > 0
    assert server.calls == 12 + server.injected_faults


async def test_retry_log_lines_never_show_the_key(scripted_server, caplog):
    server = scripted_server([Fault(500), Text("ok")])
    with caplog.at_level(logging.WARNING, logger="aces_ci.models"):
        await run(managed(server))
    assert "retrying" in caplog.text
    assert "sk-test" not in caplog.text


# -- concurrency ----------------------------------------------------------------------------------------


async def test_concurrency_limit_is_respected_per_endpoint(scripted_server):
    def slow(request):
        threading.Event().wait(0.05)
        return Text("ok")

    server = scripted_server(slow)
    limiter = ConcurrencyLimiter(limit=2)
    clients = [managed(server, provider="openai", limiter=limiter) for _ in range(3)]
    try:
        await asyncio.gather(*(clients[i % 3].generate(REQUEST) for i in range(8)))
    finally:
        for client in clients:
            await client.aclose()
    assert server.calls == 8
    assert server.max_concurrent == 2, "three clients of one endpoint share its two slots"


async def test_without_a_shared_limit_requests_do_overlap(scripted_server):
    barrier = threading.Barrier(4, timeout=10)

    def together(request):
        barrier.wait()
        return Text("ok")

    server = scripted_server(together)
    client = managed(server, provider="openai", limiter=ConcurrencyLimiter(limit=4))
    try:
        await asyncio.gather(*(client.generate(REQUEST) for _ in range(4)))
    finally:
        await client.aclose()
    assert server.max_concurrent == 4


def test_endpoint_keys_leave_credentials_out():
    assert endpoint_key("openai", None) == "openai"
    assert endpoint_key("openai", "https://bob:hunter2@proxy.example/v1/") == "openai@https://proxy.example/v1"


def test_limits_are_validated():
    with pytest.raises(ConfigError):
        ConcurrencyLimiter(limit=0)
    assert ConcurrencyLimiter(limit=3, overrides={"local": 1}).limit_for("local") == 1


# -- cost -------------------------------------------------------------------------------------------------


async def test_cost_from_usage_with_cache_reads_and_writes(scripted_server):
    usage = Tokens(input=1_000, output=500, cache_read=2_000, cache_write=100)
    server = scripted_server([Text("ok", usage=usage)])
    client = managed(server, price=PriceTable().lookup("claude-haiku-4-5-20251001"))
    response = await run(client)
    expected = (1_000 * 1.0 + 2_000 * 0.10 + 100 * 1.25 + 500 * 5.0) / 1e6
    assert response.usage.cost_usd == pytest.approx(expected)
    assert client.cost_known


async def test_openai_cached_tokens_are_billed_at_the_cached_rate(scripted_server):
    server = scripted_server([Text("ok", usage=Tokens(input=400, output=100, cache_read=600))])
    response = await run(managed(server, provider="openai", price=PriceTable().lookup("gpt-4o-mini")))
    assert response.usage.cost_usd == pytest.approx((400 * 0.15 + 600 * 0.075 + 100 * 0.60) / 1e6)


async def test_unknown_model_costs_nothing_and_says_so(scripted_server):
    server = scripted_server([Text("ok", usage=Tokens(input=10_000, output=10_000))])
    client = managed(server, price=PriceTable().lookup("my-finetune-v3"))
    response = await run(client)
    assert response.usage.cost_usd == 0.0
    assert not client.cost_known


def test_price_lookup_by_snapshot_and_overrides():
    table = PriceTable({"gpt-4o": Price(input=1.0, output=2.0), "my-model": Price(input=9.0, output=9.0)})
    assert table.lookup("claude-3-5-haiku-20241022") == Price(input=0.80, output=4.0, cache_read=0.08, cache_write=1.0)
    assert table.lookup("gpt-4o-2024-08-06") == Price(input=1.0, output=2.0), "an override of the family wins"
    assert table.lookup("gpt-4o-mini").input == 0.15, "a longer id never falls back to a shorter family"
    assert table.lookup("my-model").input == 9.0
    assert table.lookup("claude-sonnet-4-5-latest").output == 15.0
    assert PriceTable(builtin=False).lookup("gpt-4o") is None
