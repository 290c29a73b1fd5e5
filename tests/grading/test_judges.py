"""Judges over real HTTP to the scripted servers: verdicts, cost, cache, garbage and a dead API."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from aces_ci.grading import Judge, grade_accuracy, grade_behavior_check, grade_goal_accuracy
from aces_ci.models import ModelSpec, Price, PriceTable
from tests.engine.helpers import FAST_RETRY
from tests.grading.helpers import ANTHROPIC_KEY, Rollout, load, positive
from tests.servers import Fault, ScriptedServer, Text, Tokens

PRICES = PriceTable({"judge-model": Price(input=1.0, output=2.0)})
"""$1 per million input tokens, $2 per million output tokens."""


@pytest.fixture
async def judges() -> AsyncIterator[Callable[..., Judge]]:
    """``judges(server, cache_dir, provider=...)``: a judge over real HTTP; every one is closed at the end."""
    made: list[Judge] = []

    def judge_for(server: ScriptedServer, cache_dir: Path | None, *, provider: str = "openai") -> Judge:
        base_url = server.openai_url if provider == "openai" else server.url
        spec = ModelSpec(provider, "judge-model", base_url=base_url)  # type: ignore[arg-type]
        made.append(Judge.open(spec, cache_dir=cache_dir, retry=FAST_RETRY, prices=PRICES, api_key="test-key"))
        return made[-1]

    yield judge_for
    for judge in made:
        await judge.aclose()


def verdict(word: str, reason: str = "matches the reference") -> Text:
    return Text(json.dumps({"verdict": word, "reason": reason}), usage=Tokens(input=1000, output=50))


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_a_judge_verdict_is_scored_by_us_and_its_cost_recorded(scripted_server, judges, tmp_path, provider):
    server = scripted_server([verdict("partially_correct")])
    judge = judges(server, tmp_path, provider=provider)
    case = positive(expected_output="12 orders; discount has 5 blanks", match="judge")
    grade = await grade_accuracy(Rollout(case, answer="There are 12 orders.").build(), judge)
    assert (grade.status, grade.value, grade.grader) == ("graded", 0.5, "judge:judge-model")
    assert grade.checks[0].method == "judge" and grade.checks[0].detail == "matches the reference"
    assert grade.cost.calls == 1 and grade.cost.usd == pytest.approx(1000 / 1e6 + 50 * 2 / 1e6)
    # The case and the answer reached the judge as tagged data.
    sent = server.requests[0].json
    assert "There are 12 orders." in json.dumps(sent) and "<reference_answer>" in json.dumps(sent)


async def test_the_same_question_is_paid_for_once(scripted_server, judges, tmp_path):
    server = scripted_server([verdict("correct")])
    case = positive(expected_output="Paris", match="judge")
    grading = Rollout(case, answer="Paris.").build()
    first = await grade_accuracy(grading, judges(server, tmp_path))
    again = await grade_accuracy(grading, judges(server, tmp_path))
    assert server.calls == 1
    assert (first.value, again.value) == (1.0, 1.0)
    assert (again.cost.calls, again.cost.cached_calls, again.cost.usd) == (0, 1, 0.0)
    entries = list((tmp_path / "judge").glob("*/*.json"))
    assert len(entries) == 1 and json.loads(entries[0].read_text())["format"] == "aces-ci-judge"
    # A different answer is a different question.
    other = await grade_accuracy(Rollout(case, answer="Lyon").build(), judges(server, tmp_path))
    assert other.status == "grader_error"  # the script is exhausted: the server answers 400, a real API error


async def test_garbage_twice_is_could_not_grade_with_the_reason_never_zero(scripted_server, judges, tmp_path):
    server = scripted_server([Text("I think it is fine!"), Text('{"verdict": "maybe", "reason": "?"}')])
    case = positive(expected_output="Paris", match="judge")
    grade = await grade_accuracy(Rollout(case, answer="Paris").build(), judges(server, tmp_path))
    assert (grade.status, grade.value) == ("could_not_grade", None)
    assert "unusable twice" in grade.reason and "'verdict' must be one of" in grade.reason
    assert grade.cost.calls == 2
    # The follow-up turn named the problem to the judge.
    assert "could not be used: it was not a JSON object" in json.dumps(server.requests[1].json)


async def test_one_bad_reply_then_a_good_one_is_graded(scripted_server, judges, tmp_path):
    server = scripted_server(
        [Text('```json\n{"goal": "sure"}\n```'), Text('Here: {"goal": "achieved", "reason": "ok"}')]
    )
    case = positive(expected_output="a report in report.md")
    grading = Rollout(case, artifacts={"report.md": b"# Report"}).build()
    grade = await grade_goal_accuracy(grading, judges(server, tmp_path))
    assert (grade.status, grade.value) == ("graded", 1.0)
    assert "--- report.md" in json.dumps(server.requests[0].json)


async def test_a_judge_whose_api_dies_is_a_grader_error_not_a_crash(scripted_server, judges, tmp_path):
    server = scripted_server([Fault(500)] * 3)
    case = positive(expected_output="Paris", match="judge")
    grade = await grade_accuracy(Rollout(case, answer="Paris").build(), judges(server, tmp_path))
    assert (grade.status, grade.value) == ("grader_error", None)
    assert "the judge model (judge-model) failed" in grade.reason
    assert server.calls == FAST_RETRY.max_attempts
    assert not list((tmp_path / "judge").glob("*/*.json"))  # failures are not cached: a rerun retries


async def test_behaviour_sentences_are_judged_together_with_the_rule_checks(scripted_server, judges, tmp_path):
    reply = {"results": [{"id": 1, "passed": True, "reason": "says 12"}, {"id": 2, "passed": False, "reason": "no"}]}
    server = scripted_server([Text(json.dumps(reply))])
    case = positive(assertions=("loads the skill", "Reports 12 rows", "Names discount as the only gap"))
    grade = await grade_behavior_check(Rollout(case, [load("builtin")]).build(), judges(server, tmp_path))
    assert (grade.status, grade.value, grade.grader) == ("graded", pytest.approx(2 / 3, abs=1e-6), "judge:judge-model")
    assert [(c.name, c.passed, c.method) for c in grade.checks] == [
        ("loads the skill", True, "deterministic"),
        ("Reports 12 rows", True, "judge"),
        ("Names discount as the only gap", False, "judge"),
    ]
    body = json.dumps(server.requests[0].json)
    assert "1. Reports 12 rows" in body and "read_file" in body


async def test_a_behaviour_reply_with_the_wrong_count_is_retried_then_given_up(scripted_server, judges, tmp_path):
    short = Text(json.dumps({"results": [{"id": 1, "passed": True}]}))
    server = scripted_server([short, short])
    case = positive(assertions=("Reports 12 rows", "Mentions blanks"))
    grade = await grade_behavior_check(Rollout(case, []).build(), judges(server, tmp_path))
    assert grade.status == "could_not_grade" and "exactly 2 entries" in grade.reason


async def test_a_judge_sees_no_secret_the_agent_wrote(scripted_server, judges, tmp_path):
    key = ANTHROPIC_KEY
    server = scripted_server([Text(json.dumps({"goal": "achieved", "reason": "ok"}))])
    case = positive(expected_output="a config file")
    grading = Rollout(case, artifacts={"config.env": f"KEY={key}\n".encode()}).build()
    await grade_goal_accuracy(grading, judges(server, tmp_path))
    body = json.dumps(server.requests[0].json)
    assert key not in body and "[REDACTED" in body


async def test_a_damaged_cache_entry_is_a_miss_and_is_replaced(scripted_server, judges, tmp_path, caplog):
    server = scripted_server([verdict("correct"), verdict("incorrect")])
    case = positive(expected_output="Paris", match="judge")
    grading = Rollout(case, answer="Paris").build()
    await grade_accuracy(grading, judges(server, tmp_path))
    (entry,) = (tmp_path / "judge").glob("*/*.json")
    entry.write_text("{not json")
    again = await grade_accuracy(grading, judges(server, tmp_path))
    assert server.calls == 2 and again.value == 0.0
    assert "ignoring unreadable entry" in caplog.text
    assert json.loads(entry.read_text())["format"] == "aces-ci-judge"
