"""Findings kept as cache rows: checked in bulk exactly as one by one, and read as the same findings."""

from __future__ import annotations

import pickle
from collections import Counter

import pytest

from aces_ci.scan import Finding, Location, Severity, Suppression, skill_checks
from aces_ci.scan._finding import finding_from_row, finding_to_row
from aces_ci.scan._finding_rows import (
    FindingRows,
    ReportFindings,
    active_counts,
    active_errors,
    finding_of,
    report_order,
    valid_rows,
)
from aces_ci.scan._score import ScoreMemo, structural_score
from aces_ci.scan.rules import default_registry

EVERY_KIND: frozenset[str | None] = frozenset({None, "inline", "config", "baseline", "policy"})
GOOD = [
    "SPEC002",
    "error",
    "name 'X' has uppercase",
    "skills/a/SKILL.md",
    2,
    7,
    "name: X",
    "spec: name",
    None,
    None,
    "",
]
ODD_VALUES: list[object] = [None, True, False, 0, -1, 1, 3.0, "", "x", "error", "note", "policy", "inline", [], {}]


def mutations() -> list[list[object]]:
    """GOOD with each field replaced by each odd value, and rows of the wrong length."""
    rows = [[*GOOD[:i], value, *GOOD[i + 1 :]] for i in range(len(GOOD)) for value in ODD_VALUES]
    return [*rows, GOOD[:-1], [*GOOD, ""], []]


@pytest.mark.parametrize("row", mutations(), ids=repr)
def test_a_row_is_valid_in_bulk_exactly_when_it_decodes_one_by_one(row: list[object]) -> None:
    decoded = finding_from_row(row, "skills/a")
    assert valid_rows([row], EVERY_KIND) == (decoded is not None)
    if decoded is not None:
        assert finding_of(row, "skills/a", {}) == decoded


def test_one_bad_row_or_a_forbidden_kind_rejects_the_whole_list() -> None:
    waived = [*GOOD[:9], "policy", "a placeholder"]
    assert valid_rows([GOOD, waived], frozenset({None, "policy"}))
    assert not valid_rows([GOOD, waived], frozenset({None})), "a stored repository finding is never suppressed"
    assert not valid_rows([GOOD, (*GOOD,)], EVERY_KIND), "rows are JSON arrays"
    assert not valid_rows([GOOD, [*GOOD[:4], 0, *GOOD[5:]]], EVERY_KIND), "lines start at 1"
    assert not valid_rows({"rows": [GOOD]}, EVERY_KIND)
    assert valid_rows([], EVERY_KIND)


def test_a_left_out_fix_is_the_rules_and_a_kept_one_is_kept() -> None:
    fixes = {"SPEC002": "Rename the skill."}
    assert finding_of(GOOD, "skills/a", fixes).fix == "Rename the skill."
    assert finding_of([*GOOD[:8], "Its own fix.", *GOOD[9:]], "skills/a", fixes).fix == "Its own fix."


def finding(rule: str, severity: Severity, path: str, line: int | None, waived: bool = False) -> Finding:
    why = Suppression("inline", "reviewed") if waived else None
    return Finding(rule, severity, f"{rule} here", Location(path, line), "skills/a", suppressed=why)


FIXES = {rule.id: rule.fix for rule in default_registry()}


def rows_of(*findings: Finding) -> FindingRows:
    rows = [list(finding_to_row(f)) for f in findings]
    assert valid_rows(rows, EVERY_KIND)
    return FindingRows(rows, "skills/a", FIXES)


def mixed() -> tuple[ReportFindings, tuple[Finding, ...]]:
    """A replayed skill's rows and its repository findings as objects, and the same findings sorted."""
    stored = rows_of(
        finding("STRUCT003", Severity.WARNING, "skills/a/SKILL.md", 9),
        finding("SPEC002", Severity.ERROR, "skills/a/SKILL.md", 2),
        finding("REF001", Severity.WARNING, "skills/a/SKILL.md", 4, waived=True),
        finding("SPEC002", Severity.ERROR, "skills/a/SKILL.md", None),
        finding("SPEC009", Severity.NOTE, "skills/a/scripts/x.sh", 1),
    )
    across = [finding("DISC003", Severity.ERROR, "skills/a/SKILL.md", 3)]
    expected = tuple(sorted([*stored, *across], key=report_order))
    return ReportFindings((stored, across)), expected


def test_report_findings_equal_the_sorted_findings_as_a_tuple_would() -> None:
    lazy, expected = mixed()
    assert len(lazy) == len(expected) == 6
    assert lazy == expected and expected == lazy and hash(lazy) == hash(expected)
    assert list(lazy) == list(expected) and lazy[1:3] == expected[1:3] and lazy[-1] == expected[-1]
    assert pickle.loads(pickle.dumps(lazy)) == expected and type(pickle.loads(pickle.dumps(lazy))) is tuple
    assert lazy != expected[:-1] and lazy != list(expected)


def test_score_and_verdict_read_off_the_rows_are_those_of_the_findings() -> None:
    lazy, expected = mixed()
    registry = default_registry()
    assert active_counts(lazy) == Counter((f.rule_id, f.severity.value) for f in expected if f.active)
    assert active_errors(lazy) == [f for f in expected if f.active and f.severity == Severity.ERROR]
    assert active_errors(lazy)[0].location == Location("skills/a/SKILL.md", None), "in report order"
    score = structural_score(lazy, registry)
    assert score == structural_score(list(expected), registry) and ScoreMemo(registry).score(lazy) == score
    assert skill_checks(lazy, score, 70) == skill_checks(expected, score, 70)
