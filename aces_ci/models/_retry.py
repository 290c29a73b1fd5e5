"""Our retry policy: more patient than the SDKs' two quick retries, and bounded by a deadline.

The SDK defaults (2 retries, 0.5 s doubling to 8 s) give up within seconds, while provider overloads
last minutes; so clients run with ``max_retries=0`` and this policy decides instead. It uses
exponential backoff with *full jitter* (a uniform draw between 0 and the exponential cap), which
spreads a burst of parallel rollouts apart instead of letting them retry in lockstep, and honours a
server's ``retry-after`` up to a cap. The random draws come from a ``random.Random`` the caller seeds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..errors import ConfigError
from ._base import ModelAPIError


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 6
    """Attempts in total, the first one included (1 disables retries)."""
    base_delay_s: float = 1.0
    """Backoff cap before the first retry; doubles on each further retry."""
    max_delay_s: float = 60.0
    """Ceiling of the exponential backoff."""
    max_retry_after_s: float = 120.0
    """A server's ``retry-after`` is honoured up to this many seconds (longer hints are cut to it)."""
    deadline_s: float | None = 900.0
    """No retry starts if its wait would end more than this many seconds after the first attempt began."""

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ConfigError(f"must be at least 1, got {self.max_attempts}", field="retry.max_attempts")
        for name in ("base_delay_s", "max_delay_s", "max_retry_after_s"):
            if getattr(self, name) < 0:
                raise ConfigError(f"must not be negative, got {getattr(self, name)}", field=f"retry.{name}")
        if self.deadline_s is not None and self.deadline_s <= 0:
            raise ConfigError(f"must be positive, got {self.deadline_s}", field="retry.deadline_s")

    def backoff_s(self, retry_number: int, rng: random.Random) -> float:
        """Full-jitter backoff before retry ``retry_number`` (1 for the first retry)."""
        ceiling = min(self.max_delay_s, self.base_delay_s * 2.0 ** (retry_number - 1))
        return rng.uniform(0.0, ceiling)

    def delay_s(self, retry_number: int, error: ModelAPIError, rng: random.Random) -> float:
        """How long to wait before retry ``retry_number`` after ``error``.

        A server's wait hint wins over our backoff when it is longer (waiting less only earns another
        429); it is capped at ``max_retry_after_s`` so one header cannot stall a run for an hour.
        """
        backoff = self.backoff_s(retry_number, rng)
        if error.retry_after_s is None:
            return backoff
        return max(backoff, min(error.retry_after_s, self.max_retry_after_s))
