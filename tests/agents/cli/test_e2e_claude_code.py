"""The real Claude Code CLI against a scripted Anthropic server on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aces_ci.models import ModelSpec
from tests.agents.cli.helpers import assert_valid_atif, cli_request, real_cli, staged
from tests.engine.helpers import request
from tests.processes import live_processes_in
from tests.servers import Fault, Hang, ScriptedRequest, Text, ToolUse
from tests.servers.fixtures import ServerFactory

pytestmark = pytest.mark.cli_harness
HUNG_TIMEOUT_S = 20.0
"""The rollout timeout against a server that never answers. The CLI must reach the server first (about 1 s
from launch on an idle machine), so it is set far above that: what is checked is the timeout, not the speed."""
SECRET_KEY = "sk-ant-api03-" + "Kx7Qm2" * 15


def model(url: str) -> ModelSpec:
    return ModelSpec(provider="anthropic", model="scripted-model", base_url=url, max_tokens=777)


async def test_a_plain_answer(tmp_path: Path, scripted_server: ServerFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET_KEY)
    server = scripted_server([Text("The number is 42.")])
    cli = real_cli("claude-code")
    req = cli_request("claude-code", model(server.url))
    with staged(req, cli, tmp_path) as workspace:
        outcome = await cli.run(req, workspace)
    assert (outcome.end_reason, outcome.final_answer) == ("final_answer", "The number is 42.")
    assert outcome.infra_error is None
    assert_valid_atif(outcome.trajectory)
    assert outcome.trajectory["extra"]["skills_listed"] == ["marker"]  # the staged skill, and only it
    assert outcome.usage.model_calls == 1 and outcome.usage.cost_usd > 0
    (call,) = server.requests  # no title or other side requests
    assert (call.model, call.json["max_tokens"], call.header("x-api-key")) == ("scripted-model", 777, SECRET_KEY)
    assert "- marker: Answers questions about the secret project number." in call.all_text
    assert SECRET_KEY not in json.dumps(outcome.trajectory)


async def test_the_skill_tool_loads_the_staged_skill(tmp_path: Path, scripted_server: ServerFactory) -> None:
    def script(req: ScriptedRequest) -> Text | ToolUse:
        if not req.tool_results:
            return ToolUse("Skill", {"skill": "marker"})
        return Text("42" if "ZEBRA-MARKER" in req.all_text else "no idea")

    server = scripted_server(script)
    cli = real_cli("claude-code")
    req = cli_request("claude-code", model(server.url))
    with staged(req, cli, tmp_path) as workspace:
        outcome = await cli.run(req, workspace)
    assert (outcome.end_reason, outcome.final_answer) == ("final_answer", "42")
    assert [(e.skill, e.via, e.path) for e in outcome.skill_events] == [("marker", "skill_tool", "SKILL.md")]
    assert outcome.trajectory["extra"]["skill_events"][0]["via"] == "skill_tool"
    assert_valid_atif(outcome.trajectory)


async def test_a_read_of_skill_md_is_a_skill_event(tmp_path: Path, scripted_server: ServerFactory) -> None:
    cli = real_cli("claude-code")
    holder: dict[str, Path] = {}

    def script(req: ScriptedRequest) -> Text | ToolUse:
        if not req.tool_results:
            return ToolUse("Read", {"file_path": str(holder["skill"] / "SKILL.md")})
        return Text("42")

    server = scripted_server(script)
    req = cli_request("claude-code", model(server.url))
    with staged(req, cli, tmp_path) as workspace:
        holder["skill"] = workspace.skill_dirs["marker"]
        outcome = await cli.run(req, workspace)
    assert [(e.skill, e.via, e.path) for e in outcome.skill_events] == [("marker", "file_read", "SKILL.md")]
    observation = outcome.trajectory["steps"][1]["observation"]["results"][0]["content"]
    assert "ZEBRA-MARKER" in observation


async def test_the_baseline_arm_lists_no_skill(tmp_path: Path, scripted_server: ServerFactory) -> None:
    server = scripted_server([Text("no idea")])
    cli = real_cli("claude-code")
    req = request("without", harness=cli_request("claude-code", model(server.url)).harness, model=model(server.url))
    with staged(req, cli, tmp_path) as workspace:
        outcome = await cli.run(req, workspace)
    assert outcome.trajectory["extra"]["skills_listed"] == [] and outcome.skill_events == ()
    assert "marker" not in server.requests[0].all_text


async def test_a_server_error_is_a_model_error(tmp_path: Path, scripted_server: ServerFactory) -> None:
    server = scripted_server([Fault(500, message="scripted outage")])
    cli = real_cli("claude-code")
    req = cli_request("claude-code", model(server.url), timeout_s=60)
    with staged(req, cli, tmp_path) as workspace:
        outcome = await cli.run(req, workspace)
        assert live_processes_in(workspace.root) == []
    assert outcome.end_reason == "model_error" and outcome.final_answer is None
    assert outcome.infra_error is not None and "HTTP 500" in outcome.infra_error
    assert server.calls == 1  # api_retries=0: the engine, not the CLI, decides about retrying
    assert_valid_atif(outcome.trajectory)


async def test_a_hung_server_times_out_and_nothing_is_left_running(
    tmp_path: Path, scripted_server: ServerFactory
) -> None:
    server = scripted_server(lambda req: Hang())
    cli = real_cli("claude-code")
    req = cli_request("claude-code", model(server.url), timeout_s=HUNG_TIMEOUT_S)
    with staged(req, cli, tmp_path) as workspace:
        outcome = await cli.run(req, workspace)
        assert live_processes_in(workspace.root) == []
    assert outcome.end_reason == "timeout"
    assert outcome.infra_error == f"Claude Code did not finish within {HUNG_TIMEOUT_S:g}s; its processes were stopped"
    assert server.calls >= 1
    assert_valid_atif(outcome.trajectory)
