"""OpenCode's ``run --format json`` events, recorded from the real CLI (plus garbage lines), converted to ATIF."""

from __future__ import annotations

from aces_ci.agents import TrajectoryBuilder
from aces_ci.agents.cli._base import skill_events
from aces_ci.agents.cli._opencode_events import OpenCodeEvents
from tests.agents.cli.helpers import assert_valid_atif, fixture_lines, fixture_workspace


def parse(lines: list[str]) -> tuple[OpenCodeEvents, TrajectoryBuilder]:
    builder = TrajectoryBuilder(agent_name="opencode", agent_version="test")
    builder.user("What is the secret project number?")
    stream = OpenCodeEvents(builder)
    for line in lines:
        stream.feed(line)
    return stream, builder


def test_each_model_response_is_one_step_with_its_calls_and_results() -> None:
    stream, builder = parse(fixture_lines("opencode_skill_run.jsonl"))
    end = stream.finish()
    assert end is not None and (end.reason, end.answer, end.infra_error) == ("final_answer", "42", None)
    load, reads, answer = builder.steps[1:]
    assert load["tool_calls"][0] == {
        "tool_call_id": "call_000000",
        "function_name": "skill",
        "arguments": {"name": "marker"},
    }
    assert load["observation"]["results"][0]["content"].startswith('<skill_content name="marker">')
    assert load["extra"] == {"finish_reason": "tool-calls"}
    assert load["timestamp"].endswith("Z") and load["timestamp"].startswith("2026-")
    assert reads["message"] == "Checking the reference."
    results = {r["source_call_id"]: r for r in reads["observation"]["results"]}
    assert results["call_000101"]["content"] == "File not found: /nonexistent/file.txt"
    assert results["call_000101"]["extra"] == {"is_error": True}
    assert "Project numbers are two digits." in results["call_000100"]["content"]
    assert (answer["message"], answer["reasoning_content"]) == ("42", "The skill says 42.")
    assert_valid_atif(builder.build(usage=stream.usage, extra=stream.extra()))


def test_usage_adds_cache_and_reasoning_back_and_counts_responses() -> None:
    stream, builder = parse(fixture_lines("opencode_skill_run.jsonl"))
    stream.finish()
    usage = stream.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.model_calls) == (2463 + 2604 + 2671, 4 + 40 + 1, 3)
    assert builder.steps[1]["metrics"]["prompt_tokens"] == 2463
    stream2, _ = parse(
        [
            '{"type":"step_start","part":{"messageID":"m"}}',
            '{"type":"step_finish","part":{"messageID":"m","reason":"stop","cost":0.25,'
            '"tokens":{"input":100,"output":10,"reasoning":5,"cache":{"read":40,"write":7}}}}',
        ]
    )
    stream2.finish()
    assert stream2.usage.prompt_tokens == 147 and stream2.usage.completion_tokens == 15
    assert (stream2.usage.cache_read_tokens, stream2.usage.cache_write_tokens, stream2.usage.cost_usd) == (40, 7, 0.25)


def test_garbage_lines_are_counted_not_fatal() -> None:
    stream, _ = parse(fixture_lines("opencode_skill_run.jsonl"))
    assert stream.unparsed_lines == 3


def test_the_skill_tool_and_the_successful_read_are_skill_events_the_failed_read_is_not() -> None:
    stream, builder = parse(fixture_lines("opencode_skill_run.jsonl"))
    stream.finish()
    events = skill_events(builder.steps, stream.failed_calls, fixture_workspace(".config/opencode/skills"))
    assert [(e.step_id, e.skill, e.via, e.path) for e in events] == [
        (2, "marker", "skill_tool", "SKILL.md"),
        (3, "marker", "file_read", "reference.md"),
    ]


def test_an_api_error_after_opencodes_retries_is_a_model_error() -> None:
    stream, _ = parse(fixture_lines("opencode_api_error.jsonl"))
    end = stream.finish()
    assert end is not None and (end.reason, end.answer) == ("model_error", None)
    assert end.infra_error == "OpenCode: model API error (HTTP 500): scripted outage"
    assert stream.extra()["cli_session_id"].startswith("ses_")


def test_other_errors_are_harness_errors_and_an_unfinished_step_is_kept() -> None:
    stream, builder = parse(
        [
            '{"type":"step_start","part":{"messageID":"m"}}',
            '{"type":"text","part":{"messageID":"m","text":"partial"}}',
            '{"type":"error","error":{"name":"UnknownError","data":{"message":"disk full"}}}',
        ]
    )
    end = stream.finish()
    assert end is not None and end.reason == "harness_error" and end.infra_error == "OpenCode: UnknownError: disk full"
    assert builder.steps[-1]["message"] == "partial"


def test_a_stream_without_a_final_step_reports_no_end() -> None:
    lines = fixture_lines("opencode_skill_run.jsonl")
    stream, _ = parse(lines[:6])
    assert stream.finish() is None
