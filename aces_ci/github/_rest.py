"""A small client of GitHub's REST API over httpx: our own retry policy, Link pagination, no secrets in errors.

Retried, a bounded number of times and for a bounded total wait:

* 5xx responses and connection errors (GitHub's front end has bad seconds);
* the secondary rate limit — 403 or 429 whose body says "secondary rate limit" or which carry
  ``Retry-After`` — waiting what ``Retry-After`` says;
* the primary rate limit — 403/429 with ``x-ratelimit-remaining: 0`` — waiting until
  ``x-ratelimit-reset`` (epoch seconds).

A wait longer than ``max_wait_s`` is not waited for: the request fails with the reason, since a
CI job sleeping for an hour is worse than a clear error. Everything else (a 403 for a read-only
token, a 404, a 422) is returned to the caller, who knows what it means in context.

Lists follow ``Link: <…>; rel="next"`` up to ``max_pages``. The token is sent as a bearer
header only and masked in every message this module builds.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from .. import __version__
from ..errors import InfraError
from ..redact import redact_obj, redact_text

API_VERSION = "2022-11-28"
_NEXT_LINK = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')
_RETRIED_STATUS = frozenset({500, 502, 503, 504})


class GitHubError(InfraError):
    """A GitHub API request failed for good (exit 3): after retries, or with a status nobody handles."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        self.status = status
        super().__init__(message)


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 5
    """Tries per request, the first included."""
    backoff_s: float = 1.0
    """First wait after a 5xx or connection error; doubles each time."""
    max_wait_s: float = 60.0
    """Longest single wait; a rate limit asking for more fails at once."""
    total_wait_s: float = 180.0
    """Longest sum of waits per request."""


def next_link(header: str | None) -> str | None:
    """The ``rel="next"`` URL of a ``Link`` header, None on the last page."""
    if not header:
        return None
    for part in header.split(","):
        match = _NEXT_LINK.search(part)
        if match:
            return match.group(1)
    return None


def _is_rate_limited(response: httpx.Response) -> bool:
    if response.status_code not in (403, 429):
        return False
    if response.status_code == 429 or "retry-after" in response.headers:
        return True
    if response.headers.get("x-ratelimit-remaining") == "0":
        return True
    return "rate limit" in response.text[:2000].lower()


def _rate_limit_wait(response: httpx.Response, now: float) -> float | None:
    """Seconds the response asks us to wait, None when it does not say."""
    retry_after = response.headers.get("retry-after")
    if retry_after is not None:
        try:
            return max(0.0, float(retry_after))
        except ValueError:
            return None
    reset = response.headers.get("x-ratelimit-reset")
    if reset is not None and response.headers.get("x-ratelimit-remaining") == "0":
        try:
            return max(0.0, float(reset) - now)
        except ValueError:
            return None
    return None


class GitHubClient:
    """One repository's REST API as seen with one token."""

    def __init__(
        self,
        api_url: str,
        token: str | None,
        *,
        policy: RetryPolicy | None = None,
        timeout_s: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        max_pages: int = 100,
    ) -> None:
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": f"aces-ci/{__version__}",
        }
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self._http = httpx.Client(base_url=api_url.rstrip("/"), headers=headers, timeout=timeout_s)
        self._secrets = (token,) if token else ()
        self.policy = policy or RetryPolicy()
        self._sleep = sleep
        self._clock = clock
        self.max_pages = max_pages
        self.waits: list[float] = []
        """Every wait this client slept, in order: what a run's log reports about retries."""

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _mask(self, text: str) -> str:
        return redact_text(text, self._secrets)

    def request(
        self, method: str, url: str, *, json: Any = None, params: Mapping[str, str | int] | None = None
    ) -> httpx.Response:
        """Send one request with the retry policy; the final response whatever its status.

        A JSON body (a comment, a check run's output) passes through the redactor first: what is
        posted to GitHub is as public as a log.
        """
        json = None if json is None else redact_obj(json, extra_secrets=self._secrets)
        waited = 0.0
        failure = ""
        for attempt in range(1, self.policy.attempts + 1):
            try:
                response = self._http.request(method, url, json=json, params=params)
            except httpx.HTTPError as exc:
                failure = f"{type(exc).__name__}: {exc}"
                wait = self.policy.backoff_s * 2 ** (attempt - 1)
            else:
                if response.status_code in _RETRIED_STATUS:
                    failure = f"HTTP {response.status_code}"
                    wait = self.policy.backoff_s * 2 ** (attempt - 1)
                elif _is_rate_limited(response):
                    asked = _rate_limit_wait(response, self._clock())
                    wait = self.policy.backoff_s * 2 ** (attempt - 1) if asked is None else asked
                    failure = f"HTTP {response.status_code} rate limited"
                    if wait > self.policy.max_wait_s:
                        raise GitHubError(
                            self._mask(
                                f"GitHub API {method} {url}: rate limited for {wait:.0f} s, longer than the "
                                f"{self.policy.max_wait_s:.0f} s this run waits; retry the job later"
                            ),
                            status=response.status_code,
                        )
                else:
                    return response
            if attempt == self.policy.attempts:
                break
            wait = min(wait, self.policy.max_wait_s)
            if waited + wait > self.policy.total_wait_s:
                break
            waited += wait
            self.waits.append(wait)
            self._sleep(wait)
        raise GitHubError(
            self._mask(f"GitHub API {method} {url} failed after {attempt} attempt(s): {failure}"),
            status=None,
        )

    def json(self, method: str, url: str, *, json: Any = None, expect: tuple[int, ...] = (200, 201)) -> Any:
        """Send a request and return its JSON body; a status outside ``expect`` raises :class:`GitHubError`."""
        response = self.request(method, url, json=json)
        if response.status_code not in expect:
            raise self.error(method, url, response)
        return response.json() if response.content else None

    def paginate(self, url: str, params: Mapping[str, str | int] | None = None) -> Iterator[Any]:
        """Every item of a list endpoint, following ``Link: rel="next"`` up to ``max_pages`` pages."""
        current: str | None = url
        query: Mapping[str, str | int] | None = {"per_page": 100, **(params or {})}
        for _ in range(self.max_pages):
            if current is None:
                return
            response = self.request("GET", current, params=query)
            if response.status_code != 200:
                raise self.error("GET", current, response)
            page = response.json()
            if not isinstance(page, list):
                raise GitHubError(self._mask(f"GitHub API GET {current}: expected a list, got {type(page).__name__}"))
            yield from page
            current, query = next_link(response.headers.get("link")), None
        if current is not None:
            raise GitHubError(self._mask(f"GitHub API GET {url}: more than {self.max_pages} pages; not followed"))

    def error(self, method: str, url: str, response: httpx.Response) -> GitHubError:
        """A :class:`GitHubError` describing ``response``, with GitHub's own message (masked)."""
        detail = ""
        try:
            body = response.json()
            if isinstance(body, dict) and isinstance(body.get("message"), str):
                detail = f": {body['message'][:300]}"
        except ValueError:
            detail = f": {response.text[:200]}" if response.text else ""
        return GitHubError(
            self._mask(f"GitHub API {method} {url} returned HTTP {response.status_code}{detail}"),
            status=response.status_code,
        )
