"""Grade one rollout on all six ACES metrics (and a BYOG grader's), and the two means built on them.

**Composite** = the mean, with equal weight, of the six metrics that have a value on this rollout
(ACES's 1/6 each when all six apply). **Outcome** = the mean of accuracy and goal accuracy where
they have one. A metric without a value (``not_applicable``, ``could_not_grade``,
``grader_error``) is left out of both, never counted as 0; with none left the mean is ``None``.

For a *lift*, compare like with like: in a with/without pair, skill execution and the
skill-referencing behaviour checks do not apply to the baseline, so a pair's two composites
should be taken over the metrics that apply to **both** rollouts (:func:`composite` with
``over=``; :func:`shared_metrics` gives the set). A composite over different metric sets on the
two sides would put the skill-only metrics into the lift by construction.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..evals import GraderSpec
from ..frozen import frozen
from ._accuracy import grade_accuracy
from ._behavior import grade_behavior_check
from ._byog import run_byog
from ._efficiency import grade_skill_efficiency
from ._execution import grade_skill_execution
from ._goal import grade_goal_accuracy
from ._judge import Judge
from ._security import grade_security
from ._types import METRICS, OUTCOME_METRICS, Cost, MetricResult, RolloutFacts, RolloutFigures, ungraded


def _mean(grades: Mapping[str, MetricResult], names: Iterable[str]) -> float | None:
    values = [grade.value for name in names if (grade := grades.get(name)) is not None and grade.value is not None]
    return round(sum(values) / len(values), 6) if values else None


def composite(grades: Mapping[str, MetricResult], over: Iterable[str] = METRICS) -> float | None:
    """Equal-weight mean of the metrics in ``over`` (default: the six) that have a value."""
    return _mean(grades, [name for name in over if name in METRICS])


def outcome(grades: Mapping[str, MetricResult]) -> float | None:
    """Mean of accuracy and goal accuracy, over those that have a value."""
    return _mean(grades, OUTCOME_METRICS)


def shared_metrics(first: Mapping[str, MetricResult], second: Mapping[str, MetricResult]) -> tuple[str, ...]:
    """The six metrics that have a value on both rollouts of a pair, in report order."""
    return tuple(
        name
        for name in METRICS
        if (a := first.get(name)) is not None and a.applies and (b := second.get(name)) is not None and b.applies
    )


@dataclass(frozen=True)
class RolloutGrades:
    """Every grade of one rollout, by metric name: the six ACES metrics first, then BYOG metrics."""

    metrics: Mapping[str, MetricResult]
    """Read-only: one record's grades are read by every report and by both arms' comparisons."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "metrics", frozen(self.metrics))

    @property
    def composite(self) -> float | None:
        return composite(self.metrics)

    @property
    def outcome(self) -> float | None:
        return outcome(self.metrics)

    @property
    def cost(self) -> Cost:
        total = Cost()
        for grade in self.metrics.values():
            total += grade.cost
        return total

    def value(self, metric: str) -> float | None:
        grade = self.metrics.get(metric)
        return grade.value if grade is not None else None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of ``schemas/grade.schema.json``."""
        cost = self.cost
        return {
            "metrics": {name: grade.to_dict() for name, grade in self.metrics.items()},
            "composite": self.composite,
            "outcome": self.outcome,
            "cost": {
                "usd": round(cost.usd, 8),
                "prompt_tokens": cost.prompt_tokens,
                "completion_tokens": cost.completion_tokens,
                "calls": cost.calls,
                "cached_calls": cost.cached_calls,
            },
        }


async def grade_metrics(
    grading: RolloutFacts,
    *,
    control: RolloutFigures | None = None,
    judge: Judge | None = None,
    grader: GraderSpec | None = None,
) -> RolloutGrades:
    """All grades of one rollout. Never raises for a judge or grader failure: those are statuses.

    ``control`` is the paired rollout of the other condition (for skill efficiency); ``judge``
    decides what no rule can (``match: judge``, free-text behaviours, end states without outcome
    assertions); ``grader`` is the product's own grader, whose metrics replace built-in ones of
    the same name. An infrastructure error is not graded: every metric says so.
    """
    if not grading.completed:
        reason = f"the rollout did not complete ({grading.figures.end_reason}): not the skill's doing"
        return RolloutGrades({name: ungraded(name, "could_not_grade", reason) for name in METRICS})
    owned = await run_byog(grader, grading) if grader is not None else {}
    judged_metrics: dict[str, Callable[[RolloutFacts, Judge | None], Awaitable[MetricResult]]] = {
        "accuracy": grade_accuracy,
        "goal_accuracy": grade_goal_accuracy,
        "behavior_check": grade_behavior_check,
    }
    wanted = [name for name in judged_metrics if name not in owned]  # the product's grader answers for the rest
    results = await asyncio.gather(*(judged_metrics[name](grading, judge) for name in wanted))
    judged = dict(zip(wanted, results, strict=True))
    built_in: dict[str, MetricResult] = {
        **judged,
        "skill_execution": grade_skill_execution(grading),
        "skill_efficiency": grade_skill_efficiency(grading, control),
        "security": grade_security(grading),
    }
    ordered = {name: owned.get(name) or built_in[name] for name in METRICS}
    ordered.update({name: grade for name, grade in owned.items() if name not in ordered})
    return RolloutGrades(ordered)
