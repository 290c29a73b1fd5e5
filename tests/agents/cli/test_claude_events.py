"""Claude Code's stream-json, recorded from the real CLI (plus garbage lines), converted to ATIF."""

from __future__ import annotations

from aces_ci.agents import TrajectoryBuilder
from aces_ci.agents.cli._base import skill_events
from aces_ci.agents.cli._claude_events import ClaudeEvents
from aces_ci.models import Usage
from tests.agents.cli.helpers import FIXTURE_TOP, assert_valid_atif, fixture_lines, fixture_workspace


def parse(name: str) -> tuple[ClaudeEvents, TrajectoryBuilder]:
    builder = TrajectoryBuilder(agent_name="claude-code", agent_version="test")
    builder.user("What is the secret project number?")
    stream = ClaudeEvents(builder)
    for line in fixture_lines(name):
        stream.feed(line)
    return stream, builder


def test_a_skill_run_becomes_steps_with_calls_results_and_the_final_answer() -> None:
    stream, builder = parse("claude_skill_run.jsonl")
    end = stream.finish()
    assert end is not None and (end.reason, end.answer, end.infra_error) == ("final_answer", "42", None)
    steps = builder.steps
    assert [s["source"] for s in steps] == ["user", "agent", "system", "agent", "agent"]
    skill_step, injected, read_step, answer = steps[1:]
    assert skill_step["tool_calls"][0]["function_name"] == "Skill"
    assert skill_step["observation"]["results"][0]["content"] == "Launching skill: marker"
    assert injected["message"].startswith(f"Base directory for this skill: {FIXTURE_TOP}/home/.claude/skills/marker")
    # One response streamed as three events (thinking, text, two tool uses) is one step.
    assert read_step["message"] == "Checking the reference."
    assert read_step["reasoning_content"] == "The skill points at reference.md."
    assert [c["function_name"] for c in read_step["tool_calls"]] == ["Read", "Bash"]
    results = {r["source_call_id"]: r for r in read_step["observation"]["results"]}
    assert results["toolu_000100"]["content"] == "1\tProject numbers are two digits.\n2\t"
    assert results["toolu_000101"]["extra"] == {"is_error": True}
    assert answer["message"] == "42"


def test_usage_and_cost_come_from_the_result_event() -> None:
    stream, _ = parse("claude_skill_run.jsonl")
    stream.finish()
    usage = stream.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.model_calls) == (6025, 42, 3)
    assert usage.cost_usd == 0.031175
    assert stream.model_turns == 3


def test_garbage_lines_are_counted_and_kept_in_the_raw_tail() -> None:
    stream, _ = parse("claude_skill_run.jsonl")
    assert stream.unparsed_lines == 3
    assert "this line is not JSON at all" in stream.raw.lines()
    extra = stream.extra()
    assert extra["skills_listed"] == ["marker"] and "Skill" in extra["tools_listed"]
    assert extra["api_retries"] == 1
    assert extra["cost_source"] == "Claude Code total_cost_usd"


def test_the_skill_tool_and_the_read_of_its_resource_are_skill_events() -> None:
    stream, builder = parse("claude_skill_run.jsonl")
    stream.finish()
    events = skill_events(builder.steps, stream.failed_calls, fixture_workspace(".claude/skills"))
    assert [(e.step_id, e.skill, e.via, e.path) for e in events] == [
        (2, "marker", "skill_tool", "SKILL.md"),
        (4, "marker", "file_read", "reference.md"),
    ]


def test_the_trajectory_is_valid_atif() -> None:
    stream, builder = parse("claude_skill_run.jsonl")
    stream.finish()
    assert_valid_atif(builder.build(usage=stream.usage, extra=stream.extra()))
    assert_valid_atif(TrajectoryBuilder(agent_name="claude-code", agent_version="t").build(usage=Usage()))


def test_an_api_error_is_a_model_error_not_an_answer() -> None:
    stream, builder = parse("claude_api_error.jsonl")
    end = stream.finish()
    assert end is not None and end.reason == "model_error" and end.answer is None
    assert end.infra_error is not None and "HTTP 500" in end.infra_error and "scripted outage" in end.infra_error
    assert [s["source"] for s in builder.steps] == ["user", "system"]  # the synthetic message is not the model's
    assert stream.usage.model_calls == 0


def test_a_stream_cut_short_reports_no_end_but_keeps_its_steps() -> None:
    lines = fixture_lines("claude_skill_run.jsonl")
    builder = TrajectoryBuilder(agent_name="claude-code", agent_version="t")
    stream = ClaudeEvents(builder)
    for line in lines[: lines.index(next(line for line in lines if '"type":"result"' in line))]:
        stream.feed(line)
    assert stream.finish() is None
    assert len([s for s in builder.steps if s["source"] == "agent"]) == 3
    assert stream.usage.prompt_tokens == 1953 + 2019 + 2053  # summed per response when there is no result
    assert stream.extra()["cost_source"] == "not reported (run cut short)"


def test_result_subtypes_map_to_end_reasons() -> None:
    def end_of(result: str) -> tuple[str, str | None]:
        stream = ClaudeEvents(TrajectoryBuilder(agent_name="c", agent_version="t"))
        stream.feed(result)
        end = stream.finish()
        assert end is not None
        return end.reason, end.infra_error

    assert end_of('{"type":"result","subtype":"error_max_turns","is_error":true}') == ("max_turns", None)
    reason, error = end_of('{"type":"result","subtype":"error_during_execution","is_error":true,"errors":["boom"]}')
    assert reason == "harness_error" and error == "Claude Code ended with error_during_execution: boom"
    assert end_of('{"type":"result","subtype":"success","is_error":false,"result":"ok"}') == ("final_answer", None)


def test_malformed_events_of_known_types_do_not_crash() -> None:
    stream = ClaudeEvents(TrajectoryBuilder(agent_name="c", agent_version="t"))
    for line in [
        '{"type":"assistant"}',
        '{"type":"assistant","message":{"content":"not a list","usage":[]}}',
        '{"type":"assistant","message":{"id":"m","content":[null,{"type":"tool_use"}]}}',
        '{"type":"user","message":{"content":[{"type":"tool_result"},7]}}',
        '{"type":"result","usage":"nope","total_cost_usd":"free"}',
        '{"type":"system","subtype":"init","skills":"marker"}',
    ]:
        stream.feed(line)
    end = stream.finish()
    assert end is not None and end.reason == "harness_error"
    assert stream.usage.cost_usd == 0.0 and stream.extra()["skills_listed"] == []
