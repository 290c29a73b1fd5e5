"""Accuracy by the case's match mode, and goal accuracy from the files the agent left."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from aces_ci.evals import Tolerance
from aces_ci.grading import grade_accuracy, grade_goal_accuracy
from tests.grading.helpers import Rollout, negative, positive


async def accuracy(answer: str | None, **case_fields: object):
    return await grade_accuracy(Rollout(positive(**case_fields), answer=answer).build())


@pytest.mark.parametrize(
    ("match", "expected", "answer", "value"),
    [
        ("contains", "Paris", "The capital of France is paris.", 1.0),
        ("contains", "12", "The free tier allows 120 projects.", 0.0),
        ("exact", "ORCA-7", "orca-7.", 1.0),
        ("exact", "ORCA-7", "The code is ORCA-7", 0.0),
        ("numeric", "12 rows, 5 blanks", "There are 12.0 rows and 5 blank cells.", 1.0),
        ("numeric", "1234", "It holds 1,234 orders.", 1.0),
        ("numeric", "12 rows, 5 blanks", "There are 12 rows.", 0.0),
        ("regex", r"\b45 days?\b", "Refunds within 45 days.", 1.0),
        ("regex", r"^\d+$", "about 45", 0.0),
    ],
)
async def test_each_deterministic_mode(match, expected, answer, value):
    grade = await accuracy(answer, expected_output=expected, match=match)
    assert (grade.status, grade.value) == ("graded", value)
    assert grade.grader == "aces-ci" and grade.checks[0].name == f"match: {match}"


async def test_numeric_tolerance_absolute_and_relative():
    assert (await accuracy("about 12.4", expected_output="12", match="numeric", tolerance=Tolerance(0.5))).value == 1.0
    assert (await accuracy("about 12.6", expected_output="12", match="numeric", tolerance=Tolerance(0.5))).value == 0.0
    relative = Tolerance(relative=0.02)
    assert (await accuracy("203", expected_output="200", match="numeric", tolerance=relative)).value == 1.0


async def test_no_reference_is_not_applicable_and_no_answer_is_zero():
    assert (await accuracy("anything")).status == "not_applicable"
    grade = await accuracy(None, expected_output="12")
    assert (grade.status, grade.value) == ("graded", 0.0)
    assert "no final answer" in grade.reason


async def test_a_judge_case_without_a_judge_is_could_not_grade():
    grade = await accuracy("Paris", expected_output="Paris", match="judge")
    assert (grade.status, grade.value) == ("could_not_grade", None)


ARTIFACTS = {
    "out/summary.json": json.dumps({"rows": 12, "columns": [{"name": "id"}], "clean": False}).encode(),
    "report.md": b"# Orders\n\n## Fixes\nDiscount column has blanks.\n",
    "logo.png": b"\x89PNG\x00\x00",
}


async def goal(assertions: tuple[str, ...], answer: str = "12 orders", artifacts=ARTIFACTS, **fields: object):
    case = positive(assertions=assertions, **fields)
    return await grade_goal_accuracy(Rollout(case, answer=answer, artifacts=artifacts).build())


async def test_outcome_assertions_over_files_and_the_answer():
    checks = (
        "file out/summary.json exists",
        "summary.json field /rows equals 12",
        'json out/summary.json field columns.0.name is "id"',
        "json out/summary.json field clean equals false",
        'file report.md contains "## fixes"',
        "file report.md does not contain 'chore'",
        "file report.md matches /Discount column has \\w+/",
        "file missing.txt does not exist",
        'answer contains "12 orders"',
    )
    grade = await goal(checks)
    assert [c.passed for c in grade.checks] == [True] * len(checks)
    assert (grade.status, grade.value, grade.reason) == ("graded", 1.0, "9 of 9 outcome assertions hold")


async def test_failed_outcome_assertions_say_what_was_found():
    grade = await goal(("file out/summary.json exists", "json out/summary.json field /rows equals 13", "creates a.txt"))
    assert grade.value == pytest.approx(1 / 3, abs=1e-6)
    assert grade.checks[1].detail == "out/summary.json has /rows = 12"
    assert grade.checks[2].detail == "the agent left no file a.txt"


async def test_json_true_is_not_one():
    grade = await goal(("json out/summary.json field clean equals 0",))
    assert grade.value == 0.0


async def test_an_undecidable_assertion_means_could_not_grade():
    grade = await goal(("file report.md matches /([a-z/",))
    assert grade.status == "could_not_grade" and "regex does not compile" in grade.reason


async def test_without_outcome_assertions_the_end_state_needs_a_judge():
    only_free_text = await goal(("Reports 12 rows",), expected_output="12 orders")
    assert only_free_text.status == "could_not_grade"
    nothing = await grade_goal_accuracy(Rollout(negative()).build())
    assert nothing.status == "not_applicable"


async def test_a_file_whose_content_was_not_kept_exists_but_cannot_be_read():
    artifacts = {"big.log": None, "out.txt": b"done"}
    exists = await goal(("file big.log exists", "file out.txt exists"), artifacts=artifacts)
    assert exists.value == 1.0
    read = await goal(('file big.log contains "ERROR"',), artifacts=artifacts)
    assert read.status == "could_not_grade" and "content was not kept" in read.reason


async def test_a_cut_capture_cannot_prove_a_file_absent():
    case = positive(assertions=("file notes.md does not exist", "file report.md exists"))
    grading = replace(Rollout(case, artifacts={"a.txt": b"x"}).build(), artifacts_complete=False)
    grade = await grade_goal_accuracy(grading)
    assert grade.status == "could_not_grade" and "cut at its file limit" in grade.reason
