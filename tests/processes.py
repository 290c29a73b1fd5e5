"""What /proc says about a process: the tests that check nothing is left running (or left a zombie) read it here."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from pathlib import Path
from typing import Any


def process_stat(pid: int) -> tuple[str, int] | None:
    """``pid``'s state letter and parent pid, None once it is gone. The command name in parentheses may hold
    spaces and parentheses itself, so the fields are read after its last ``)``."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        return fields[0], int(fields[1])
    except (OSError, IndexError, ValueError):
        return None


def running(pid: int) -> bool:
    """Whether ``pid`` still runs; a killed child awaiting its reaper (a zombie) does not."""
    stat = process_stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")


def parent_of(pid: int) -> int | None:
    stat = process_stat(pid)
    return None if stat is None else stat[1]


def live_processes_in(directory: Path) -> list[int]:
    """Pids of running (not zombie) processes whose working directory is inside ``directory``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cwd = Path(os.readlink(entry / "cwd"))
        except OSError:
            continue
        if running(int(entry.name)) and (cwd == directory or directory in cwd.parents):
            found.append(int(entry.name))
    return found


async def cancel_in_start_window(task: asyncio.Future[Any], directory: Path, guard_s: float) -> None:
    """Cancel ``task`` (which starts a session leader whose working directory is ``directory``, and whose leader
    spawns a child at once) after the leader has started and spawned, but before the start returned: the loop
    is turned one step at a time until the leader appears, then held still while it spawns. Returns once the
    cancelled task has ended; ``guard_s`` only guards against a hang."""
    deadline = time.monotonic() + guard_s
    while not live_processes_in(directory) and time.monotonic() < deadline:
        await asyncio.sleep(0)  # one turn of the loop at a time: stop on the turn the leader starts
    while len(live_processes_in(directory)) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)  # the loop held still (the start is mid-way) while the leader spawns its child
    assert len(live_processes_in(directory)) == 2, "the leader and the child it spawned"
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert task.cancelled(), "the run ended by its cancellation"


async def left_running(directory: Path, guard_s: float) -> list[int]:
    """What still runs in ``directory`` once it has had ``guard_s`` to go (returns as soon as nothing does)."""
    deadline = time.monotonic() + guard_s
    while live_processes_in(directory) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return live_processes_in(directory)
