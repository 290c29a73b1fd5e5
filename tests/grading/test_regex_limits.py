"""A dataset's regex cannot stall grading: RE2 decides in linear time, else a worker stops it at its limit.

The attack: ``match: regex`` with ``^(a+)+$`` against thirty ``a`` and a ``!`` ran Python's
backtracking engine for ages on the event loop, so another rollout's model call waiting on that
loop was logged as timed out. The timings here never decide a verdict: the hostile searches take
minutes in Python's engine, the limit is two seconds, and the concurrency test counts event-loop
ticks, not seconds.
"""

from __future__ import annotations

import asyncio

import pytest

from aces_ci.grading import grade_accuracy, grade_goal_accuracy
from aces_ci.grading._regex import REGEX_TIME_LIMIT_S, re2_agrees, search
from tests.grading.helpers import Rollout, positive

EVIL = r"^(a+)+$"
EVIL_TEXT = "a" * 35 + "!"
"""2^35 backtracking steps in Python's engine: minutes on any machine, against a 2-second limit."""
EVIL_NEEDS_PYTHON = r"^(?=a)(a+)+$"
"""The same blow-up behind a lookahead, which RE2 does not support: only the worker can evaluate it."""


async def test_the_issues_pattern_is_decided_in_linear_time_and_graded() -> None:
    case = positive(expected_output=EVIL, match="regex")
    grade = await grade_accuracy(Rollout(case, answer="a" * 30 + "!").build())
    assert (grade.status, grade.value) == ("graded", 0.0)
    assert grade.checks[0].detail == "the answer does not match the pattern"


async def test_a_pattern_only_python_can_run_is_stopped_at_the_limit_and_could_not_grade() -> None:
    case = positive(expected_output=EVIL_NEEDS_PYTHON, match="regex")
    grade = await grade_accuracy(Rollout(case, answer=EVIL_TEXT).build())
    assert (grade.status, grade.value) == ("could_not_grade", None)
    assert f"did not finish within {REGEX_TIME_LIMIT_S:g} s" in grade.reason


async def test_an_outcome_assertion_regex_that_runs_away_is_could_not_grade() -> None:
    # A file ending in a newline: `$` reads differently in RE2, so Python's engine (in the worker) decides.
    case = positive(assertions=(f"file out.txt matches /{EVIL}/",))
    rollout = Rollout(case, answer="done", artifacts={"out.txt": (EVIL_TEXT + "\n").encode()})
    grade = await grade_goal_accuracy(rollout.build())
    assert grade.status == "could_not_grade"
    assert "did not finish within" in grade.reason


async def test_a_runaway_regex_never_starves_a_concurrent_grading() -> None:
    """While one rollout's regex runs to its limit, another grades normally and the event loop keeps turning."""
    ticks = 0
    hostile_done = asyncio.Event()

    async def heartbeat() -> None:
        nonlocal ticks
        while not hostile_done.is_set():
            await asyncio.sleep(0.01)
            ticks += 1

    async def hostile() -> tuple[str, int]:
        case = positive(expected_output=EVIL_NEEDS_PYTHON, match="regex")
        ticks_before = ticks
        try:
            status = (await grade_accuracy(Rollout(case, answer=EVIL_TEXT).build())).status
        finally:
            hostile_done.set()
        return status, ticks - ticks_before

    async def honest() -> tuple[str, float | None]:
        # A backreference: RE2 cannot take it, so this one needs a worker too, at the same time.
        case = positive(id="c2", expected_output=r"(\w)\1", match="regex")
        grade = await grade_accuracy(Rollout(case, answer="committee").build())
        return grade.status, grade.value

    beat = asyncio.create_task(heartbeat())
    (hostile_status, ticks_during), honest_grade = await asyncio.gather(hostile(), honest())
    await beat
    assert hostile_status == "could_not_grade"
    assert honest_grade == ("graded", 1.0), "the other grading is neither timed out nor blocked"
    assert ticks_during >= 2, "the event loop kept turning while the hostile regex ran"


@pytest.mark.parametrize(
    ("pattern", "text", "found"),
    [
        (r"\d+", "١٢٣", True),  # re: Unicode digits; RE2: ASCII only
        (r"\w+", "été", True),
        (r"x$", "x\n", True),  # re: `$` also before a final newline
        (r"(?i)straße", "STRASSE", False),  # no full case folding in either
        (r"[[:alpha:]]", "a", False),  # re: a set of '[', ':', 'a', … then ']'; RE2: a POSIX class
        (r"a{,2}b", "aab", True),  # re: a repeat; RE2: literal text
        (r"(a)\1", "aa", True),  # a backreference: RE2 refuses, re decides
        (r"\bcat\b", "a cat.", True),
    ],
)
async def test_results_are_pythons_re_whichever_engine_decides(pattern: str, text: str, found: bool) -> None:
    import re

    assert (await search(pattern, text)).found is found
    assert (re.search(pattern, text) is not None) is found


def test_re2_decides_only_where_it_reads_the_pattern_as_re_does() -> None:
    assert re2_agrees(r"^(a+)+$", "aaa!")
    assert re2_agrees(r"\d+ days", "45 days")
    assert not re2_agrees(r"\d+", "١٢")
    assert not re2_agrees(r"x$", "x\n")
    assert not re2_agrees(r"(?=a)a", "a")
    assert not re2_agrees(r"\s", "\x1c")


async def test_a_pattern_that_does_not_compile_says_so() -> None:
    searched = await search("([a-z", "abc")
    assert searched.found is None and searched.why.startswith("the regex does not compile")
