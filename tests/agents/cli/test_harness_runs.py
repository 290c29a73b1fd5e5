"""What a CLI harness does around the CLI — outcome labels, limits, secrets, installation — checked with
stand-in executables, so every path runs fast and without the real tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aces_ci.agents import HarnessSpec
from aces_ci.agents.cli import ClaudeCodeHarness, create_cli_harness
from aces_ci.errors import ConfigError
from aces_ci.models import ModelSpec
from tests.agents.cli.helpers import assert_valid_atif, cli_request, fake_cli, staged
from tests.processes import live_processes_in

API_KEY = "sk-ant-api03-" + "Zq8" * 30
GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5" * 4
VERSION = """
import json, os, sys, time
if sys.argv[1:] == ["--version"]:
    print("9.9.9 (Fake Claude)")
    sys.exit(0)
def emit(event):
    print(json.dumps(event), flush=True)
"""
MODEL = ModelSpec(provider="anthropic", model="claude-test", base_url="http://127.0.0.1:9")
HUNG_TIMEOUT_S = 5.0
"""The rollout timeout of a stand-in CLI that hangs: long enough for its Python to start and print on a
busy machine (about 50 ms when idle), so what is checked is the timeout, not the machine's speed."""


@pytest.fixture
def secrets_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setenv("GITHUB_TOKEN", GITHUB_TOKEN)


def harness(tmp_path: Path, body: str) -> ClaudeCodeHarness:
    bin_dir = tmp_path / "bin"
    fake_cli(bin_dir, "claude", VERSION + body)
    made = create_cli_harness(HarnessSpec(name="claude-code"), bin_dir=bin_dir, kill_grace_s=0.5)
    assert isinstance(made, ClaudeCodeHarness)
    return made


async def test_a_crash_is_a_harness_error_quoting_stderr_without_secrets(tmp_path: Path, secrets_in_env: None) -> None:
    cli = harness(
        tmp_path,
        """
sys.stdin.read()
print("not an event")
sys.stderr.write("fatal: could not authenticate with key " + os.environ["ANTHROPIC_API_KEY"] + "\\n")
sys.exit(7)
""",
    )
    req = cli_request("claude-code", MODEL)
    with staged(req, cli, tmp_path / "ws") as workspace:
        outcome = await cli.run(req, workspace)
    assert outcome.end_reason == "harness_error" and outcome.final_answer is None
    assert outcome.infra_error is not None
    assert outcome.infra_error.startswith("Claude Code exited with code 7; stderr ends: fatal: could not authenticate")
    dumped = json.dumps(outcome.trajectory)
    assert API_KEY not in outcome.infra_error and API_KEY not in dumped
    assert outcome.trajectory["extra"]["exit_code"] == 7
    assert outcome.trajectory["extra"]["raw_events_tail"] == ["not an event"]
    assert "fatal: could not authenticate" in outcome.trajectory["extra"]["stderr_tail"]
    assert_valid_atif(outcome.trajectory)


async def test_the_cli_gets_a_clean_environment_the_prompt_and_its_key(tmp_path: Path, secrets_in_env: None) -> None:
    cli = harness(
        tmp_path,
        f"KEY = {API_KEY!r}\n"
        + """
prompt = sys.stdin.read()
skills = sorted(os.listdir(os.environ["HOME"] + "/.claude/skills"))
emit({"type": "system", "subtype": "init", "session_id": "s1", "skills": skills})
env = {k: os.environ.get(k) for k in ("HOME", "GITHUB_TOKEN", "ANTHROPIC_BASE_URL", "IS_SANDBOX")}
env["key_ok"] = os.environ.get("ANTHROPIC_API_KEY") == KEY
emit({"type": "result", "subtype": "success", "is_error": False,
      "result": json.dumps({"prompt": prompt, "cwd": os.getcwd(), "argv": sys.argv[1:], "env": env}),
      "usage": {"input_tokens": 3, "output_tokens": 2}, "total_cost_usd": 0.5})
""",
    )
    req = cli_request("claude-code", MODEL)
    with staged(req, cli, tmp_path / "ws") as workspace:
        outcome = await cli.run(req, workspace)
    assert outcome.end_reason == "final_answer" and outcome.infra_error is None
    seen = json.loads(outcome.final_answer or "")
    assert seen["prompt"] == req.case.prompt and seen["cwd"] == str(workspace.root)
    assert seen["env"] == {
        "HOME": str(workspace.home),
        "GITHUB_TOKEN": None,
        "ANTHROPIC_BASE_URL": MODEL.base_url,
        "IS_SANDBOX": "1",
        "key_ok": True,
    }
    assert seen["argv"][seen["argv"].index("--model") + 1] == "claude-test"
    assert seen["argv"][seen["argv"].index("--max-turns") + 1] == "8"
    assert outcome.trajectory["extra"]["skills_listed"] == ["marker"]
    assert (outcome.usage.prompt_tokens, outcome.usage.completion_tokens, outcome.usage.cost_usd) == (3, 2, 0.5)
    assert outcome.trajectory["agent"]["version"] == "9.9.9 (Fake Claude); aces-ci adapter 1"


async def test_a_token_budget_overrun_stops_the_run(tmp_path: Path) -> None:
    cli = harness(
        tmp_path,
        """
sys.stdin.read()
for i in range(100):
    emit({"type": "assistant", "message": {"id": f"m{i}", "content": [{"type": "text", "text": "thinking"}],
          "usage": {"input_tokens": 400, "output_tokens": 1}}})
    time.sleep(0.05)
""",
    )
    req = cli_request("claude-code", MODEL, max_total_tokens=1000, max_turns=50)
    with staged(req, cli, tmp_path / "ws") as workspace:
        outcome = await cli.run(req, workspace)
        assert live_processes_in(workspace.root) == []
    assert (outcome.end_reason, outcome.infra_error, outcome.final_answer) == ("max_tokens", None, None)
    assert len([s for s in outcome.trajectory["steps"] if s["source"] == "agent"]) == 3


