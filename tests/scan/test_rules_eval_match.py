"""EVAL003 also reports a reference that the case's match mode cannot use, at its line."""

from __future__ import annotations

import json

from aces_ci.scan.rules.evalset import RULES
from tests.scan.helpers import front, make_skill, run_rule

SKILL_MD = front(name="demo", description="Profile CSV files. Use when the user shares a CSV file.") + "# Demo\n"


def eval003(tmp_path, cases):
    dataset = json.dumps({"skill_name": "demo", "evals": cases}, indent=2)
    return run_rule(RULES, "EVAL003", make_skill(tmp_path, SKILL_MD, files={"evals/evals.json": dataset}), None)


def test_unusable_references_are_schema_findings_with_lines(tmp_path):
    found = eval003(
        tmp_path,
        [
            {"id": 1, "prompt": "a", "expected_output": "([a-z", "match": "regex"},
            {"id": 2, "prompt": "b", "expected_output": "many", "match": "numeric"},
            {"id": 3, "prompt": "c", "expected_output": "x", "tolerance": 1},
            {"id": 4, "prompt": "d", "expected_output": "x", "match": "fuzzy"},
        ],
    )
    by_line = sorted((hit.location.line, hit.message) for hit in found)
    assert [line for line, _ in by_line] == [7, 13, 20, 26]
    assert by_line[0][1].startswith("case '1': expected_output is not a valid regular expression for match: regex")
    assert by_line[1][1] == "case '2': match: numeric needs a number in expected_output"
    assert by_line[2][1] == "case '3': tolerance applies only to match: numeric, and this case uses contains"
    assert by_line[3][1] == "$.evals[3].match: must be one of contains, exact, numeric, regex, judge"


def test_usable_match_fields_raise_nothing(tmp_path):
    cases = [
        {"id": 1, "prompt": "a", "expected_output": "12.5", "match": "numeric", "tolerance": "2%"},
        {"id": 2, "prompt": "b", "expected_output": r"^\d+ rows$", "match": "regex"},
        {"id": 3, "prompt": "c", "expected_output": "Paris", "match": "judge"},
    ]
    assert eval003(tmp_path, cases) == []
