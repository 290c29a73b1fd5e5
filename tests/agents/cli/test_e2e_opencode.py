"""The real OpenCode CLI against scripted Chat Completions and Anthropic servers on 127.0.0.1."""

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
HUNG_TIMEOUT_S = 45.0
"""The rollout timeout against a server that never answers. The CLI must reach the server first: a few seconds
from launch on an idle machine, and more than 15 s on a 2-core runner with both cores busy (measured; see
BENCHMARKS.md), so it is set far above that: what is checked is the timeout, not the speed."""
SECRET_KEY = "sk-proj-" + "Rt5Yu7Io" * 6


def model(url: str, provider: str = "openai") -> ModelSpec:
    return ModelSpec(provider=provider, model="scripted-model", base_url=url, temperature=0.3, max_tokens=555)  # type: ignore[arg-type]


async def test_a_plain_answer(tmp_path: Path, scripted_server: ServerFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET_KEY)
    server = scripted_server([Text("The number is 42.")])
    cli = real_cli("opencode")
    req = cli_request("opencode", model(server.openai_url))
    with staged(req, cli, tmp_path) as workspace:
        outcome = await cli.run(req, workspace)
        config = (workspace.home / ".config" / "opencode" / "opencode.json").read_text()
    assert (outcome.end_reason, outcome.final_answer) == ("final_answer", "The number is 42.")
    assert outcome.infra_error is None
    assert_valid_atif(outcome.trajectory)
    (call,) = server.requests  # the session-title request is switched off
    assert (call.path, call.model, call.header("authorization")) == (
        "/v1/chat/completions",
        "scripted-model",
        f"Bearer {SECRET_KEY}",
    )
    assert (call.json["temperature"], call.json["max_tokens"]) == (0.3, 555)
    assert call.last_user_text == req.case.prompt
    assert "<name>marker</name>" in call.system_text
    assert "<description>Answers questions about the secret project number.</description>" in call.system_text
    assert SECRET_KEY not in config and SECRET_KEY not in json.dumps(outcome.trajectory)


async def test_the_skill_tool_loads_the_staged_skill(tmp_path: Path, scripted_server: ServerFactory) -> None:
    def script(req: ScriptedRequest) -> Text | ToolUse:
        if not req.tool_results:
            return ToolUse("skill", {"name": "marker"})
        return Text("42" if "ZEBRA-MARKER" in req.all_text else "no idea")

    server = scripted_server(script)
    cli = real_cli("opencode")
    req = cli_request("opencode", model(server.url, provider="anthropic"))
    with staged(req, cli, tmp_path) as workspace:
        outcome = await cli.run(req, workspace)
    assert {r.path for r in server.requests} == {"/v1/messages"}  # the Anthropic provider
    assert (outcome.end_reason, outcome.final_answer) == ("final_answer", "42")
    assert [(e.skill, e.via, e.path) for e in outcome.skill_events] == [("marker", "skill_tool", "SKILL.md")]
    assert_valid_atif(outcome.trajectory)


async def test_a_server_error_is_a_model_error_after_opencodes_retries(
    tmp_path: Path, scripted_server: ServerFactory
) -> None:
    # OpenCode retries five times and honours retry-after; with 0 the whole sequence takes moments.
    server = scripted_server(lambda req: Fault(500, message="scripted outage", retry_after=0, retry_after_ms=0))
    cli = real_cli("opencode")
    req = cli_request("opencode", model(server.openai_url), timeout_s=90)
    with staged(req, cli, tmp_path) as workspace:
        outcome = await cli.run(req, workspace)
        assert live_processes_in(workspace.root) == []
    assert outcome.end_reason == "model_error" and outcome.final_answer is None
    assert outcome.infra_error == "OpenCode: model API error (HTTP 500): scripted outage"
    assert server.calls == 6
    assert_valid_atif(outcome.trajectory)


async def test_a_hung_server_times_out_and_nothing_is_left_running(
    tmp_path: Path, scripted_server: ServerFactory
) -> None:
    server = scripted_server(lambda req: Hang())
    cli = real_cli("opencode")
    req = cli_request("opencode", model(server.openai_url), timeout_s=HUNG_TIMEOUT_S)
    with staged(req, cli, tmp_path) as workspace:
        outcome = await cli.run(req, workspace)
        assert live_processes_in(workspace.root) == []
    assert server.calls >= 1  # it did reach the model before hanging there
    assert outcome.end_reason == "timeout"
    assert outcome.infra_error == f"OpenCode did not finish within {HUNG_TIMEOUT_S:g}s; its processes were stopped"
    assert_valid_atif(outcome.trajectory)
