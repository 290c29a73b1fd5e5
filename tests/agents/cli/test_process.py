"""The process runner under real child processes: lines, stdin, limits, and nothing left running afterwards."""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap
import time
from pathlib import Path

import pytest

from aces_ci.agents.cli._process import MAX_LINE_BYTES, STDERR_TAIL_BYTES, run_process
from tests.agents.cli.helpers import HANG_GUARD_S
from tests.processes import cancel_in_start_window, left_running, live_processes_in


def python(code: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(code)]


def env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", os.defpath)}


async def test_every_line_arrives_in_order_with_stdin_and_exit_code(tmp_path: Path) -> None:
    lines: list[str] = []
    result = await run_process(
        python(
            """
            import sys
            prompt = sys.stdin.read()
            print("first")
            print("echo:" + prompt, flush=True)
            sys.stderr.write("warned\\n")
            sys.stdout.write("last line without newline")
            sys.exit(3)
            """
        ),
        cwd=tmp_path,
        env=env(),
        stdin="héllo ünïcode".encode(),
        timeout_s=30,
        on_line=lambda line: lines.append(line) or None,
    )
    assert lines == ["first", "echo:héllo ünïcode", "last line without newline"]
    assert (result.exit_code, result.timed_out, result.stopped) == (3, False, None)
    assert result.stderr_tail == "warned\n"


async def test_child_sees_only_the_environment_given_and_runs_in_cwd(tmp_path: Path) -> None:
    lines: list[str] = []
    await run_process(
        python("import os, json; print(json.dumps(sorted(os.environ))); print(os.getcwd())"),
        cwd=tmp_path,
        env={**env(), "ONLY_THIS": "1"},
        stdin=b"",
        timeout_s=30,
        on_line=lambda line: lines.append(line) or None,
    )
    assert "ONLY_THIS" in lines[0] and "HOME" not in lines[0]
    assert Path(lines[1]) == tmp_path


async def test_a_huge_line_is_dropped_and_the_stream_goes_on(tmp_path: Path) -> None:
    lines: list[str] = []
    result = await run_process(
        python(
            f"""
            import sys
            print("before")
            sys.stdout.write("x" * {MAX_LINE_BYTES + 10} + "\\n")
            print("after")
            """
        ),
        cwd=tmp_path,
        env=env(),
        stdin=b"",
        timeout_s=60,
        on_line=lambda line: lines.append(line) or None,
    )
    assert lines == ["before", "after"]
    assert result.dropped_lines == 1


async def test_stderr_keeps_only_its_tail(tmp_path: Path) -> None:
    result = await run_process(
        python(f"import sys; sys.stderr.write('a' * {STDERR_TAIL_BYTES * 3} + 'THE END')"),
        cwd=tmp_path,
        env=env(),
        stdin=b"",
        timeout_s=30,
        on_line=lambda line: None,
    )
    assert len(result.stderr_tail) == STDERR_TAIL_BYTES and result.stderr_tail.endswith("THE END")


async def test_timeout_kills_the_whole_group_even_a_child_that_ignores_sigterm(tmp_path: Path) -> None:
    result = await run_process(
        python(
            """
            import subprocess, sys, time
            stubborn = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"
            subprocess.Popen([sys.executable, "-c", stubborn])
            print("parent up", flush=True)
            time.sleep(600)
            """
        ),
        cwd=tmp_path,
        env=env(),
        stdin=b"",
        timeout_s=2,
        on_line=lambda line: None,
        kill_grace_s=0.5,
    )
    assert result.timed_out and result.exit_code is None
    assert live_processes_in(tmp_path) == []


async def test_processes_left_behind_by_a_finished_cli_are_stopped(tmp_path: Path) -> None:
    result = await run_process(
        python(
            """
            import subprocess, sys
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            print("done")
            """
        ),
        cwd=tmp_path,
        env=env(),
        stdin=b"",
        timeout_s=30,
        on_line=lambda line: None,
        kill_grace_s=0.5,
    )
    assert result.exit_code == 0 and not result.timed_out
    assert live_processes_in(tmp_path) == []


async def test_a_line_handler_can_stop_the_run(tmp_path: Path) -> None:
    seen: list[str] = []

    def on_line(line: str) -> str | None:
        seen.append(line)
        return "max_tokens" if line == "2" else None

    result = await run_process(
        python(
            """
            import time
            for i in range(1, 1000):
                print(i, flush=True)
                time.sleep(0.05)
            """
        ),
        cwd=tmp_path,
        env=env(),
        stdin=b"",
        timeout_s=60,
        on_line=on_line,
        kill_grace_s=0.5,
    )
    assert (result.stopped, result.timed_out, result.exit_code) == ("max_tokens", False, None)
    assert seen == ["1", "2"]
    assert live_processes_in(tmp_path) == []


async def test_cancelling_the_run_still_kills_the_group(tmp_path: Path) -> None:
    task = asyncio.ensure_future(
        run_process(
            python("import time; print('up', flush=True); time.sleep(600)"),
            cwd=tmp_path,
            env=env(),
            stdin=b"",
            timeout_s=600,
            on_line=lambda line: None,
        )
    )
    deadline = time.monotonic() + HANG_GUARD_S  # a guard only: the child is up within a second when idle
    while not live_processes_in(tmp_path) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    (leader,) = live_processes_in(tmp_path)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # the killed leader's exit was collected before the cancelled run ended: no zombie outlives it (a
    # zombie's transport, collected with the loop, warned "subprocess still running" into a later test)
    assert not Path(f"/proc/{leader}").exists()
    deadline = time.monotonic() + HANG_GUARD_S
    while live_processes_in(tmp_path) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert live_processes_in(tmp_path) == []


async def test_a_run_cancelled_while_its_cli_starts_kills_what_the_cli_already_spawned(tmp_path: Path) -> None:
    """The window between the leader's start and its pipes' connection: asyncio alone kills the leader and
    orphans its children (a CLI's servers, here a shell's sleep); the whole group goes."""
    task = asyncio.ensure_future(
        run_process(
            ["/bin/sh", "-c", "sleep 600; true"],
            cwd=tmp_path,
            env=env(),
            stdin=b"",
            timeout_s=600,
            on_line=lambda line: None,
        )
    )
    await cancel_in_start_window(task, tmp_path, HANG_GUARD_S)
    assert await left_running(tmp_path, HANG_GUARD_S) == []


async def test_a_missing_executable_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        await run_process(
            [str(tmp_path / "nope")], cwd=tmp_path, env=env(), stdin=b"", timeout_s=5, on_line=lambda line: None
        )
