"""Behaviour checks: process assertions decided by rule over the trajectory, free text by a judge."""

from __future__ import annotations

import pytest

from aces_ci.grading import classify, grade_behavior_check
from aces_ci.grading._behavior import check_process
from aces_ci.grading._trace import Trace
from tests.grading.helpers import HARNESSES, Rollout, load, positive, read, run, run_script, skill_dir, write


def verdicts(grading):
    trace = Trace(grading)
    return {text: check_process(classify(text), trace).passed for text in grading.case.assertions}


@pytest.mark.parametrize("harness", HARNESSES)
def test_reading_the_skill_before_running_its_script_is_seen_in_every_harness(harness):
    checks = (
        "reads SKILL.md before running the script",
        "Runs scripts/summarize_csv.py on evals/files/orders.csv",
        "loads the skill first",
        "does not run scripts/cleanup.sh",
    )
    case = positive(assertions=checks, expected_script="summarize_csv.py")
    good = Rollout(case, [load(harness), run_script(harness)], harness=harness).build()
    assert verdicts(good) == dict.fromkeys(checks, True)
    swapped = Rollout(case, [run_script(harness), load(harness)], harness=harness).build()
    assert verdicts(swapped) == {
        checks[0]: False,
        checks[1]: True,
        checks[2]: False,
        checks[3]: True,
    }


def test_listing_the_workspace_first_does_not_break_first():
    case = positive(assertions=("reads SKILL.md first",))
    listing = run("claude-code", "ls -la", "orders.csv")
    grading = Rollout(case, [listing, load("claude-code")], harness="claude-code").build()
    assert verdicts(grading) == {"reads SKILL.md first": True}


def test_pipes_and_negations_and_a_script_that_never_ran():
    case = positive(
        assertions=(
            "Pipes evals/files/commits.txt into scripts/changelog.sh",
            "never runs scripts/summarize_csv.py",
            "reads SKILL.md before running scripts/changelog.sh",
        )
    )
    pipe = run("codex", f"cat evals/files/commits.txt | bash {skill_dir('codex')}/scripts/changelog.sh")
    assert verdicts(Rollout(case, [load("codex"), pipe], harness="codex").build()) == dict.fromkeys(
        case.assertions, True
    )
    # The order holds vacuously when the later step never happened, as long as the skill was read.
    only_read = verdicts(Rollout(case, [load("codex")], harness="codex").build())
    assert only_read == {case.assertions[0]: False, case.assertions[1]: True, case.assertions[2]: True}


def test_reads_and_writes_of_workspace_files():
    case = positive(
        assertions=(
            "reads evals/files/orders.csv before writing report.md",
            "does not read secrets.txt",
            "does not write notes.md",
        )
    )
    steps = [read("opencode", "/work/rollout/work/evals/files/orders.csv"), write("opencode", "report.md", "# R")]
    assert verdicts(Rollout(case, steps, harness="opencode").build()) == dict.fromkeys(case.assertions, True)
    redirect = [run("builtin", "python3 make.py > notes.md"), read("builtin", "evals/files/orders.csv")]
    assert verdicts(Rollout(case, redirect).build()) == {
        case.assertions[0]: True,
        case.assertions[1]: True,
        case.assertions[2]: False,
    }


async def test_all_rule_checks_grade_without_a_judge():
    case = positive(assertions=("loads the skill", "runs scripts/summarize_csv.py", "file out.json exists"))
    grade = await grade_behavior_check(Rollout(case, [load("builtin")]).build())
    # The file assertion is goal accuracy's; the two process checks are decided here.
    assert (grade.status, grade.value) == ("graded", 0.5)
    assert [c.name for c in grade.checks] == ["loads the skill", "runs scripts/summarize_csv.py"]
    assert grade.checks[0].steps == (2,)


async def test_free_text_without_a_judge_cannot_be_graded_and_is_never_zero():
    case = positive(assertions=("loads the skill", "Mentions the double-charge fix"))
    grade = await grade_behavior_check(Rollout(case, [load("builtin")]).build())
    assert (grade.status, grade.value) == ("could_not_grade", None)
    assert grade.reason == "1 of 2 checks need a judge and none is configured"
    assert grade.checks[0].passed is True


async def test_checks_about_the_skill_are_left_out_of_the_baseline_not_failed():
    case = positive(assertions=("reads SKILL.md before running the script", "does not run scripts/cleanup.sh"))
    grade = await grade_behavior_check(Rollout(case, [run("builtin", "ls")], staged=False).build())
    assert (grade.status, grade.value) == ("graded", 1.0)
    assert "1 check(s) about csv-insights left out" in grade.reason
    only_skill = positive(assertions=("loads the skill", "runs scripts/summarize_csv.py"))
    grade = await grade_behavior_check(Rollout(only_skill, [], staged=False).build())
    assert grade.status == "not_applicable"


async def test_a_case_without_behaviours_is_not_applicable():
    grade = await grade_behavior_check(Rollout(positive(), []).build())
    assert grade.status == "not_applicable" and grade.reason == "the case states no behaviour to check"
