"""Trajectories the live tier writes are valid ATIF-v1.7, whatever happened in the rollout."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from aces_ci.agents import HarnessSpec, baseline_guard, create_harness
from aces_ci.schemas import validator
from tests.engine.helpers import anthropic_model, fast_clients, rendered, request, run_once
from tests.servers import Call, Fault, ScriptedRequest, ScriptedServer, Text, Tokens, ToolUse

HANG_GUARD_S = 120.0
"""The rollouts' timeout: they answer from a scripted server in well under a second when the machine is
idle, and on a 2-core runner with both cores busy one took more than 30 s; only a hang may end one."""

Server = Callable[..., ScriptedServer]


def check(trajectory: dict[str, Any]) -> None:
    errors = sorted(validator("atif").iter_errors(trajectory), key=str)
    assert not errors, [e.message for e in errors]
    steps = trajectory["steps"]
    assert [s["step_id"] for s in steps] == list(range(1, len(steps) + 1))
    assert trajectory["final_metrics"]["total_steps"] == len(steps)


async def test_a_busy_rollout_is_valid_atif_with_per_step_and_total_metrics(
    scripted_server: Server, tmp_path: Path
) -> None:
    usage = Tokens(input=100, output=20, cache_read=50, cache_write=30)
    replies = iter(
        [
            ToolUse(
                calls=[Call("list_files", {}), Call("read_file", {"path": ".agents/skills/marker/SKILL.md"})],
                text="Let me look.",
                usage=usage,
            ),
            Text("thinking out loud", usage=usage),
            ToolUse("run", {"command": "echo 42 > answer.txt && cat nope"}, usage=usage),
            ToolUse("write_file", {"path": "../escape.txt", "content": "x"}, usage=usage),
            ToolUse("final_answer", {"answer": "42"}, usage=usage),
        ]
    )
    server = scripted_server(lambda _req: next(replies))
    clients = fast_clients()
    spec = HarnessSpec(name="builtin", max_turns=8, timeout_s=HANG_GUARD_S)
    try:
        batch = await run_once(
            [request("with", harness=spec, model=anthropic_model(server.url))],
            create_harness(spec, clients=clients),
            workspace_dir=tmp_path,
        )
    finally:
        await clients.aclose()
    trajectory = batch.records[0].result.trajectory
    check(trajectory)
    steps = trajectory["steps"]
    assert [s["source"] for s in steps] == ["system", "user", "agent", "agent", "user", "agent", "agent", "agent"]
    first = steps[2]
    assert [c["function_name"] for c in first["tool_calls"]] == ["list_files", "read_file"]
    assert [r["source_call_id"] for r in first["observation"]["results"]] == [
        c["tool_call_id"] for c in first["tool_calls"]
    ]
    assert first["metrics"] == {
        "prompt_tokens": 180,
        "completion_tokens": 20,
        "cached_tokens": 50,
        "cost_usd": 0.0,
        "extra": {"cache_creation_input_tokens": 30},
    }
    failed = steps[5]["observation"]["results"][0]
    assert failed["extra"] == {"is_error": True} and failed["content"].startswith("[exit code 1]")
    assert trajectory["final_metrics"]["total_prompt_tokens"] == 5 * 180
    assert trajectory["final_metrics"]["total_cached_tokens"] == 5 * 50
    assert trajectory["agent"]["tool_definitions"][0]["function"]["name"] == "list_files"
    assert trajectory["extra"]["end_reason"] == "final_answer"


async def test_an_infra_error_still_leaves_a_valid_trajectory(scripted_server: Server) -> None:
    server = scripted_server(lambda _req: Fault(403, message="forbidden"))
    clients = fast_clients()
    spec = HarnessSpec(name="builtin", timeout_s=HANG_GUARD_S)
    try:
        batch = await run_once(
            [request("with", harness=spec, model=anthropic_model(server.url))], create_harness(spec, clients=clients)
        )
    finally:
        await clients.aclose()
    result = batch.records[0].result
    assert (result.status, result.end_reason) == ("infra_error", "model_error")
    check(result.trajectory)
    assert "forbidden" in result.trajectory["notes"]


async def test_the_baseline_trajectory_is_valid_and_names_no_skill(scripted_server: Server) -> None:
    def script(req: ScriptedRequest) -> ToolUse:
        return ToolUse("final_answer", {"answer": "no skill here"})

    server = scripted_server(script)
    clients = fast_clients()
    spec = HarnessSpec(name="builtin", timeout_s=HANG_GUARD_S)
    target = rendered()
    try:
        batch = await run_once(
            [request("without", harness=spec, model=anthropic_model(server.url))],
            create_harness(spec, clients=clients),
            guard=baseline_guard([target]),
        )
    finally:
        await clients.aclose()
    trajectory = batch.records[0].result.trajectory
    check(trajectory)
    assert trajectory["extra"]["skill_events"] == []
    assert trajectory["extra"]["rollout"] == {
        "case": "c1",
        "condition": "without",
        "replicate": 0,
        "seed": 0,
        "target": "marker",
    }
    assert trajectory["session_id"] == trajectory["trajectory_id"] == batch.records[0].result.key
