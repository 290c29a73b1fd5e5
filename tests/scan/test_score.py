"""The structural score: deductions per rule, the per-rule cap, the floor, and their explanations."""

from __future__ import annotations

from aces_ci.scan import Finding, Location, Rule, RuleRegistry, Severity, define
from aces_ci.scan._score import structural_score

RULES: list[Rule] = []


def _rule(rule_id: str, severity: Severity, weight: int | None = None) -> None:
    def check(ctx):
        """Never run: these tests score findings built by hand."""
        return ()

    define(RULES, id=rule_id, name=f"rule-{rule_id.lower()}", severity=severity, summary="s", fix="f", weight=weight)(
        check
    )


_rule("ERR001", Severity.ERROR)
_rule("WARN001", Severity.WARNING)
_rule("WARN002", Severity.WARNING)
_rule("HEAVY001", Severity.ERROR, weight=40)
_rule("FREE001", Severity.WARNING, weight=0)
REGISTRY = RuleRegistry(RULES)


def finding(rule_id: str, line: int = 1, severity: Severity | None = None) -> Finding:
    level = severity or REGISTRY.get(rule_id).severity
    return Finding(rule_id, level, f"problem on line {line}", Location("s/SKILL.md", line), "s")


def test_no_findings_scores_100_with_nothing_to_explain() -> None:
    score = structural_score([], REGISTRY)
    assert (score.value, score.deductions) == (100, ())


def test_each_finding_costs_its_rule_weight() -> None:
    score = structural_score([finding("ERR001"), finding("WARN001"), finding("WARN001", 2)], REGISTRY)
    assert score.value == 100 - 15 - 10
    assert [(d.rule_id, d.rule_name, d.count, d.points) for d in score.deductions] == [
        ("ERR001", "rule-err001", 1, 15),
        ("WARN001", "rule-warn001", 2, 10),
    ]
    assert score.deductions[1].explanation == "2 findings: 2 × 5 = 10 points"


def test_only_three_findings_of_a_rule_count() -> None:
    score = structural_score([finding("WARN001", line) for line in range(1, 11)], REGISTRY)
    (deduction,) = score.deductions
    assert (deduction.count, deduction.points, score.value) == (10, 15, 85)
    assert deduction.explanation == "10 findings: 3 × 5 = 15 points (only the 3 costliest count)"


def test_one_rule_never_takes_more_than_50_points() -> None:
    score = structural_score([finding("HEAVY001", line) for line in range(1, 4)], REGISTRY)
    assert score.value == 50
    assert score.deductions[0].explanation == "3 findings: 3 × 40 = 120 points, capped at 50 per rule"


def test_the_score_floors_at_zero() -> None:
    findings = [finding(rule, line) for rule in ("HEAVY001", "ERR001") for line in range(1, 4)]
    score = structural_score(findings, REGISTRY)
    assert score.value == 5
    score = structural_score([*findings, *(finding("WARN001", n) for n in range(3))], REGISTRY)
    assert score.value == 0
    assert sum(d.points for d in score.deductions) == 110, "deductions stay explained even past the floor"


def test_a_changed_severity_costs_what_that_severity_costs() -> None:
    score = structural_score([finding("ERR001", 1, Severity.NOTE), finding("ERR001", 2)], REGISTRY)
    assert score.value == 100 - 15 - 1
    assert score.deductions[0].explanation == "2 findings: 15 + 1 = 16 points"


def test_suppressed_and_weightless_findings_cost_nothing() -> None:
    quiet = finding("ERR001").suppress("inline", "reason")
    score = structural_score([quiet, finding("FREE001")], REGISTRY)
    assert (score.value, score.deductions) == (100, ())


def test_deductions_are_ordered_by_points_then_rule() -> None:
    score = structural_score([finding("WARN002"), finding("WARN001"), finding("ERR001")], REGISTRY)
    assert [d.rule_id for d in score.deductions] == ["ERR001", "WARN001", "WARN002"]
    assert score.deductions[0].explanation == "1 finding: 1 × 15 = 15 points"
