"""The built-in agent's tools: confinement to the workspace and skills, and the command sandbox."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from aces_ci.agents import Workspace
from aces_ci.agents.builtin import SandboxLimits, WorkspaceTools, run_command
from aces_ci.agents.builtin._tools import MAX_LISTED
from aces_ci.models import INVALID_ARGUMENTS_KEY
from tests.agents.cli.helpers import HANG_GUARD_S
from tests.processes import cancel_in_start_window, left_running, live_processes_in, parent_of, running


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root, home, skill = tmp_path / "work", tmp_path / "home", tmp_path / "home" / "skills" / "pdf"
    for directory in (root, home, skill):
        directory.mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text("---\nname: pdf\n---\nUse fill.py")
    (root / "input.txt").write_text("hello")
    (tmp_path / "outside.txt").write_text("top secret")
    return Workspace(root=root, home=home, skill_dirs={"pdf": skill})


def tools_for(workspace: Workspace, **limits: float) -> WorkspaceTools:
    return WorkspaceTools(workspace, SandboxLimits(**limits))  # type: ignore[arg-type]


async def call(tools: WorkspaceTools, name: str, **arguments: object) -> tuple[str, bool]:
    out = await tools.call(name, arguments, time_left_s=30)
    return out.content, out.is_error


async def test_reads_reach_the_workspace_and_the_staged_skills(workspace: Workspace) -> None:
    tools = tools_for(workspace)
    assert await call(tools, "read_file", path="input.txt") == ("hello", False)
    skill_md = str(workspace.skill_dirs["pdf"] / "SKILL.md")
    content, is_error = await call(tools, "read_file", path=skill_md)
    assert not is_error and "Use fill.py" in content


@pytest.mark.parametrize("path", ["../outside.txt", "sub/../../outside.txt", "/etc/passwd", "OUTSIDE"])
async def test_paths_leaving_the_fence_are_refused(workspace: Workspace, path: str) -> None:
    outside = workspace.root.parent / "outside.txt"
    target = path if path != "OUTSIDE" else str(outside)
    content, is_error = await call(tools_for(workspace), "read_file", path=target)
    assert is_error and "top secret" not in content


async def test_a_symlink_out_of_the_workspace_is_refused(workspace: Workspace) -> None:
    (workspace.root / "link.txt").symlink_to(workspace.root.parent / "outside.txt")
    (workspace.root / "linkdir").symlink_to(workspace.root.parent)
    tools = tools_for(workspace)
    for args in ({"path": "link.txt"}, {"path": "linkdir/outside.txt"}):
        content, is_error = await call(tools, "read_file", **args)
        assert is_error and "symlink" in content
    content, is_error = await call(tools, "write_file", path="link.txt", content="overwrite")
    assert is_error
    assert (workspace.root.parent / "outside.txt").read_text() == "top secret"


async def test_writes_go_to_the_workspace_only(workspace: Workspace) -> None:
    tools = tools_for(workspace)
    content, is_error = await call(tools, "write_file", path="out/report.md", content="# Report")
    assert not is_error and "out/report.md" in content
    assert (workspace.root / "out" / "report.md").read_text() == "# Report"
    skill_md = str(workspace.skill_dirs["pdf"] / "SKILL.md")
    content, is_error = await call(tools, "write_file", path=skill_md, content="hijack")
    assert is_error and "outside the workspace" in content
    assert "Use fill.py" in (workspace.skill_dirs["pdf"] / "SKILL.md").read_text()


async def test_list_files_is_recursive_and_bounded(workspace: Workspace) -> None:
    (workspace.root / "data").mkdir()
    (workspace.root / "data" / "a.csv").write_text("x")
    listing, _ = await call(tools_for(workspace), "list_files")
    assert listing.splitlines() == ["data/", "input.txt", "data/a.csv"]
    for i in range(MAX_LISTED + 5):
        (workspace.root / f"f{i:04d}").write_text("")
    listing, _ = await call(tools_for(workspace), "list_files", path=".")
    assert listing.endswith(f"[… listing stopped at {MAX_LISTED} entries]")


async def test_binary_missing_and_malformed_calls_become_error_results(workspace: Workspace) -> None:
    (workspace.root / "blob.bin").write_bytes(b"\x00\x01\x02")
    tools = tools_for(workspace)
    assert (await call(tools, "read_file", path="blob.bin"))[0].startswith("[binary file")
    assert (await call(tools, "read_file", path="nope.txt")) == ("error: no such file: nope.txt", True)
    assert (await call(tools, "read_file"))[1]
    assert "must be a string" in (await call(tools, "read_file", path=3))[0]
    assert "unknown tool" in (await call(tools, "delete_everything"))[0]
    out = await tools.call("read_file", {INVALID_ARGUMENTS_KEY: "{path: oops"}, time_left_s=30)
    assert out.is_error and "not a JSON object" in out.content


async def test_run_reports_exit_code_and_output_in_the_workspace(workspace: Workspace) -> None:
    content, is_error = await call(tools_for(workspace), "run", command="cat input.txt; echo; pwd; exit 3")
    assert is_error
    assert content.splitlines() == ["[exit code 3]", "hello", str(workspace.root)]


async def test_run_strips_api_keys_and_uses_the_throwaway_home(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-never-leak-1234567890")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_should_never_leak_1234567890")
    content, _ = await call(tools_for(workspace), "run", command="env")
    assert "should-never-leak" not in content and "should_never_leak" not in content
    assert f"HOME={workspace.home}" in content


async def test_run_kills_the_whole_process_group_on_timeout(workspace: Workspace) -> None:
    command = "sleep 600 & echo $! > child.pid; wait"
    content, is_error = await call(tools_for(workspace, timeout_s=0.5), "run", command=command)
    assert is_error and content.startswith("[timed out after 0.5s")
    child = int((workspace.root / "child.pid").read_text())
    deadline = time.monotonic() + HANG_GUARD_S  # a SIGKILL lands when its target next runs: a busy machine delays it
    while running(child) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert not running(child)  # gone long before its 600 s: the group was killed


async def test_run_caps_output_keeping_head_and_tail(workspace: Workspace) -> None:
    command = "echo START; head -c 50000 /dev/zero | tr '\\0' x; echo; echo END"
    content, _ = await call(tools_for(workspace, output_bytes=1000), "run", command=command)
    assert "START" in content and content.rstrip().endswith("END")
    assert "bytes of output omitted" in content and len(content) < 1200


async def test_run_enforces_file_size_and_cpu_limits(workspace: Workspace) -> None:
    tools = tools_for(workspace, file_size_bytes=1024, cpu_s=1, timeout_s=20)
    content, is_error = await call(tools, "run", command="head -c 5000 /dev/zero > big.bin")
    assert is_error and (workspace.root / "big.bin").stat().st_size <= 1024
    content, is_error = await call(tools, "run", command="while :; do :; done")
    assert is_error and not content.startswith("[timed out")  # the CPU limit ended it, not the wall clock


async def test_a_skill_script_runs_when_staged_with_its_shebang(workspace: Workspace) -> None:
    script = workspace.root / "tool.sh"
    script.write_text("#!/bin/sh\necho ran-$1\n")
    script.chmod(0o755)
    assert await call(tools_for(workspace), "run", command="./tool.sh ok") == ("[exit code 0]\nran-ok\n", False)


async def test_a_command_cancelled_while_it_starts_leaves_nothing_running(tmp_path: Path) -> None:
    """Cancelled after the shell started but before its pipes connected (a busy runner's window): asyncio alone
    would kill the shell and orphan the command the shell forked; the whole group goes."""
    task = asyncio.ensure_future(
        run_command("sleep 600; true", cwd=tmp_path, env={"PATH": "/usr/bin:/bin"}, limits=SandboxLimits(timeout_s=600))
    )
    await cancel_in_start_window(task, tmp_path, HANG_GUARD_S)
    assert await left_running(tmp_path, HANG_GUARD_S) == []


async def test_a_cancelled_command_is_killed_and_leaves_no_zombie(tmp_path: Path) -> None:
    """A rollout cancelled mid-command (its time ran out upstream) kills the command's group and collects
    the shell's exit before the cancellation ends: nothing keeps running, nothing is left a zombie."""
    task = asyncio.ensure_future(
        run_command("sleep 600", cwd=tmp_path, env={"PATH": "/usr/bin:/bin"}, limits=SandboxLimits(timeout_s=600))
    )
    deadline = time.monotonic() + HANG_GUARD_S  # a guard only: the shell is up within a second when idle
    while not live_processes_in(tmp_path) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    ours = [pid for pid in live_processes_in(tmp_path) if parent_of(pid) == os.getpid()]
    assert len(ours) == 1  # the shell (or the command it became), our child
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not Path(f"/proc/{ours[0]}").exists()  # killed and its exit collected: no zombie left
    deadline = time.monotonic() + HANG_GUARD_S
    while live_processes_in(tmp_path) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert live_processes_in(tmp_path) == []
