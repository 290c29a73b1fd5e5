"""The real Codex CLI against a scripted OpenAI Responses server on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aces_ci.models import ModelSpec
from tests.agents.cli.helpers import assert_valid_atif, cli_request, real_cli, staged
from tests.processes import live_processes_in
from tests.servers import Fault, Hang, ScriptedRequest, Text, ToolUse
from tests.servers.fixtures import ServerFactory

pytestmark = pytest.mark.cli_harness
HUNG_TIMEOUT_S = 20.0
"""The rollout timeout against a server that never answers. The CLI must reach the server first (well under 1 s
from launch on an idle machine), so it is set far above that: what is checked is the timeout, not the speed."""
SECRET_KEY = "sk-proj-" + "Vb3Nq8Lw" * 6


def model(url: str) -> ModelSpec:
    return ModelSpec(provider="openai", model="scripted-model", base_url=url)


async def test_a_plain_answer(tmp_path: Path, scripted_server: ServerFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET_KEY)
    server = scripted_server([Text("The number is 42.")])
    cli = real_cli("codex")
    req = cli_request("codex", model(server.openai_url))
    with staged(req, cli, tmp_path) as workspace:
        outcome = await cli.run(req, workspace)
        config = (workspace.home / ".codex" / "config.toml").read_text()
    assert (outcome.end_reason, outcome.final_answer) == ("final_answer", "The number is 42.")
    assert outcome.infra_error is None
    assert_valid_atif(outcome.trajectory)
    (call,) = server.requests
    assert (call.path, call.model) == ("/v1/responses", "scripted-model")
    assert call.header("authorization") == f"Bearer {SECRET_KEY}"
    # The staged skill is offered by name and description, and Codex's own bundled skills are not.
    assert "- marker: Answers questions about the secret project number." in call.system_text
    assert "skill-creator" not in call.system_text
    assert SECRET_KEY not in config and SECRET_KEY not in json.dumps(outcome.trajectory)
    assert outcome.usage.prompt_tokens > 0 and outcome.usage.cost_usd == 0.0


async def test_a_shell_read_of_skill_md_is_a_skill_event(tmp_path: Path, scripted_server: ServerFactory) -> None:
    cli = real_cli("codex")
    holder: dict[str, Path] = {}

    def script(req: ScriptedRequest) -> Text | ToolUse:
        if not req.tool_results:
            return ToolUse("exec_command", {"cmd": f"cat {holder['skill'] / 'SKILL.md'}"})
        return Text("42" if "ZEBRA-MARKER" in req.all_text else "no idea")

    server = scripted_server(script)
    req = cli_request("codex", model(server.openai_url))
    with staged(req, cli, tmp_path) as workspace:
        holder["skill"] = workspace.skill_dirs["marker"]
        outcome = await cli.run(req, workspace)
    assert (outcome.end_reason, outcome.final_answer) == ("final_answer", "42")
    assert [(e.skill, e.via, e.path) for e in outcome.skill_events] == [("marker", "shell_read", "SKILL.md")]
    assert_valid_atif(outcome.trajectory)


async def test_a_server_error_is_a_model_error(tmp_path: Path, scripted_server: ServerFactory) -> None:
    server = scripted_server([Fault(500, message="scripted outage")])
    cli = real_cli("codex")
    req = cli_request("codex", model(server.openai_url), timeout_s=60)
    with staged(req, cli, tmp_path) as workspace:
        outcome = await cli.run(req, workspace)
        assert live_processes_in(workspace.root) == []
    assert outcome.end_reason == "model_error" and outcome.final_answer is None
    assert outcome.infra_error is not None and outcome.infra_error.startswith("Codex: ")
    assert server.calls == 1
    assert_valid_atif(outcome.trajectory)


async def test_a_hung_server_times_out_and_nothing_is_left_running(
    tmp_path: Path, scripted_server: ServerFactory
) -> None:
    server = scripted_server(lambda req: Hang())
    cli = real_cli("codex")
    req = cli_request("codex", model(server.openai_url), timeout_s=HUNG_TIMEOUT_S)
    with staged(req, cli, tmp_path) as workspace:
        outcome = await cli.run(req, workspace)
        assert live_processes_in(workspace.root) == []
    assert server.calls >= 1  # it did reach the model before hanging there
    assert outcome.end_reason == "timeout"
    assert outcome.infra_error == f"Codex did not finish within {HUNG_TIMEOUT_S:g}s; its processes were stopped"
    assert_valid_atif(outcome.trajectory)
