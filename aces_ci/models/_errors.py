"""One place that decides what a failed model call means: retry or not, and after how long.

Both providers' SDKs raise their own exception trees; the provider modules pull status, error type
and headers out of them and call :func:`api_error`, so the classification below is written once.

Retryable: timeouts and connection failures, HTTP 408/409/429, every 5xx including Anthropic's 529,
and an overload reported *inside* a 200 body (an ``error`` event mid-stream), which the SDKs do not
retry. Not retryable: other 4xx (bad request, auth, permission, not found) and an exhausted quota,
which arrives as a 429 but will not clear by waiting. A server's ``x-should-retry`` header overrides.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Callable, Mapping

from ._base import ModelAPIError

RETRYABLE_STATUSES = frozenset({408, 409, 429})
RETRYABLE_ERROR_TYPES = frozenset(
    {"overloaded_error", "rate_limit_error", "api_error", "timeout_error", "server_error", "rate_limit_exceeded"}
)
"""Error types (Anthropic ``error.type``, OpenAI ``error.type``/``code``) that mean "try again later"."""
PERMANENT_ERROR_TYPES = frozenset({"insufficient_quota", "billing_error", "invalid_api_key"})
"""Error types that no amount of waiting fixes, whatever the status says."""


class RetriesExhausted(ModelAPIError):
    """Every permitted attempt failed with a retryable error, or the overall deadline ran out.

    The rollout engine records this as an infrastructure error, never as a failure of the skill.
    """

    def __init__(self, last_error: ModelAPIError, *, attempts: int, reason: str) -> None:
        super().__init__(
            f"gave up after {attempts} attempt{'s' if attempts != 1 else ''} ({reason}); last error: {last_error}",
            status=last_error.status,
            retryable=False,
            retry_after_s=last_error.retry_after_s,
        )
        self.attempts = attempts
        self.last_error = last_error
        self.reason = reason


def retry_after_s(headers: Mapping[str, str] | None, now: Callable[[], float] = time.time) -> float | None:
    """Seconds the server asked us to wait: ``retry-after-ms``, else ``retry-after`` (seconds or HTTP date)."""
    if not headers:
        return None
    lowered = {name.lower(): value for name, value in headers.items()}
    millis = _number(lowered.get("retry-after-ms"))
    if millis is not None:
        return max(0.0, millis / 1000.0)
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    seconds = _number(raw)
    if seconds is not None:
        return max(0.0, seconds)
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now())


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def is_retryable(status: int | None, error_type: str | None, should_retry: str | None = None) -> bool:
    """Whether the same request may succeed later (see the module docstring for the rules)."""
    if should_retry is not None and should_retry.strip().lower() in ("true", "false"):
        return should_retry.strip().lower() == "true"
    if error_type in PERMANENT_ERROR_TYPES:
        return False
    if error_type in RETRYABLE_ERROR_TYPES:
        return True
    if status is None:
        return False
    return status in RETRYABLE_STATUSES or status >= 500


def api_error(
    provider: str,
    *,
    status: int | None,
    error_type: str | None,
    message: str,
    headers: Mapping[str, str] | None = None,
) -> ModelAPIError:
    """A :class:`ModelAPIError` for an HTTP-level failure, classified and with the server's wait hint."""
    lowered = {name.lower(): value for name, value in (headers or {}).items()}
    where = f"HTTP {status}" if status is not None else "error"
    kind = f" {error_type}" if error_type else ""
    return ModelAPIError(
        f"{provider} API {where}{kind}: {message}",
        status=status,
        retryable=is_retryable(status, error_type, lowered.get("x-should-retry")),
        retry_after_s=retry_after_s(lowered),
    )


def transport_error(provider: str, *, timed_out: bool, detail: str, timeout_s: float) -> ModelAPIError:
    """A :class:`ModelAPIError` for a call that never got an answer: always retryable."""
    if timed_out:
        return ModelAPIError(f"{provider} API call timed out after {timeout_s:g} s", retryable=True)
    return ModelAPIError(f"{provider} API connection failed: {detail}", retryable=True)
