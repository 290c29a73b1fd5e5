"""Caps on simultaneous calls, one per endpoint, shared by every client that talks to it.

Rate limits belong to an endpoint (provider + base URL), not to a client object: two rollouts that
each build a client for the same API must still share one budget of open requests. The limiter is an
explicit object the caller creates per run and passes to every client, never module state.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from urllib.parse import urlsplit, urlunsplit

from ..errors import ConfigError


def endpoint_key(provider: str, base_url: str | None) -> str:
    """``provider`` alone for the provider's own API, ``provider@url`` for any other server.

    Credentials written into the URL (``https://user:pass@host``) are left out: the key appears in logs.
    """
    if not base_url:
        return provider
    parts = urlsplit(base_url.rstrip("/"))
    host = parts.netloc.rpartition("@")[2]
    return f"{provider}@{urlunsplit((parts.scheme, host, parts.path, '', ''))}"


class ConcurrencyLimiter:
    """At most ``limit`` calls in flight per endpoint key (``overrides`` sets other limits per key)."""

    def __init__(self, limit: int = 4, overrides: Mapping[str, int] | None = None) -> None:
        for key, value in {"": limit, **(overrides or {})}.items():
            if value < 1:
                where = f"concurrency for {key}" if key else "concurrency"
                raise ConfigError(f"{where} must be at least 1, got {value}", field="run.concurrency")
        self.limit = limit
        self._overrides = dict(overrides or {})
        self._semaphores: dict[str, asyncio.Semaphore] = {}

    def limit_for(self, key: str) -> int:
        return self._overrides.get(key, self.limit)

    @contextlib.asynccontextmanager
    async def slot(self, key: str) -> AsyncIterator[None]:
        """Hold one of the endpoint's slots for the duration of the block."""
        semaphore = self._semaphores.get(key)
        if semaphore is None:
            semaphore = self._semaphores[key] = asyncio.Semaphore(self.limit_for(key))
        async with semaphore:
            yield
