"""The policy around any provider client: retries, the per-endpoint concurrency cap, and cost.

Provider clients make exactly one HTTP call per ``generate`` and raise :class:`ModelAPIError` on failure;
:class:`ManagedClient` decides whether to try again, holds a concurrency slot only while a call is in
flight (never while backing off), caps each reply's size (:func:`~aces_ci.models._reply.cap_reply`, for
every provider alike) and prices each response. Sleeping, the clock and the jitter are
injectable so tests run the whole policy against a real server without waiting.

**An endpoint that stays down is not retried again and again.** Once one call has spent all its
attempts, the endpoint counts as down: later calls get a single attempt for an error that gives
no ``retry-after`` (a 5xx, a refused connection, a timeout) until one call succeeds, which closes
the breaker again. So a persistently failing server costs one full retry cycle per call already in
flight, then one attempt per call, never six attempts for every remaining rollout; the rollout
engine's own breaker (:mod:`aces_ci.engine._breaker`) then stops launching rollouts. A server that
names its wait (a 429 with ``retry-after``) is still waited for: it is alive and asking for time.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import time
from collections.abc import Awaitable, Callable

from ..redact import get_logger
from ._base import ModelAPIError, ModelClient, ModelRequest, ModelResponse
from ._errors import RetriesExhausted
from ._limits import ConcurrencyLimiter, endpoint_key
from ._prices import cost_usd
from ._reply import cap_reply
from ._retry import RetryPolicy
from ._types import Price

logger = get_logger(__name__)

Sleep = Callable[[float], Awaitable[None]]


class ManagedClient(ModelClient):
    """Wraps ``inner`` with ``retry``, a slot from ``limiter`` per attempt, and ``price`` per response.

    ``price=None`` means the model is not in the price table: responses cost 0 and ``cost_known`` is
    False, so reports can say "cost unknown" instead of "free".
    """

    def __init__(
        self,
        inner: ModelClient,
        *,
        retry: RetryPolicy | None = None,
        limiter: ConcurrencyLimiter | None = None,
        price: Price | None = None,
        base_url: str | None = None,
        rng: random.Random | None = None,
        sleep: Sleep = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.inner = inner
        self.provider = inner.provider
        self.model = inner.model
        self.retry = retry or RetryPolicy()
        self.limiter = limiter or ConcurrencyLimiter()
        self.price = price
        self.endpoint = endpoint_key(inner.provider, base_url)
        self._rng = rng or random.Random(0)
        self._sleep = sleep
        self._clock = clock
        self.down = False
        """An earlier call spent every attempt and none has succeeded since: one attempt per call (module doc)."""

    @property
    def cost_known(self) -> bool:
        return self.price is not None

    async def generate(self, request: ModelRequest) -> ModelResponse:
        """The inner client's response with its cost, or :class:`RetriesExhausted` / a non-retryable error."""
        started = self._clock()
        attempt = 0
        while True:
            attempt += 1
            try:
                async with self.limiter.slot(self.endpoint):
                    response = await self.inner.generate(request)
            except ModelAPIError as error:
                if not error.retryable:
                    raise
                if self.down and error.retry_after_s is None:
                    raise RetriesExhausted(
                        error, attempts=attempt, reason="the endpoint failed every attempt of an earlier call"
                    ) from error
                try:
                    delay = self._delay_before_retry(error, attempt, started)
                except RetriesExhausted:
                    self.down = True
                    raise
                logger.warning(
                    "%s call failed (attempt %d of %d), retrying in %.1f s: %s",
                    self.endpoint,
                    attempt,
                    self.retry.max_attempts,
                    delay,
                    error,
                )
                await self._sleep(delay)
                continue
            self.down = False
            return self._priced(cap_reply(response, request.max_tokens))

    def _delay_before_retry(self, error: ModelAPIError, attempt: int, started: float) -> float:
        """The wait before the next attempt, or :class:`RetriesExhausted` when there is to be none."""
        if attempt >= self.retry.max_attempts:
            raise RetriesExhausted(error, attempts=attempt, reason="no attempts left") from error
        delay = self.retry.delay_s(attempt, error, self._rng)
        deadline = self.retry.deadline_s
        if deadline is not None and self._clock() + delay - started > deadline:
            raise RetriesExhausted(
                error, attempts=attempt, reason=f"the next attempt would start after the {deadline:g} s deadline"
            ) from error
        return delay

    def _priced(self, response: ModelResponse) -> ModelResponse:
        cost = cost_usd(response.usage, self.price) if self.price is not None else 0.0
        return dataclasses.replace(response, usage=dataclasses.replace(response.usage, cost_usd=cost))

    async def aclose(self) -> None:
        await self.inner.aclose()
