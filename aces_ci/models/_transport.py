"""The HTTP client under the provider SDKs: it reads a response body to a cap and no further.

The SDKs read a whole body into memory before parsing it (or, streaming, keep the message built
so far), so a server answering with gigabytes would take the process down with it. The client here
is the SDK's own default client (``httpx2``, which both SDKs build on: their timeouts, connection
limits and the environment's proxies stay as they were) with one change: every response body is
counted as it arrives, and a body that grows past the cap raises
:class:`~aces_ci.models._reply.ReplyTooLarge` carrying the bytes read up to the cap, which the
client turns into a ``reply_too_large`` answer. Memory per call is bounded by twice the cap.

The cap counts bytes on the wire, so replies are asked for uncompressed (``Accept-Encoding:
identity``); a server that compresses anyway gets 1/64 of the cap on the wire, which bounds what
gzip or deflate (at most about 1,000:1) can expand to.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, cast

import httpx2

from ._reply import MAX_REPLY_BODY_BYTES, ReplyTooLarge

COMPRESSED_SHARE = 64
"""A compressed body may hold this much less of the cap on the wire (see the module docstring)."""


class _CappedBody(httpx2.AsyncByteStream):
    """The body of one response, raising :class:`ReplyTooLarge` at the first byte past ``limit``."""

    def __init__(self, inner: httpx2.AsyncByteStream, limit: int) -> None:
        self._inner = inner
        self._limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        kept = bytearray()
        async for chunk in self._inner:
            room = self._limit - len(kept)
            if len(chunk) > room:
                kept += chunk[:room]
                raise ReplyTooLarge(bytes(kept), self._limit)
            kept += chunk
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class _CappedSend(httpx2.AsyncClient):
    """``send`` wraps each response's body in :class:`_CappedBody` before anyone reads it."""

    reply_limit = MAX_REPLY_BODY_BYTES

    async def send(self, request: httpx2.Request, *, stream: bool = False, **kwargs: Any) -> httpx2.Response:
        response = await super().send(request, stream=True, **kwargs)
        encoded = response.headers.get("content-encoding", "identity").strip().lower() not in ("", "identity")
        limit = self.reply_limit // COMPRESSED_SHARE if encoded else self.reply_limit
        response.stream = _CappedBody(cast(httpx2.AsyncByteStream, response.stream), limit)
        if not stream:
            try:
                await response.aread()
            except BaseException:
                await response.aclose()
                raise
        return response


def capped_http_client(sdk_default: type[httpx2.AsyncClient]) -> httpx2.AsyncClient:
    """An instance of the SDK's default client class (``anthropic.DefaultAsyncHttpxClient``…) with the body cap."""
    capped = type(f"Capped{sdk_default.__name__}", (_CappedSend, sdk_default), {})
    client = cast(httpx2.AsyncClient, capped())
    client.headers["Accept-Encoding"] = "identity"
    return client
