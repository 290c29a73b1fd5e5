"""A test whose tool is missing is skipped on a developer's machine and fails under CI=true."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.needs import in_ci, unavailable

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("value", "expected"), [("true", True), ("TRUE", True), ("1", True), ("", False), ("false", False)]
)
def test_ci_is_read_from_the_environment(value: str, expected: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", value)
    assert in_ci() is expected


def test_a_missing_tool_skips_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="run the installer"):
        unavailable("the tool is absent: run the installer")


def test_a_missing_tool_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true, so this test must run, but the tool is absent"):
        unavailable("the tool is absent")


def test_a_tool_whose_installer_failed_here_skips_with_that_reason_even_under_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("ACES_CLI_UNAVAILABLE", "npm could not reach the registry")
    with pytest.raises(pytest.skip.Exception, match="could not be installed on this machine: npm could not reach"):
        unavailable("'codex' is not installed", "harness-clis")
    monkeypatch.delenv("ACES_CLI_UNAVAILABLE")
    with pytest.raises(pytest.fail.Exception):  # the installer did not fail: a missing CLI is a red run
        unavailable("'codex' is not installed", "harness-clis")


@pytest.mark.parametrize(("ci", "outcome"), [("", "1 skipped"), ("true", "1 failed")])
@pytest.mark.parametrize(
    "test",
    [
        "tests/agents/cli/test_e2e_codex.py::test_a_plain_answer",
        # sets CI=true for the README command it runs; the CLI check before it reads the suite's CI
        "tests/test_readme.py::test_the_claude_code_command_runs_against_a_stand_in_server",
    ],
)
def test_a_cli_harness_test_without_its_cli_cannot_pass_in_ci(ci: str, outcome: str, test: str, tmp_path: Path) -> None:
    """The real suite, run with no CLI to be found: skipped for a developer, a red run in CI."""
    env = {**os.environ, "CI": ci, "PATH": os.path.dirname(sys.executable), "ACES_CLI_BIN": str(tmp_path)}
    env["HOME"] = env["ACES_CI_NPM_PREFIX"] = str(tmp_path)  # nor in ~/.cache/aces-ci/npm
    env.pop("ACES_CLI_UNAVAILABLE", None)  # the installer did not report a failure
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert outcome in proc.stdout, proc.stdout
    assert (proc.returncode == 0) is (outcome == "1 skipped")
