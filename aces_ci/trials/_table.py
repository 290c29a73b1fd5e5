"""A trial's rollouts as a table (case × condition × replicate), and one metric's paired scores read off it.

The statistics see one metric at a time as two rows of run scores per case
(:func:`aces_ci.stats.paired_scores`). This module builds those rows from the engine's records:

* a **graded metric** (``accuracy``…) is the grade's value, and ``None`` when the rollout did not
  run (budget stop), ended as an infrastructure error, or the metric was not graded on it (not
  applicable, could not grade, grader error) — never 0;
* **skill efficiency** is graded here, per pair: run r of one condition against run r of the
  other (:func:`aces_ci.grading.grade_skill_efficiency`, bounded ratios of tokens, turns and
  time), in both directions, since a grader of one rollout cannot see its control. When the
  partner did not run or did not complete, the metric says why instead of giving a value;
* the **composite** and the **outcome** are means over metrics *of the pair*: for run r of a case,
  only the metrics graded on both conditions' rollouts enter either side's mean, so a metric that
  exists in one condition only (loading the skill, when the control lacks it) cannot put itself
  into the lift by construction. Composite: equal weight over the six ACES metrics that apply;
  outcome: accuracy and goal accuracy.

Run r of one condition is paired with run r of the other. Under shared-seed coupling that is the
seed-sharing pair; under independent coupling it is the pair the schedule ran side by side, and
the lift itself does not depend on the pairing (it compares per-case means).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..engine import RolloutRecord
from ..grading import GradingInput, MetricGrade, RolloutFigures, grade_skill_efficiency, rollout_facts
from ..stats import Coupling, PairedScores, RolloutCost, paired_scores

ACES_METRICS = ("accuracy", "goal_accuracy", "skill_execution", "behavior_check", "skill_efficiency", "security")
"""The six ACES metrics, in report order."""
OUTCOME_METRICS = ("accuracy", "goal_accuracy")
EFFICIENCY = "skill_efficiency"
"""The metric graded per pair, against the other condition's rollout of the same case and run."""
COMPOSITE = "composite"
OUTCOME = "outcome"
TRIAL_METRICS = (OUTCOME, COMPOSITE, *ACES_METRICS)
"""The metrics a trial reports a lift for, in table order (the default gated outcome first, the composite beside it)."""
DERIVED = {COMPOSITE: ACES_METRICS, OUTCOME: OUTCOME_METRICS}
"""Derived metric → the metrics it averages."""
LOADING_VIAS = frozenset({"skill_tool", "file_read", "shell_read", "preloaded"})
"""Skill events that count as "the skill was loaded" for trigger stratification."""

Key = tuple[str, str, int]
"""(case id, condition label, replicate)."""


@dataclass(frozen=True)
class RunTable:
    """Every finished rollout of a trial for one skill, by (case, condition, replicate)."""

    case_ids: tuple[str, ...]
    records: Mapping[Key, RolloutRecord]
    replicates: int
    """Replicates scheduled per case and condition (the width of every score row)."""

    @classmethod
    def of(cls, case_ids: Sequence[str], records: Iterable[RolloutRecord], replicates: int) -> RunTable:
        table: dict[Key, RolloutRecord] = {}
        for record in records:
            request = record.request
            table[(request.case.id, request.condition, request.replicate)] = record
        return cls(tuple(case_ids), table, replicates)

    def get(self, case: str, condition: str, replicate: int) -> RolloutRecord | None:
        return self.records.get((case, condition, replicate))

    def runs_of(self, condition: str) -> list[RolloutRecord]:
        """The finished rollouts of one condition, case by case, replicate by replicate."""
        return [
            record
            for case in self.case_ids
            for r in range(self.replicates)
            if (record := self.get(case, condition, r)) is not None
        ]

    def metrics(self) -> tuple[str, ...]:
        """Every graded metric seen on any rollout, ACES metrics first."""
        seen: dict[str, None] = {}
        for record in self.records.values():
            if record.grades is not None:
                seen.update((grade.metric, None) for grade in record.grades.metrics)
        return tuple(m for m in ACES_METRICS if m in seen) + tuple(m for m in seen if m not in ACES_METRICS)


def grade_of(record: RolloutRecord | None, metric: str) -> MetricGrade | None:
    if record is None or record.grades is None:
        return None
    return record.grades.get(metric)


def _figures(record: RolloutRecord) -> RolloutFigures:
    result = record.result
    return RolloutFigures.of(result.usage, result.duration_s, result.status, result.end_reason, result.trajectory)


def efficiency_grade(record: RolloutRecord | None, partner: RolloutRecord | None) -> MetricGrade | None:
    """``skill_efficiency`` of ``record`` against ``partner``, its paired rollout of the other condition.

    None when ``record`` did not run or ended as an infrastructure error (like every other metric
    of such a rollout: no grade); ``could_not_grade`` with the reason when the partner is missing
    or failed.
    """
    if record is None or record.result.status != "completed":
        return None
    if partner is None:
        return MetricGrade.could_not_grade(EFFICIENCY, "the paired control rollout did not run")
    result = grade_skill_efficiency(rollout_facts(GradingInput(record.request, record.result)), _figures(partner))
    return MetricGrade(EFFICIENCY, result.status, result.value, result.reason or None)


