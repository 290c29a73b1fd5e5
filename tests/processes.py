"""What /proc says about a process: the tests that check nothing is left running (or left a zombie) read it here."""

from __future__ import annotations

import os
from pathlib import Path


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
