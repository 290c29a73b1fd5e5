"""The six ACES metrics on the engine's grading seam: one :class:`Grader` a trial hands the engine.

The metric functions work on :class:`RolloutFacts` (plain data); this module builds those facts
from what the engine gives a grader — the request (which skill is under test, whether it was
staged, its files) and the result (answer, trajectory, skill events, the captured workspace
artifacts) — and turns each :class:`MetricResult` into the seam's :class:`MetricGrade`.

Skill efficiency is left out: it compares a rollout with its *paired control*, which a grader of
one rollout cannot see. The trial computes it after pairing (:func:`grade_skill_efficiency`).
"""

from __future__ import annotations

import dataclasses

from ..evals import GraderSpec
from ..models import Usage
from ._grade import grade_metrics
from ._grader import GradingInput
from ._grades import Grades, MetricGrade
from ._judge import Judge
from ._types import METRICS, RolloutFacts

PAIRED_METRICS = ("skill_efficiency",)
"""Metrics that need the other condition's rollout: computed by the trial, not by this grader."""


def rollout_facts(rollout: GradingInput) -> RolloutFacts:
    """The grading view of one rollout the engine finished."""
    request, result = rollout.request, rollout.result
    target = request.skills.target
    staged = next((skill for skill in request.skills.skills if skill.name == target), None)
    facts = RolloutFacts.from_result(
        request.case,
        result,
        skill=target,
        skill_staged=staged is not None,
        artifacts={artifact.path: artifact.content for artifact in result.artifacts.files},
        skill_files=frozenset(staged.files) if staged is not None else frozenset(),
    )
    return dataclasses.replace(facts, artifacts_complete=not result.artifacts.truncated)


class AcesMetricsGrader:
    """Accuracy, goal accuracy, skill execution, behaviour check and security of one rollout, plus BYOG metrics.

    ``judge`` decides what no rule can (a ``match: judge`` reference, free-text behaviours, an end
    state without outcome assertions); without one those metrics say ``could_not_grade``. ``owned``
    is the product's own grader (BYOG), whose metrics replace built-in ones of the same name.
    """

    def __init__(self, *, judge: Judge | None = None, owned: GraderSpec | None = None) -> None:
        self.judge = judge
        self.owned = owned
        built_in = tuple(name for name in METRICS if name not in PAIRED_METRICS)
        extra = tuple(name for name in (owned.metrics if owned else ()) if name not in built_in)
        self.metrics: tuple[str, ...] = built_in + extra
        judge_part = f"+judge:{judge.spec.provider}/{judge.spec.model}" if judge is not None else ""
        owned_part = f"+byog:{owned.label}" if owned is not None else ""
        self.name: str = f"aces-metrics{judge_part}{owned_part}"

    async def grade(self, rollout: GradingInput) -> Grades:
        grades = await grade_metrics(rollout_facts(rollout), judge=self.judge, grader=self.owned)
        metric_grades = tuple(
            MetricGrade(result.metric, result.status, result.value, result.reason or None)
            for name, result in grades.metrics.items()
            if name in self.metrics
        )
        cost = grades.cost
        usage = Usage(
            prompt_tokens=cost.prompt_tokens,
            completion_tokens=cost.completion_tokens,
            cost_usd=cost.usd,
            model_calls=cost.calls,
        )
        return Grades(self.name, metric_grades, usage=usage)
