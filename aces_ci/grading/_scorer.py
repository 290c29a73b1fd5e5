"""The seam between a finished rollout and its score.

A scorer reads one rollout's result against its case and returns a number in [0, 1], or None
when it cannot judge: the case gives it nothing to compare with, or the rollout never ran to an
end. None is never coerced to 0, because an outage is not evidence against a skill.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..agents import RolloutResult
from ..evals import EvalCase


@runtime_checkable
class Scorer(Protocol):
    name: str
    """Stable identifier; recorded with the scores (and in the rollout journal) so a change is visible."""

    async def score(self, case: EvalCase, result: RolloutResult) -> float | None:
        """0.0–1.0 for a judged rollout; None when this scorer cannot judge it."""
        ...
