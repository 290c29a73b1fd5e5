"""Every closed set the code writes to a file is one ``Literal``, spelled as its JSON schema's enum spells it.

The schemas in ``schemas/`` are the contract readers of our files rely on, so they are the source of
truth: a value added to a Literal but not to its schema (or the reverse) would write files that fail
validation, or promise values that are never written.
"""

from __future__ import annotations

from typing import Any, get_args

import pytest

from aces_ci import agents, engine, grading, scan, skillsv, stats, trials
from aces_ci.schemas import load_schema


def _enum(schema: str, path: str) -> set[Any]:
    """The enum at ``path`` (slash-separated keys) of ``schemas/<schema>.schema.json``."""
    node: Any = load_schema(schema)
    for key in path.split("/"):
        node = node[int(key)] if key.isdigit() else node[key]
    return set(node["enum"])


LITERALS: list[tuple[str, str, Any]] = [
    ("rollout-store", "$defs/result/properties/status", agents.RolloutStatus),
    ("rollout-store", "$defs/result/properties/end_reason", agents.EndReason),
    ("rollout-store", "$defs/result/properties/skill_events/items/properties/via", agents.SkillEventVia),
    ("rollout-store", "$defs/artifact/properties/omitted", agents.Omission),
    ("grader-input", "properties/status", agents.RolloutStatus),
    ("grader-input", "properties/end_reason", agents.EndReason),
    ("grader-input", "properties/skill_events/items/properties/via", agents.SkillEventVia),
    ("atif", "properties/extra/properties/skill_events/items/properties/via", agents.SkillEventVia),
    ("grade", "$defs/grade/properties/status", grading.GradeStatus),
    ("grade", "$defs/check/properties/method", grading.Method),
    ("grade", "$defs/check/properties/severity", grading.Severity),
    ("trial-result", "properties/protocol/properties/coupling", stats.Coupling),
    ("trial-result", "properties/protocol/properties/mode", trials.Mode),
    ("trial-result", "$defs/contrast/properties/kind", trials.ContrastKind),
    ("trial-result", "$defs/skill/properties/verdict", stats.VerdictLabel),
    ("trial-result", "$defs/skill/properties/triage/items/properties/triage", trials.TriageClass),
    ("trial-plan", "$defs/skill/properties/source", trials.NoiseSource),
    ("trigger-result", "$defs/change/properties/label", stats.ChangeLabel),
    ("trigger-result", "$defs/skill/properties/verdict", trials.RecallVerdict),
    ("skillsv-value", "properties/method", skillsv.Method),
    ("skillsv-value", "properties/order_distribution", skillsv.OrderDistribution),
    ("skillsv-value", "properties/settings/properties/operators/items", skillsv.Operator),
    ("skillsv-value", "properties/settings/properties/pooling", skillsv.Pooling),
    ("skillsv-value", "properties/settings/properties/windows", skillsv.WindowDesign),
    ("skillsv-value", "properties/held_out/properties/curves/items/properties/method", skillsv.CurveMethod),
    ("skillsv-value", "$defs/unit/properties/kind", skillsv.UnitKind),
    ("skillsv-value", "$defs/unit/properties/decision", skillsv.Decision),
    ("skillsv-value-part", "properties/records/items/properties/operator", skillsv.Operator),
    ("skillsv-value-part", "properties/stopped_by/oneOf/1", skillsv.ValuationStop),
    ("skillsv-value-part", "$defs/estimator/properties/distribution", skillsv.OrderDistribution),
    ("skillsv-value-part", "$defs/estimator/properties/pooling", skillsv.Pooling),
    ("skillsv-value-part", "$defs/estimator/properties/windows", skillsv.WindowDesign),
    ("skillsv-value-part", "properties/identity/properties/settings/properties/values_from", skillsv.ValueEstimator),
    ("skillsv-compile", "$defs/unit/properties/kind", skillsv.UnitKind),
    ("skillsv-compile", "$defs/edge/properties/rule", skillsv.RuleId),
    ("scan-result", "properties/profile", scan.Profile),
    ("scan-result", "$defs/verdict", scan.Verdict),
    ("scan-result", "$defs/finding/properties/suppressed/oneOf/1/properties/kind", scan.SuppressionKind),
]


@pytest.mark.parametrize(("schema", "path", "literal"), LITERALS, ids=[f"{s}:{p}" for s, p, _ in LITERALS])
def test_each_literal_is_its_schema_enum(schema: str, path: str, literal: Any) -> None:
    assert set(get_args(literal)) == _enum(schema, path) - {None}


def test_the_scan_severity_enum_is_the_schema_enum() -> None:
    assert {severity.value for severity in scan.Severity} == _enum("scan-result", "$defs/finding/properties/severity")


def test_one_stop_reason_for_the_engine_the_trial_and_skillsv() -> None:
    """The dollar cap is ``budget_usd`` everywhere; trial files of earlier versions said ``max_usd``."""
    assert set(get_args(engine.StopReason)) == _enum("trial-result", "properties/stopped_by") - {None, "max_usd"}
    assert set(get_args(skillsv.ValuationStop)) == _enum("skillsv-value", "properties/stopped_by") - {None}
    caps = set(get_args(engine.BudgetCap))
    assert caps <= set(get_args(engine.StopReason)) and caps <= set(get_args(skillsv.ValuationStop))
    assert "budget_usd" in caps and "max_usd" not in caps
