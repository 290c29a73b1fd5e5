"""The circuit breaker: an engine stops launching rollouts once its calls keep failing on infrastructure.

A dead or hanging model API fails every rollout alike, and each failure is expensive: six attempts
with backoff (:class:`~aces_ci.models.RetryPolicy`), or the whole per-rollout timeout. Without a
breaker a batch pays that for every remaining rollout and then reports nothing it measured. So the
engine counts the rollouts it runs that end as infrastructure errors (any ``infra_error``:
retries exhausted, a timeout, a harness crash, a staging failure) *in a row*, in the order they
finish; one completed rollout resets the count. After :data:`DEFAULT_BREAKER_AFTER` of them the
breaker trips for the rest of the engine's life: no call launches another rollout, and each call
reports what it left as not run with the reason ``circuit_breaker``. Rollouts already running
finish; completed ones stay in the journal and cache, so a rerun once the API is back resumes.

Cache, journal and session hits never count: they made no call.
"""

from __future__ import annotations

from ..agents import RolloutResult
from ..errors import ConfigError

DEFAULT_BREAKER_AFTER = 5
"""Consecutive infrastructure errors that trip the breaker (:class:`~aces_ci.engine.RolloutEngine`'s default)."""


class CircuitBreaker:
    """Counts consecutive infrastructure errors of the rollouts an engine ran; trips at ``after``."""

    def __init__(self, after: int = DEFAULT_BREAKER_AFTER) -> None:
        if after < 1:
            raise ConfigError(f"the circuit breaker needs at least 1 error to trip, got {after}", field="breaker")
        self.after = after
        self.consecutive = 0
        self.first_error: str | None = None
        """The first error of the current run of failures (redacted, as the result holds it)."""
        self.tripped = False

    def record(self, result: RolloutResult) -> None:
        """Count one rollout that ran; a completed one resets the count (never a trip already made)."""
        if result.status != "infra_error":
            self.consecutive, self.first_error = 0, None
            return
        if self.consecutive == 0:
            self.first_error = f"{result.end_reason}: {result.error or 'no message'}"
        self.consecutive += 1
        if self.consecutive >= self.after:
            self.tripped = True

    def describe(self) -> str:
        """Why the breaker tripped, for reports: how many errors in a row and the first one's reason."""
        return (
            f"the circuit breaker tripped after {self.after} consecutive rollouts ended as infrastructure "
            f"errors (first: {self.first_error or 'unknown'})"
        )
