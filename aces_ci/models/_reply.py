"""How large a model reply may be, and what becomes of one that is larger.

A model (or a server pretending to be one) may answer with megabytes: ignoring ``max_tokens``,
repeating itself, or on purpose. Stored whole, one such reply lands in the rollout cache, the
journal and the trajectory of every rollout that met it, and is scored whole. So a reply is
capped twice:

* under the SDKs (:mod:`aces_ci.models._transport`): the HTTP body is read to
  :data:`MAX_REPLY_BODY_BYTES` and no further, so memory stays bounded whatever the server sends;
* by :func:`cap_reply` in :class:`~aces_ci.models.ManagedClient`, for every provider: the text
  and tool arguments together may hold at most ``max_tokens`` × :data:`MAX_BYTES_PER_TOKEN`
  bytes (the tokens asked for, at a rate no honest reply reaches) and never more than
  :data:`MAX_REPLY_TEXT_BYTES`.

A reply over either cap comes back with ``stop_reason="reply_too_large"``: its text cut to the cap
on a character boundary, its tool calls dropped (their arguments may be cut anywhere). The agent
loop ends the rollout there as ``completed`` with end reason ``reply_too_large``: a huge reply is the
model's behaviour, not an outage, so it is graded on the part that was kept, and the end reason
says so wherever the rollout is shown.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Final

from ._base import ModelResponse
from ._tool_args import arguments_text

MAX_REPLY_BODY_BYTES = 4 * 1024 * 1024
"""Bytes of one HTTP response body read at most; an answer of ``max_tokens`` tokens is a few kilobytes."""
MAX_REPLY_TEXT_BYTES = 1024 * 1024
"""Bytes of text (and tool arguments) kept of one reply, whatever ``max_tokens`` allows."""
MAX_BYTES_PER_TOKEN = 32
"""A token averages about four bytes of text; a reply averaging eight times that was not held to ``max_tokens``."""
REPLY_TOO_LARGE: Final = "reply_too_large"


class ReplyTooLarge(Exception):
    """The HTTP body passed :data:`MAX_REPLY_BODY_BYTES`; ``prefix`` holds what was read up to the cap."""

    def __init__(self, prefix: bytes, limit: int) -> None:
        super().__init__(f"the reply's body is larger than {limit:,} bytes: reading stopped there")
        self.prefix = prefix
        self.limit = limit


def reply_too_large_in(exc: BaseException) -> ReplyTooLarge | None:
    """The :class:`ReplyTooLarge` behind ``exc`` (an SDK may wrap what the transport raised), if any."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return None
        if isinstance(seen, ReplyTooLarge):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def reply_budget(max_tokens: int) -> int:
    """Bytes of text and tool arguments one reply asked for ``max_tokens`` tokens may keep."""
    return min(MAX_REPLY_TEXT_BYTES, max(1, max_tokens) * MAX_BYTES_PER_TOKEN)


def cut_text(text: str, max_bytes: int) -> str:
    """``text`` cut to at most ``max_bytes`` UTF-8 bytes, never inside a character."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text
    return data[:max_bytes].decode("utf-8", "ignore")


def cap_reply(response: ModelResponse, max_tokens: int) -> ModelResponse:
    """``response`` as it is, or cut to its budget with ``stop_reason="reply_too_large"``."""
    budget = reply_budget(max_tokens)
    size = len(response.text.encode("utf-8", "surrogatepass"))
    size += sum(len(arguments_text(call.arguments).encode("utf-8", "surrogatepass")) for call in response.tool_calls)
    if size <= budget and response.stop_reason != REPLY_TOO_LARGE:
        return response
    return dataclasses.replace(
        response, text=cut_text(response.text, budget), tool_calls=(), stop_reason=REPLY_TOO_LARGE
    )


_JSON_STRING_BODY = re.compile(r'(?:[^"\\]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*')


def partial_json_string(prefix: bytes, key: str) -> str:
    """The value of the first ``"key": "…"`` in a JSON document cut anywhere, as far as it was read.

    A non-streamed reply cut at the transport cap is no longer JSON; its answer text is still
    the first ``content`` (or ``text``) string, read up to the cut so that the rollout is graded on
    what the model said before the cap rather than on nothing.
    """
    text = prefix.decode("utf-8", "ignore")
    opening = re.search(rf'"{re.escape(key)}"\s*:\s*"', text)
    if opening is None:
        return ""
    body = _JSON_STRING_BODY.match(text, opening.end())
    try:
        value: str = json.loads(f'"{body.group() if body else ""}"')
    except ValueError:
        return ""
    return value
