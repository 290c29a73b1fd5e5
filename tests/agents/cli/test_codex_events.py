"""Codex's ``exec --json`` events, recorded from the real CLI (plus garbage lines), converted to ATIF."""

from __future__ import annotations

from aces_ci.agents import TrajectoryBuilder
from aces_ci.agents.cli._base import skill_events
from aces_ci.agents.cli._codex_events import SHELL_TOOL, UNFINISHED, CodexEvents
from tests.agents.cli.helpers import FIXTURE_TOP, assert_valid_atif, fixture_lines, fixture_workspace


def parse(lines: list[str]) -> tuple[CodexEvents, TrajectoryBuilder]:
    builder = TrajectoryBuilder(agent_name="codex", agent_version="test")
    builder.user("What is the secret project number?")
    stream = CodexEvents(builder)
    for line in lines:
        stream.feed(line)
    return stream, builder


def test_a_shell_read_and_an_answer_become_steps() -> None:
    stream, builder = parse(fixture_lines("codex_shell_read.jsonl"))
    end = stream.finish()
    assert end is not None and (end.reason, end.answer, end.infra_error) == ("final_answer", "42", None)
    notice, read, answer = builder.steps[1:]
    assert notice["source"] == "system" and "Model metadata" in notice["message"]
    assert read["reasoning_content"] == "Read the skill first."
    call = read["tool_calls"][0]
    assert call["function_name"] == SHELL_TOOL
    assert call["arguments"] == {"command": f"/bin/bash -lc 'cat {FIXTURE_TOP}/home/.agents/skills/marker/SKILL.md'"}
    result = read["observation"]["results"][0]
    assert "ZEBRA-MARKER" in result["content"] and result["extra"] == {"exit_code": 0, "status": "completed"}
    assert answer["message"] == "42"
    assert_valid_atif(builder.build(usage=stream.usage, extra=stream.extra()))


def test_usage_counts_cached_input_once_and_cost_is_zero() -> None:
    stream, _ = parse(fixture_lines("codex_shell_read.jsonl"))
    stream.finish()
    usage = stream.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.cost_usd, usage.model_calls) == (9231, 23, 0.0, 2)
    extra = stream.extra()
    assert extra["reconnects"] == 1 and extra["unknown_items"] == 1
    assert extra["cost_source"] == "not reported by Codex (0)"


def test_garbage_lines_are_counted_not_fatal() -> None:
    stream, _ = parse(fixture_lines("codex_shell_read.jsonl"))
    assert stream.unparsed_lines == 3


def test_the_shell_read_of_skill_md_is_a_skill_event() -> None:
    stream, builder = parse(fixture_lines("codex_shell_read.jsonl"))
    stream.finish()
    events = skill_events(builder.steps, stream.failed_calls, fixture_workspace(".agents/skills"))
    assert [(e.step_id, e.skill, e.via, e.path) for e in events] == [(3, "marker", "shell_read", "SKILL.md")]


def test_a_failed_turn_is_a_model_error() -> None:
    stream, _ = parse(fixture_lines("codex_turn_failed.jsonl"))
    end = stream.finish()
    assert end is not None and end.reason == "model_error" and end.answer is None
    assert end.infra_error == "Codex: We’re currently experiencing high demand, which may cause temporary errors."


def test_a_command_still_running_when_the_stream_ends_is_kept_without_a_result() -> None:
    lines = fixture_lines("codex_shell_read.jsonl")
    cut = next(i for i, line in enumerate(lines) if '"item.started"' in line) + 1
    stream, builder = parse(lines[:cut])
    assert stream.finish() is None
    last = builder.steps[-1]
    assert last["tool_calls"][0]["function_name"] == SHELL_TOOL
    assert last["observation"]["results"][0]["content"] == UNFINISHED


def test_failed_commands_are_errors_and_load_no_skill() -> None:
    failed = (
        '{"type":"item.completed","item":{"id":"item_9","type":"command_execution",'
        f'"command":"cat {FIXTURE_TOP}/home/.agents/skills/marker/SKILL.md","aggregated_output":"denied",'
        '"exit_code":1,"status":"failed"}}'
    )
    stream, builder = parse([failed])
    stream.finish()
    assert builder.steps[-1]["observation"]["results"][0]["extra"]["is_error"] is True
    assert skill_events(builder.steps, stream.failed_calls, fixture_workspace(".agents/skills")) == []


def test_other_item_types_are_recorded_as_calls() -> None:
    stream, builder = parse(
        [
            '{"type":"item.completed","item":{"id":"a","type":"file_change","changes":[{"path":"x.py","kind":"add"}],"status":"completed"}}',
            '{"type":"item.completed","item":{"id":"b","type":"mcp_tool_call","server":"fs","tool":"read","arguments":{"p":1},'
            '"result":{"content":[{"type":"text","text":"hello"}]},"status":"completed"}}',
            '{"type":"item.completed","item":{"id":"c","type":"web_search","query":"pdf tools"}}',
            '{"type":"item.completed","item":{"id":"d","type":"todo_list","items":[{"text":"read","completed":false}]}}',
            '{"type":"item.completed","item":"not an object"}',
            '{"type":"turn.completed","usage":{"input_tokens":-5,"output_tokens":"many"}}',
        ]
    )
    end = stream.finish()
    names = [s["tool_calls"][0]["function_name"] for s in builder.steps if s.get("tool_calls")]
    assert names == ["file_change", "mcp__fs__read", "web_search", "todo_list"]
    assert builder.steps[2]["observation"]["results"][0]["content"] == "hello"
    assert end is not None and end.reason == "no_answer"
    assert stream.usage.prompt_tokens == 0 and stream.usage.completion_tokens == 0
