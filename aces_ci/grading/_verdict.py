"""One judge question with a one-word answer, turned into a grade: what accuracy and goal accuracy share.

The judge picks a word from a fixed scale (``correct`` / ``partially_correct`` / ``incorrect``) and
gives a reason; the score is the scale's, never a number the judge writes, so a judge cannot
contradict its own verdict with a score. An unusable reply is ``could_not_grade``, a dead API
``grader_error`` (see :mod:`aces_ci.grading._judge`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._judge import Judge, JudgeUnavailable
from ._types import Check, MetricResult, graded, ungraded


@dataclass(frozen=True)
class VerdictScale:
    """The words a judge may answer with under ``key``, and the score of each."""

    key: str
    scores: Mapping[str, float]
    check: str
    """The name of the evidence entry (``reference answer``, ``expected outcome``)."""

    def validate(self, data: dict[str, Any]) -> str | None:
        if data.get(self.key) not in self.scores:
            return f"'{self.key}' must be one of {', '.join(self.scores)}"
        if not isinstance(data.get("reason"), str):
            return "'reason' must be a string"
        return None


async def grade_by_verdict(metric: str, judge: Judge, system: str, prompt: str, scale: VerdictScale) -> MetricResult:
    """Ask ``judge`` and grade ``metric`` by the word it picks on ``scale``."""
    try:
        answer = await judge.ask(system, prompt, scale.validate)
    except JudgeUnavailable as exc:
        return ungraded(metric, "grader_error", str(exc), grader=judge.name)
    if answer.data is None:
        reason = answer.problem or "the judge gave no usable verdict"
        return ungraded(metric, "could_not_grade", reason, cost=answer.cost, grader=judge.name)
    word = answer.data[scale.key]
    score = scale.scores[word]
    check = Check(scale.check, score == 1.0, answer.data["reason"][:300], score, "judge")
    return graded(metric, score, f"judge: {scale.key} {word}", (check,), cost=answer.cost, grader=judge.name)