def pair_grades(
    treatment: RolloutRecord | None, control: RolloutRecord | None, metric: str
) -> tuple[MetricGrade | None, MetricGrade | None]:
    """The grades of ``metric`` on both rollouts of a pair (skill efficiency: each against the other)."""
    if metric == EFFICIENCY:
        return efficiency_grade(treatment, control), efficiency_grade(control, treatment)
    return grade_of(treatment, metric), grade_of(control, metric)


def _graded_value(grade: MetricGrade | None) -> float | None:
    return grade.value if grade is not None and grade.status == "graded" else None


def value_of(record: RolloutRecord | None, metric: str) -> float | None:
    return _graded_value(grade_of(record, metric))


def pair_values(
    treatment: RolloutRecord | None, control: RolloutRecord | None, metric: str
) -> tuple[float | None, float | None]:
    """Both sides' scores of ``metric`` on one pair; a derived metric over the metrics graded on both."""
    if metric in DERIVED:
        return _pair_mean(treatment, control, DERIVED[metric])
    t, c = pair_grades(treatment, control, metric)
    return _graded_value(t), _graded_value(c)


def _pair_mean(
    treatment: RolloutRecord | None, control: RolloutRecord | None, over: Sequence[str]
) -> tuple[float | None, float | None]:
    t: list[float] = []
    c: list[float] = []
    for metric in over:
        tv, cv = pair_values(treatment, control, metric)
        if tv is not None and cv is not None:
            t.append(tv)
            c.append(cv)
    if not t:
        return None, None
    return sum(t) / len(t), sum(c) / len(c)


def score_rows(
    table: RunTable, treatment: str, control: str, metric: str
) -> tuple[list[list[float | None]], list[list[float | None]]]:
    """Per case, the run scores of ``metric`` in both conditions (``None`` for no score)."""
    with_rows: list[list[float | None]] = []
    control_rows: list[list[float | None]] = []
    for case in table.case_ids:
        w: list[float | None] = []
        c: list[float | None] = []
        for r in range(table.replicates):
            tv, cv = pair_values(table.get(case, treatment, r), table.get(case, control, r), metric)
            w.append(tv)
            c.append(cv)
        with_rows.append(w)
        control_rows.append(c)
    return with_rows, control_rows


def paired(table: RunTable, treatment: str, control: str, metric: str, coupling: Coupling) -> PairedScores:
    """One metric's :class:`~aces_ci.stats.PairedScores` for the contrast ``treatment`` − ``control``."""
    with_rows, control_rows = score_rows(table, treatment, control, metric)
    return paired_scores(with_rows, control_rows, coupling, table.case_ids)


def triggered(record: RolloutRecord | None, skill: str) -> bool | None:
    """Whether the skill under test was loaded in this rollout; None when the rollout gives no answer."""
    if record is None or record.result.status != "completed":
        return None
    return any(event.skill == skill and event.via in LOADING_VIAS for event in record.result.skill_events)


def trigger_rows(table: RunTable, condition: str, skill: str) -> list[list[bool | None]]:
    return [
        [triggered(table.get(case, condition, r), skill) for r in range(table.replicates)] for case in table.case_ids
    ]


def rollout_cost(record: RolloutRecord, priced: bool) -> RolloutCost:
    """What one rollout spent, whether it ran now or came from a store (the design's cost either way)."""
    usage = record.result.usage
    return RolloutCost(
        tokens_in=usage.prompt_tokens,
        tokens_out=usage.completion_tokens,
        tokens_cached=usage.cache_read_tokens,
        calls=usage.model_calls,
        latency_s=record.result.duration_s,
        dollars=usage.cost_usd if priced else None,
    )


def unscored_reasons(table: RunTable, treatment: str, control: str, metric: str) -> dict[str, int]:
    """Why ``metric`` has no value on the rollouts of a contrast's two conditions: reason → count.

    Most common first. Skill efficiency is read pair by pair, each rollout against its partner.
    """
    counts: dict[str, int] = {}
    sources = DERIVED.get(metric, (metric,))
    for case in table.case_ids:
        for r in range(table.replicates):
            pair = (table.get(case, treatment, r), table.get(case, control, r))
            for name in sources:
                grades = pair_grades(pair[0], pair[1], name)
                for record, grade in zip(pair, grades, strict=True):
                    if record is None or (grade is not None and grade.status == "graded"):
                        continue
                    if grade is None:
                        reason = (
                            f"rollout ended as an infrastructure error ({record.result.end_reason})"
                            if record.result.status != "completed"
                            else f"{name} is not graded in this trial"
                        )
                    else:
                        reason = f"{name}: {grade.reason or grade.status}"
                    counts[reason] = counts.get(reason, 0) + 1
    return dict(sorted(counts.items(), key=lambda item: -item[1]))
