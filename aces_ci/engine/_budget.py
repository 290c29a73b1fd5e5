"""Spending caps of one engine's lifetime (a whole command): rollouts, dollars, wall-clock time.

One meter spans every ``run`` call of an engine, so a cap set when a command starts holds across
all its batches: a trial's sequential rounds, SkillSV's thousands of small batches. The engine
asks :meth:`BudgetMeter.exhausted` before launching each rollout and stops launching once any cap
is reached; rollouts already running finish (dollars, count) or are cancelled (wall time). Only
rollouts that actually run count: cache, journal and session hits cost nothing. Graders' model
costs (judges) count towards the dollar cap too, but never stop a paid rollout from being graded.
The dollar cap is checked against finished rollouts, so rollouts in flight when it is reached can
overshoot it by at most ``concurrency`` rollouts' cost.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from ..errors import ConfigError

BudgetCap = Literal["max_rollouts", "budget_usd", "max_wall"]
"""A :class:`Budget` cap that was reached, named as the run settings name it (aces.yml's ``budget_usd``,
``--max-rollouts``, ``--max-wall``). Written as ``stopped_by`` in the trial and value JSON (trial JSON of
earlier versions spelled the dollar cap ``max_usd``; its schema still accepts that spelling)."""

StopReason = Literal[BudgetCap, "circuit_breaker"]
"""Why an engine call left rollouts unrun: a budget cap, or the engine's tripped circuit breaker (:mod:`._breaker`)."""


@dataclass(frozen=True)
class Budget:
    max_rollouts: int | None = None
    """Rollouts launched on the harness (cached and resumed ones are free)."""
    max_usd: float | None = None
    """Dollars, summed from each finished rollout's ``Usage.cost_usd``."""
    max_wall_s: float | None = None
    """Seconds since the engine opened; running rollouts are cancelled when it passes."""

    def __post_init__(self) -> None:
        if self.max_rollouts is not None and self.max_rollouts < 0:
            raise ConfigError(f"max rollouts must be 0 or more, got {self.max_rollouts}", field="max_rollouts")
        if self.max_usd is not None and not self.max_usd >= 0:
            raise ConfigError(f"budget must be 0 dollars or more, got {self.max_usd}", field="budget_usd")
        if self.max_wall_s is not None and not self.max_wall_s > 0:
            raise ConfigError(f"max wall time must be above 0 seconds, got {self.max_wall_s}", field="max_wall_s")


class BudgetMeter:
    """What one engine has used so far of its :class:`Budget`."""

    def __init__(self, budget: Budget, clock: Callable[[], float] = time.monotonic) -> None:
        self.budget = budget
        self._clock = clock
        self.started = clock()
        self.launched = 0
        self.spent_usd = 0.0

    def launch(self) -> None:
        self.launched += 1

    def spend(self, usd: float) -> None:
        self.spent_usd += usd

    def wall_left(self) -> float | None:
        if self.budget.max_wall_s is None:
            return None
        return max(0.0, self.budget.max_wall_s - (self._clock() - self.started))

    def exhausted(self) -> BudgetCap | None:
        """The first cap reached, or None while another rollout may be launched."""
        if self.budget.max_rollouts is not None and self.launched >= self.budget.max_rollouts:
            return "max_rollouts"
        if self.budget.max_usd is not None and self.spent_usd >= self.budget.max_usd:
            return "budget_usd"
        left = self.wall_left()
        if left is not None and left <= 0:
            return "max_wall"
        return None
