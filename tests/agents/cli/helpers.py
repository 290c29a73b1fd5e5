"""Shared pieces of the CLI harness tests: the installed CLIs, rollouts in a staged workspace, and checks
a user would make afterwards (a valid trajectory, no process left running)."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from aces_ci.agents import HarnessSpec, RolloutRequest, Workspace, baseline_guard, stage_workspace
from aces_ci.agents.cli import CLI_HARNESSES, CliHarness, create_cli_harness, find_cli
from aces_ci.models import ModelSpec
from aces_ci.schemas import validator
from tests.engine.helpers import rendered, request
from tests.needs import unavailable

FIXTURES = Path(__file__).parent / "fixtures"
HANG_GUARD_S = 120.0
"""How long a test waits for something that takes well under a second on an idle machine."""
FIXTURE_TOP = "/work/rollout"
"""The rollout directory the recorded streams were rewritten to (see fixtures/README.md)."""


def fixture_lines(name: str) -> list[str]:
    return (FIXTURES / name).read_text(encoding="utf-8").split("\n")


def fixture_workspace(skill_root: str) -> Workspace:
    """The workspace the recorded streams ran in, with the ``marker`` skill under ``skill_root`` (relative to home)."""
    top = Path(FIXTURE_TOP)
    return Workspace(root=top / "work", home=top / "home", skill_dirs={"marker": top / "home" / skill_root / "marker"})


def real_cli(name: str, *, api_retries: int = 0, kill_grace_s: float = 2.0) -> CliHarness:
    """The adapter for an installed CLI; the test is skipped, saying how to install it, when it is missing."""
    command = CLI_HARNESSES[name].command
    if find_cli(command) is None:
        unavailable(
            f"{command!r} is not installed: run scripts/install-harness-clis.sh and export ACES_CLI_BIN", "harness-clis"
        )
    spec = HarnessSpec(name=name)  # type: ignore[arg-type]
    harness = create_cli_harness(spec, api_retries=api_retries, kill_grace_s=kill_grace_s)
    assert isinstance(harness, CliHarness)
    return harness


def cli_request(name: str, model: ModelSpec, *, timeout_s: float = 120, **limits: int) -> RolloutRequest:
    spec = HarnessSpec(
        name=name,
        max_turns=limits.get("max_turns", 8),
        timeout_s=timeout_s,  # type: ignore[arg-type]
        max_total_tokens=limits.get("max_total_tokens", 200_000),
    )
    return request("with", harness=spec, model=model)


@contextmanager
def staged(req: RolloutRequest, harness: CliHarness, base_dir: Path) -> Iterator[Workspace]:
    """The request's workspace under ``base_dir``; a baseline is checked against the default skill."""
    base_dir.mkdir(parents=True, exist_ok=True)
    with stage_workspace(req, harness, base_dir, guard=baseline_guard([rendered()])) as workspace:
        yield workspace


def assert_valid_atif(trajectory: dict) -> None:
    errors = sorted(validator("atif").iter_errors(trajectory), key=str)
    assert not errors, errors
    assert [s["step_id"] for s in trajectory["steps"]] == list(range(1, len(trajectory["steps"]) + 1))


def fake_cli(bin_dir: Path, command: str, body: str) -> Path:
    """An executable ``bin_dir/command`` running the Python ``body``: a stand-in CLI for the runner's own paths."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    path = bin_dir / command
    path.write_text(f"#!{sys.executable}\n" + textwrap.dedent(body), encoding="utf-8")
    path.chmod(0o755)
    return path
