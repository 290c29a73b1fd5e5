"""What a trial grades each rollout on: the six ACES metrics, through the engine's grading seam.

Every rollout goes through :class:`~aces_ci.grading.AcesMetricsGrader` (accuracy, goal
accuracy, skill execution, behaviour check, security, and the metrics of the product's own
grader). A trial may hold several skills in one engine call, each with its own dataset and so
its own BYOG grader: :class:`TrialGrader` hands each rollout to the grader of the skill it
measures, and all of them share one judge (whose answers are cached in the rollout cache, so a
rerun regrades for free). Skill efficiency needs the paired control and is graded after pairing
(:mod:`aces_ci.trials._table`); the composite and the outcome are derived there too.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..evals import GraderSpec
from ..grading import AcesMetricsGrader, Grades, GradingInput, Judge


class TrialGrader:
    """The six ACES metrics of every rollout, each skill graded with its own dataset's grader (BYOG)."""

    def __init__(self, *, judge: Judge | None = None, owned: Mapping[str, GraderSpec | None] | None = None) -> None:
        self.judge = judge
        self._default = AcesMetricsGrader(judge=judge)
        self._by_skill = {
            skill: AcesMetricsGrader(judge=judge, owned=spec) for skill, spec in (owned or {}).items() if spec
        }
        metrics: dict[str, None] = dict.fromkeys(self._default.metrics)
        for grader in self._by_skill.values():
            metrics.update(dict.fromkeys(grader.metrics))
        self.metrics: tuple[str, ...] = tuple(metrics)
        self.name: str = "+".join(dict.fromkeys([self._default.name, *(g.name for g in self._by_skill.values())]))

    def grader_for(self, skill: str) -> AcesMetricsGrader:
        """The grader of the rollouts measuring ``skill``."""
        return self._by_skill.get(skill, self._default)

    async def grade(self, rollout: GradingInput) -> Grades:
        return await self.grader_for(rollout.request.skills.target).grade(rollout)


def trial_grader(judge: Judge | None = None, owned: Mapping[str, GraderSpec | None] | None = None) -> TrialGrader:
    """The grader every rollout of a trial is graded with: ``owned`` maps a skill's name to its BYOG grader."""
    return TrialGrader(judge=judge, owned=owned)
