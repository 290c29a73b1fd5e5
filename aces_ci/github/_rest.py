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

Lists follow ``Link: <…>; rel="next"`` up to ``max_pages``; a link that comes back to a page
already read is a loop and fails at once. The token is sent as a bearer header only and masked in
every message this module builds.

The token never leaves ``GITHUB_API_URL``'s origin (scheme, host, port): a pagination link, a
redirect's ``Location`` or any absolute URL naming another origin is refused before a request is
made, with a :class:`GitHubError` that names the foreign host. Same-origin redirects are followed
by hand (at most :data:`MAX_REDIRECTS`), because httpx would send our headers along. A 2xx answer
whose body is not JSON (a proxy's or a captive portal's HTML page) is an error naming what came
back, never a traceback. A rate limit that outlasts the bound is a :class:`GitHubRateLimited` — a
403 the caller must not read as "this token may not write".
"""

from __future__ import annotations

import json as jsonlib
import re
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from .. import __version__
from ..errors import InfraError
from ..redact import redact_obj, redact_text

API_VERSION = "2022-11-28"
_NEXT_LINK = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')
_RETRIED_STATUS = frozenset({500, 502, 503, 504})
_REDIRECT_STATUS = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS = 5
"""Same-origin redirects followed per request (GitHub redirects renamed repositories once)."""
_DEFAULT_PORTS = {"http": 80, "https": 443}


class GitHubError(InfraError):
    """A GitHub API request failed for good (exit 3): after retries, or with a status nobody handles."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        self.status = status
        super().__init__(message)

    @property
    def denied(self) -> bool:
        """GitHub refused this token (401/403/404): a permission to report, not an outage. A rate limit is not."""
        return self.status in (401, 403, 404) and not isinstance(self, GitHubRateLimited)


class GitHubRateLimited(GitHubError):
    """GitHub's rate limit outlasted what this run waits: not a permission problem, whatever the status."""


