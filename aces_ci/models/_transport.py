"""The HTTP transport under the provider SDKs: it reads a response body to a cap and no further.

The SDKs read a whole body into memory before parsing it (or, streaming, keep the message built
so far), so a server answering with gigabytes would take the process down with it. This transport
wraps the SDKs' own (``httpx2``, which both SDKs build on) and counts bytes as they arrive: a body
that grows past the cap raises :class:`~aces_ci.models._reply.ReplyTooLarge` carrying the bytes
read up to the cap, which the client turns into a ``reply_too_large`` answer. Memory per call is
bounded by twice the cap.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import cast

import httpx2

from ._reply import MAX_REPLY_BODY_BYTES, ReplyTooLarge


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


class CappedTransport(httpx2.AsyncBaseTransport):
    """``httpx2.AsyncHTTPTransport`` whose response bodies are read to ``limit`` bytes at most."""

    def __init__(self, limit: int = MAX_REPLY_BODY_BYTES) -> None:
        self._inner = httpx2.AsyncHTTPTransport()
        self._limit = limit

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        body = cast(httpx2.AsyncByteStream, response.stream)  # an async transport's responses stream async
        return httpx2.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=_CappedBody(body, self._limit),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()