async def test_more_turns_than_allowed_stops_the_run(tmp_path: Path) -> None:
    cli = harness(
        tmp_path,
        """
sys.stdin.read()
for i in range(100):
    emit({"type": "assistant", "message": {"id": f"m{i}", "content": [{"type": "text", "text": "again"}]}})
    time.sleep(0.05)
""",
    )
    req = cli_request("claude-code", MODEL, max_turns=2)
    with staged(req, cli, tmp_path / "ws") as workspace:
        outcome = await cli.run(req, workspace)
    assert outcome.end_reason == "max_turns" and outcome.infra_error is None


async def test_a_hung_cli_times_out_and_leaves_nothing_running(tmp_path: Path) -> None:
    cli = harness(tmp_path, "sys.stdin.read()\nemit({'type': 'system', 'subtype': 'init'})\ntime.sleep(600)\n")
    req = cli_request("claude-code", MODEL, timeout_s=HUNG_TIMEOUT_S)
    with staged(req, cli, tmp_path / "ws") as workspace:
        outcome = await cli.run(req, workspace)
        assert live_processes_in(workspace.root) == []
    assert outcome.end_reason == "timeout"
    assert outcome.infra_error == f"Claude Code did not finish within {HUNG_TIMEOUT_S:g}s; its processes were stopped"


async def test_a_cli_that_exits_cleanly_without_an_end_event_is_a_harness_error(tmp_path: Path) -> None:
    cli = harness(tmp_path, "sys.stdin.read()\n")
    req = cli_request("claude-code", MODEL)
    with staged(req, cli, tmp_path / "ws") as workspace:
        outcome = await cli.run(req, workspace)
    assert outcome.end_reason == "harness_error"
    assert outcome.infra_error == "Claude Code exited without reporting how the run ended"


async def test_a_cli_that_cannot_start_is_a_harness_error(tmp_path: Path) -> None:
    cli = harness(tmp_path, "")
    cli.version()  # known from before the CLI broke (versions are asked once per process)
    (tmp_path / "bin" / "claude").write_text("#!/nonexistent/interpreter\n")
    req = cli_request("claude-code", MODEL)
    with staged(req, cli, tmp_path / "ws") as workspace:
        outcome = await cli.run(req, workspace)
    assert outcome.end_reason == "harness_error"
    assert outcome.infra_error is not None and outcome.infra_error.startswith("could not start Claude Code")


async def test_a_cli_whose_version_fails_is_a_harness_error(tmp_path: Path) -> None:
    cli = harness(tmp_path, "")
    (tmp_path / "bin" / "claude").write_text("#!/bin/sh\necho 'corrupt install' >&2\nexit 1\n")
    req = cli_request("claude-code", MODEL)
    with staged(req, cli, tmp_path / "ws") as workspace:
        outcome = await cli.run(req, workspace)
    assert outcome.end_reason == "harness_error"
    assert outcome.infra_error is not None and outcome.infra_error.endswith("(exit 1): corrupt install")
    assert outcome.trajectory["agent"]["version"] == "unknown"


def test_a_missing_cli_names_the_install_script(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"not installed .* run scripts/install-harness-clis.sh"):
        create_cli_harness(HarnessSpec(name="codex"), bin_dir=tmp_path)


def test_preload_and_unknown_names_are_config_errors(tmp_path: Path) -> None:
    fake_cli(tmp_path, "claude", VERSION)
    with pytest.raises(ConfigError, match="only available with the builtin harness"):
        create_cli_harness(HarnessSpec(name="claude-code", disclosure="preload"), bin_dir=tmp_path)
    with pytest.raises(ConfigError, match="unknown CLI harness 'builtin'"):
        create_cli_harness(HarnessSpec(name="builtin"), bin_dir=tmp_path)


async def test_a_provider_the_cli_cannot_use_fails_before_anything_runs(tmp_path: Path) -> None:
    cli = harness(tmp_path, "raise SystemExit('must not run')\n")
    req = cli_request("claude-code", ModelSpec(provider="openai", model="gpt-x", base_url="http://127.0.0.1:9/v1"))
    with staged(req, cli, tmp_path / "ws") as workspace, pytest.raises(ConfigError, match="provider 'openai'"):
        await cli.run(req, workspace)


def test_skill_roots_are_in_the_throwaway_home(tmp_path: Path) -> None:
    for name, command, rel in [
        ("claude-code", "claude", ".claude/skills"),
        ("codex", "codex", ".agents/skills"),
        ("opencode", "opencode", ".config/opencode/skills"),
    ]:
        fake_cli(tmp_path / "bin", command, VERSION)
        made = create_cli_harness(HarnessSpec(name=name), bin_dir=tmp_path / "bin")  # type: ignore[arg-type]
        assert made.skill_root(tmp_path / "work", tmp_path / "home") == tmp_path / "home" / rel


async def test_an_answer_printed_before_a_hang_at_exit_is_still_the_answer(tmp_path: Path) -> None:
    cli = harness(
        tmp_path,
        """
sys.stdin.read()
emit({"type": "result", "subtype": "success", "is_error": False, "result": "42"})
time.sleep(600)
""",
    )
    req = cli_request("claude-code", MODEL, timeout_s=HUNG_TIMEOUT_S)
    with staged(req, cli, tmp_path / "ws") as workspace:
        outcome = await cli.run(req, workspace)
        assert live_processes_in(workspace.root) == []
    assert (outcome.end_reason, outcome.final_answer, outcome.infra_error) == ("final_answer", "42", None)
