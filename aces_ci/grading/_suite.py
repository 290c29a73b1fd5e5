"""Several graders as one: the six ACES metrics come from different graders (rules, judges, BYOG).

Each member is called through :func:`grade_rollout` at the same time as the others, so one
member's failure costs only its own metrics, and a judge's latency overlaps another's.
"""

from __future__ import annotations

import asyncio
from functools import reduce
from operator import add

from ..errors import ConfigError
from ..models import Usage
from ._grader import Grader, GradingInput, grade_rollout
from ._grades import Grades


class GraderSuite:
    """The members' metrics in member order; their costs summed."""

    def __init__(self, *graders: Grader, name: str | None = None) -> None:
        if not graders:
            raise ConfigError("a grader suite needs at least one grader", field="graders")
        seen: dict[str, str] = {}
        for grader in graders:
            for metric in grader.metrics:
                if metric in seen:
                    raise ConfigError(
                        f"metric {metric!r} is graded by both {seen[metric]!r} and {grader.name!r}", field="graders"
                    )
                seen[metric] = grader.name
        self.graders = graders
        self.name = name or "+".join(grader.name for grader in graders)
        self.metrics = tuple(seen)

    async def grade(self, rollout: GradingInput) -> Grades:
        parts = await asyncio.gather(*(grade_rollout(grader, rollout) for grader in self.graders))
        usage = reduce(add, (part.usage for part in parts), Usage())
        return Grades(self.name, tuple(grade for part in parts for grade in part.metrics), usage)
