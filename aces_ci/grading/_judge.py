"""A judge model for the checks no rule can decide: one request, a JSON verdict, cached, never a crash.

A judge runs through the model clients (:mod:`aces_ci.models`: :func:`~aces_ci.models.create_client`
builds a :class:`~aces_ci.models.ManagedClient` with our retries, concurrency cap and prices), so
its cost is priced like any model call and recorded on the grade that paid for it.

Protocol. The system prompt states the task and the JSON shape; the user turn carries the case and
the rollout's evidence, marked as data to assess, never instructions to follow. The reply must be
one JSON object (code fences and chatter around it are tolerated). When it is not, or the caller's
validator rejects it, the judge gets **one** follow-up turn naming the problem; a second unusable
reply is :class:`JudgeAnswer` with ``problem`` set, which the metric turns into
``could_not_grade``. A model API that fails for good (after the client's retries) raises
:class:`JudgeUnavailable`, which the metric turns into ``grader_error``. Neither becomes 0.

Cache. Judge answers are content-addressed like rollouts: the key is sha256 over the protocol
version, the model's identity and every message of the request, so the same question to the same
model is paid for once and an identical rerun makes no judge call. Entries live under the rollout
cache directory, ``<cache>/judge/<k[:2]>/<k>.json``, written atomically (:mod:`aces_ci.atomic`);
the reply text is redacted before it is stored. Unusable replies are cached too (a rerun must give
the same grade without paying again); API failures are not (they must be retried). A damaged
entry is a miss with a warning, never a failure.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..atomic import write_atomic
from ..errors import InfraError, InputError
from ..models import (
    ConcurrencyLimiter,
    Message,
    ModelClient,
    ModelRequest,
    ModelSpec,
    PriceTable,
    RetryPolicy,
    Usage,
    create_client,
)
from ..redact import redact_text
from ..skill import read_bounded
from ._types import Cost

_log = logging.getLogger(__name__)

JUDGE_PROTOCOL = "1"
"""Part of every cache key: changing a judge prompt's wording must bump it, or old answers would be reused."""
JUDGE_CACHE_DIR = "judge"
CACHE_FORMAT = "aces-ci-judge"
CACHE_VERSION = 1
MAX_JUDGE_ENTRY_BYTES = 4 * 1024 * 1024
"""A judge reply is at most a few thousand tokens; a cache file larger than this is foreign and a miss."""
JUDGE_MAX_TOKENS = 1024
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n(.*?)```", re.DOTALL)
_RETRY_NOTE = (
    "Your previous reply could not be used: {problem}. Reply again with only the JSON object described "
    "in the instructions, and nothing else."
)

Validator = Callable[[dict[str, Any]], str | None]
"""Returns why a parsed reply is unusable, or None when it is fine."""


class JudgeUnavailable(InfraError):
    """The judge's model API failed for good; the grade becomes ``grader_error``."""


@dataclass(frozen=True)
class JudgeAnswer:
    """A judge's parsed reply, or why there is none, and what asking cost."""

    data: dict[str, Any] | None
    problem: str | None
    cost: Cost


def parse_reply(text: str) -> dict[str, Any] | None:
    """The JSON object in a reply: the whole text, a fenced block, or the outermost braces."""
    candidates = [text.strip()]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def _usage_dict(usage: Usage) -> dict[str, Any]:
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "cost_usd": usage.cost_usd,
    }


class JudgeCache:
    """Judge replies by request key, under ``<rollout cache>/judge``."""

    def __init__(self, rollout_cache_dir: Path) -> None:
        self.directory = rollout_cache_dir / JUDGE_CACHE_DIR

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> str | None:
        path = self._path(key)
        if not path.exists():
            return None
        try:
            document = json.loads(read_bounded(path, what="judge cache entry", max_bytes=MAX_JUDGE_ENTRY_BYTES))
        except (InputError, ValueError) as exc:
            _log.warning("judge cache: ignoring unreadable entry %s (%s)", path, exc)
            return None
        ok = (
            isinstance(document, dict)
            and document.get("format") == CACHE_FORMAT
            and document.get("version") == CACHE_VERSION
            and document.get("key") == key
            and isinstance(document.get("text"), str)
        )
        if not ok:
            _log.warning("judge cache: ignoring %s, which is not a judge answer of this version", path)
            return None
        text: str = document["text"]
        return text

    def put(self, key: str, text: str, usage: Usage, model: str) -> None:
        document = {
            "format": CACHE_FORMAT,
            "version": CACHE_VERSION,
            "key": key,
            "model": model,
            "text": redact_text(text),
            "usage": _usage_dict(usage),
        }
        try:
            write_atomic(self._path(key), json.dumps(document, ensure_ascii=False).encode("utf-8"))
        except OSError as exc:
            _log.warning("judge cache: cannot write %s (%s)", self._path(key), exc)


class Judge:
    """Asks one model for JSON verdicts, through a client that applies our retry and cost policy."""

    def __init__(
        self,
        client: ModelClient,
        spec: ModelSpec,
        *,
        cache_dir: Path | None = None,
        max_tokens: int = JUDGE_MAX_TOKENS,
    ) -> None:
        """``cache_dir`` is the rollout cache directory; answers go to its ``judge/`` folder."""
        self.client = client
        self.spec = spec
        self.cache = JudgeCache(cache_dir) if cache_dir is not None else None
        self.max_tokens = max_tokens

    @classmethod
    def open(
        cls,
        spec: ModelSpec,
        *,
        cache_dir: Path | None = None,
        prices: PriceTable | None = None,
        retry: RetryPolicy | None = None,
        limiter: ConcurrencyLimiter | None = None,
        api_key: str | None = None,
    ) -> Judge:
        """A judge on a new :class:`~aces_ci.models.ManagedClient` for ``spec`` (raises ConfigError for a bad spec).

        Pass the engine's ``limiter`` so judge calls share the endpoint's concurrency cap with the agents'.
        """
        client = create_client(spec, api_key=api_key, retry=retry, limiter=limiter, prices=prices)
        return cls(client, spec, cache_dir=cache_dir)

    @property
    def name(self) -> str:
        return f"judge:{self.spec.model}"

    async def aclose(self) -> None:
        """Release the client's connections."""
        await self.client.aclose()

    def _key(self, request: ModelRequest) -> str:
        payload: Mapping[str, Any] = {
            "protocol": JUDGE_PROTOCOL,
            "model": self.spec.cache_identity(),
            "system": request.system,
            "messages": [[m.role, m.content] for m in request.messages],
            "max_tokens": request.max_tokens,
        }
        canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    async def _reply(self, request: ModelRequest) -> tuple[str, Cost]:
        key = self._key(request)
        if self.cache is not None and (text := self.cache.get(key)) is not None:
            return text, Cost(cached_calls=1)
        try:
            response = await self.client.generate(request)
        except InfraError as exc:
            raise JudgeUnavailable(f"the judge model ({self.spec.model}) failed: {redact_text(str(exc))}") from exc
        usage = response.usage
        if self.cache is not None:
            self.cache.put(key, response.text, usage, response.model)
        cost = Cost(usage.cost_usd, usage.prompt_tokens, usage.completion_tokens, calls=1)
        return response.text, cost

    async def ask(self, system: str, prompt: str, validate: Validator) -> JudgeAnswer:
        """The validated JSON verdict for ``prompt``; see the module docstring for retries and failures."""
        messages: tuple[Message, ...] = (Message("user", prompt),)
        total = Cost()
        problem = ""
        for _attempt in range(2):
            request = ModelRequest(
                system=system, messages=messages, max_tokens=self.max_tokens, temperature=0.0, seed=0
            )
            text, cost = await self._reply(request)
            total += cost
            data = parse_reply(text)
            problem = "it was not a JSON object" if data is None else validate(data) or ""
            if data is not None and not problem:
                return JudgeAnswer(data, None, total)
            messages = (*messages, Message("assistant", text), Message("user", _RETRY_NOTE.format(problem=problem)))
        return JudgeAnswer(None, f"the judge's reply was unusable twice ({problem})", total)
