"""Starting a child in a session of its own, so that a cancellation at any moment ends everything it started.

Both the built-in loop's commands (``/bin/sh -c``) and the harness CLIs run as the leader of a new
session, and every stop kills the whole process group. One moment escaped that: the child exists
before ``asyncio.create_subprocess_exec`` returns (its pipes connect on later turns of the loop), and a
cancellation in between makes asyncio kill the leader alone — a command the shell had forked (dash forks
even ``sleep 600``) or a server the CLI had spawned keeps running, orphaned and holding the pipes, and
the cancellation then waits on those pipes. :func:`start_session` shields the start: a cancelled start
still finishes (bounded), its group is killed and the leader's exit collected, then the cancellation
goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

START_AFTER_CANCEL_S = 30.0
"""A start cancelled mid-way is waited for this long, so what it started can be killed (a guard: a start
takes milliseconds on an idle machine)."""
REAP_AFTER_CANCEL_S = 5.0
"""After killing a cancelled start's group, how long to wait for the leader's exit to be collected."""


def signal_group(pgid: int, sig: signal.Signals = signal.SIGKILL) -> None:
    """``sig`` (SIGKILL unless said) to every process of the group ``pgid`` (the session leader's pid); a group
    already gone is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def start_session(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdin: int,
    stderr: int,
    preexec_fn: Callable[[], None] | None = None,
) -> asyncio.subprocess.Process:
    """Start ``argv`` as the leader of a new session with its stdout piped (module docstring)."""
    start = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=dict(env),
            stdin=stdin,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            start_new_session=True,
            preexec_fn=preexec_fn,
        )
    )
    try:
        return await asyncio.shield(start)
    except asyncio.CancelledError:
        with contextlib.suppress(OSError, TimeoutError):
            process = await asyncio.wait_for(start, START_AFTER_CANCEL_S)
            signal_group(process.pid)
            await asyncio.wait_for(process.wait(), REAP_AFTER_CANCEL_S)
        raise