def origin(url: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of ``url``, the port spelled out: what "the same server" means for the token."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    return scheme, (parts.hostname or "").lower(), port or _DEFAULT_PORTS.get(scheme, 0)


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
        self.api_url = api_url.rstrip("/")
        self._origin = origin(self.api_url)
        self._http = httpx.Client(base_url=self.api_url, headers=headers, timeout=timeout_s, follow_redirects=False)
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
        self._check_origin(method, url, "URL")
        for _ in range(MAX_REDIRECTS + 1):
            response = self._send(method, url, json, params)
            location = response.headers.get("location")
            if response.status_code not in _REDIRECT_STATUS or not location:
                self._check_json(method, url, response)
                return response
            target = urljoin(self._absolute(url), location)
            self._check_origin(method, target, f"redirect (HTTP {response.status_code}) from {url}")
            url, params = target, None
            if response.status_code == 303:
                method, json = "GET", None
        raise GitHubError(self._mask(f"GitHub API {method} {url}: more than {MAX_REDIRECTS} redirects; not followed"))

    def _absolute(self, url: str) -> str:
        return url if urlsplit(url).scheme else f"{self.api_url}/{url.lstrip('/')}"

    def _check_origin(self, method: str, url: str, what: str) -> None:
        """Refuse, before any byte is sent, a URL whose origin is not ``GITHUB_API_URL``'s: it would get the token."""
        target = origin(self._absolute(url))
        if target != self._origin:
            scheme, host, port = target
            raise GitHubError(
                self._mask(
                    f"GitHub API {method}: refused to follow a {what} to {scheme}://{host}:{port}, which is not "
                    f"GITHUB_API_URL's server ({self._origin[0]}://{self._origin[1]}:{self._origin[2]}); "
                    "the token is only ever sent there"
                )
            )

    def _check_json(self, method: str, url: str, response: httpx.Response) -> None:
        """A successful answer must be JSON (or empty): anything else is a proxy's page, reported as such."""
        if not 200 <= response.status_code < 300 or not response.content:
            return
        try:
            jsonlib.loads(response.content)
        except ValueError:
            kind = response.headers.get("content-type", "no content type").split(";")[0]
            start = " ".join(response.text[:80].split())
            raise GitHubError(
                self._mask(
                    f"GitHub API {method} {url} returned HTTP {response.status_code} with {kind}, not JSON "
                    f"(starts {start!r}); is GITHUB_API_URL the API, or is a proxy answering?"
                ),
                status=response.status_code,
            ) from None

    def _send(self, method: str, url: str, json: Any, params: Mapping[str, str | int] | None) -> httpx.Response:
        """One request with the retry policy (5xx, connection errors, rate limits)."""
        waited = 0.0
        failure = ""
        status: int | None = None
        limited = False
        for attempt in range(1, self.policy.attempts + 1):
            try:
                response = self._http.request(method, url, json=json, params=params)
            except httpx.HTTPError as exc:
                failure = f"{type(exc).__name__}: {exc}"
                wait = self.policy.backoff_s * 2 ** (attempt - 1)
            else:
                status = response.status_code
                limited = False
                if response.status_code in _RETRIED_STATUS:
                    failure = f"HTTP {response.status_code}"
                    wait = self.policy.backoff_s * 2 ** (attempt - 1)
                elif _is_rate_limited(response):
                    limited = True
                    asked = _rate_limit_wait(response, self._clock())
                    wait = self.policy.backoff_s * 2 ** (attempt - 1) if asked is None else asked
                    failure = f"HTTP {response.status_code} rate limited"
                    if wait > self.policy.max_wait_s or waited + wait > self.policy.total_wait_s:
                        raise GitHubRateLimited(
                            self._mask(
                                f"GitHub API {method} {url}: rate limited (HTTP {response.status_code}) for "
                                f"{wait:.0f} s more, longer than this run waits ({self.policy.max_wait_s:.0f} s at "
                                f"once, {self.policy.total_wait_s:.0f} s in all); retry the job later"
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
        kind = GitHubRateLimited if limited else GitHubError
        raise kind(self._mask(f"GitHub API {method} {url} failed after {attempt} attempt(s): {failure}"), status=status)

    def json(self, method: str, url: str, *, json: Any = None, expect: tuple[int, ...] = (200, 201)) -> Any:
        """Send a request and return its JSON body; a status outside ``expect`` raises :class:`GitHubError`."""
        response = self.request(method, url, json=json)
        if response.status_code not in expect:
            raise self.error(method, url, response)
        return response.json() if response.content else None

    def paginate(self, url: str, params: Mapping[str, str | int] | None = None) -> Iterator[Any]:
        """Every item of a list endpoint, following ``Link: rel="next"`` up to ``max_pages`` pages.

        A next link to another origin is refused (:meth:`request`); one to a page already read is a
        loop and fails at once rather than after ``max_pages`` requests.
        """
        current: str | None = url
        query: Mapping[str, str | int] | None = {"per_page": 100, **(params or {})}
        seen: set[str] = set()
        for _ in range(self.max_pages):
            if current is None:
                return
            response = self.request("GET", current, params=query)
            seen.add(str(response.url))
            if response.status_code != 200:
                raise self.error("GET", current, response)
            page = response.json()
            if not isinstance(page, list):
                raise GitHubError(self._mask(f"GitHub API GET {current}: expected a list, got {type(page).__name__}"))
            yield from page
            current, query = next_link(response.headers.get("link")), None
            if current is not None and self._absolute(current) in seen:
                raise GitHubError(
                    self._mask(f"GitHub API GET {url}: the pagination links loop back to {current}; not followed")
                )
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
            text = " ".join(response.text[:200].split())
            detail = f": {text}" if text else ""
        return GitHubError(
            self._mask(f"GitHub API {method} {url} returned HTTP {response.status_code}{detail}"),
            status=response.status_code,
        )
