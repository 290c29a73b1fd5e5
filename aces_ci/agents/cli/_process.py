"""Run a harness CLI as its own process group: feed it the prompt, stream its stdout lines, stop it for good.

Agents start processes of their own (a dev server, ``sleep 600 &``). Killing only the CLI would leave
those running, holding the output pipe open and the CI job alive. So the CLI starts in a new session,
which makes it the leader of a fresh process group, and however the run ends — the CLI exits, the
timeout expires, the caller asks to stop (a token budget), or the awaiting task is cancelled — the
whole group is signalled: SIGTERM, a grace period for the leader to exit, then SIGKILL.

stdout is read in chunks and split into lines here rather than with ``StreamReader.readline``, whose
64 KiB limit a single JSON event (a tool result with a large file) easily exceeds.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .._session import signal_group, start_session
from .._types import EndReason

MAX_LINE_BYTES = 16 * 1024 * 1024
"""A stdout line longer than this is dropped (and counted), so one runaway event cannot exhaust memory."""
STDERR_TAIL_BYTES = 8 * 1024
"""How much of the end of stderr is kept: enough for an error message and its context."""
_CHUNK = 64 * 1024
_PROC = Path("/proc")
_READER_DRAIN_S = 2.0
"""After the group is gone, how long to wait for the pipes to reach end of file (a process that left
the group may still hold them; it is not waited for)."""
_REAP_S = 5.0
"""After a cancelled run's SIGKILL, how long to wait for the leader's exit to be collected."""

LineHandler = Callable[[str], EndReason | None]
"""Called with each stdout line (without its newline); a returned string asks to stop the run, and says why."""


@dataclass(frozen=True)
class ProcessResult:
    exit_code: int | None
    """The CLI's exit status; negative for a signal; None when it never exited on its own."""
    timed_out: bool
    stopped: EndReason | None
    """The reason a line handler gave for stopping the run early, if one did."""
    stderr_tail: str
    dropped_lines: int
    """stdout lines longer than :data:`MAX_LINE_BYTES`, skipped."""


def _group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` is still running.

    Zombies do not count: an orphan is reaped by PID 1, and in some containers PID 1 never reaps, so
    ``killpg(pgid, 0)`` would call a dead group alive forever. Where /proc exists it is read instead.
    """
    if not _PROC.is_dir():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="ascii", errors="replace")
        except OSError:
            continue  # exited while we looked
        fields = stat.rpartition(")")[2].split()  # after "pid (comm)": state, ppid, pgrp, ...
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
            return True
    return False


class _LineSplitter:
    """Bytes in, complete lines out; an over-long line is skipped up to its newline."""

    def __init__(self, on_line: Callable[[str], None]) -> None:
        self._on_line = on_line
        self._buffer = bytearray()
        self._skipping = False
        self.dropped = 0

    def feed(self, chunk: bytes) -> None:
        start = 0
        while True:
            newline = chunk.find(b"\n", start)
            if newline < 0:
                self._append(chunk[start:])
                return
            self._append(chunk[start:newline])
            self._emit()
            start = newline + 1

    def close(self) -> None:
        """End of stream: a last line without a newline is still delivered (a parser must cope with it)."""
        if self._buffer or self._skipping:
            self._emit()

    def _append(self, part: bytes) -> None:
        if self._skipping:
            return
        if len(self._buffer) + len(part) > MAX_LINE_BYTES:
            self._buffer.clear()
            self._skipping = True
            return
        self._buffer.extend(part)

    def _emit(self) -> None:
        if self._skipping:
            self.dropped += 1
            self._skipping = False
        else:
            self._on_line(self._buffer.decode("utf-8", errors="replace").rstrip("\r"))
        self._buffer.clear()


async def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdin: bytes,
    timeout_s: float,
    on_line: LineHandler,
    kill_grace_s: float = 5.0,
) -> ProcessResult:
    """Run ``argv`` to its end (or ``timeout_s``), passing each stdout line to ``on_line``.

    ``env`` is the child's whole environment: nothing is inherited. ``stdin`` is written and closed.
    Raises :class:`OSError` when the executable cannot be started at all.
    """
    process = await start_session(argv, cwd=cwd, env=env, stdin=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    pgid = process.pid  # a new session's leader leads a process group of the same id
    stop_requested = asyncio.Event()
    stop_reason: list[EndReason] = []

    def deliver(line: str) -> None:
        if stop_reason:
            return  # the run is being stopped: later lines describe nothing the caller will use
        reason = on_line(line)
        if reason is not None:
            stop_reason.append(reason)
            stop_requested.set()

    splitter = _LineSplitter(deliver)
    stderr_tail = bytearray()
    tasks = [
        asyncio.ensure_future(_write_stdin(process, stdin)),
        asyncio.ensure_future(_read_stdout(process, splitter)),
        asyncio.ensure_future(_read_stderr(process, stderr_tail)),
    ]
    exited = asyncio.ensure_future(process.wait())
    stopping = asyncio.ensure_future(stop_requested.wait())
    timed_out = False
    try:
        done, _ = await asyncio.wait({exited, stopping}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
        if exited not in done:
            timed_out = stopping not in done
            await _terminate(process, pgid, kill_grace_s)
        await _sweep(pgid, kill_grace_s)
        _, pending = await asyncio.wait(tasks, timeout=_READER_DRAIN_S)
        for reader in pending:
            reader.cancel()
    finally:
        # Normally the group is gone by now; when the caller cancelled us midway, this is the only stop.
        signal_group(pgid, signal.SIGKILL)
        for future in (*tasks, stopping):
            future.cancel()
        if not exited.done():  # cancelled midway: collect the killed leader's exit, or it outlives its
            # transport and the event loop closes on a process it still counts as running (a zombie)
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(exited), _REAP_S)
        exited.cancel()
    return ProcessResult(
        exit_code=None if timed_out or stop_reason else process.returncode,
        timed_out=timed_out,
        stopped=stop_reason[0] if stop_reason else None,
        stderr_tail=stderr_tail.decode("utf-8", errors="replace"),
        dropped_lines=splitter.dropped,
    )


async def _terminate(process: asyncio.subprocess.Process, pgid: int, grace_s: float) -> None:
    """SIGTERM the group, give the leader ``grace_s`` to exit, then SIGKILL the group."""
    signal_group(pgid, signal.SIGTERM)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.wait(), grace_s)
    signal_group(pgid, signal.SIGKILL)
    await process.wait()


async def _sweep(pgid: int, grace_s: float) -> None:
    """End whatever the CLI left behind in its group: SIGTERM, up to ``grace_s`` to go, then SIGKILL."""
    if not _group_alive(pgid):
        return
    signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while _group_alive(pgid) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    signal_group(pgid, signal.SIGKILL)


async def _write_stdin(process: asyncio.subprocess.Process, data: bytes) -> None:
    stream = process.stdin
    if stream is None:
        return
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the CLI may exit without reading
        stream.write(data)
        await stream.drain()
        stream.close()


async def _read_stdout(process: asyncio.subprocess.Process, splitter: _LineSplitter) -> None:
    stream = process.stdout
    if stream is None:
        return
    while chunk := await stream.read(_CHUNK):
        splitter.feed(chunk)
    splitter.close()


async def _read_stderr(process: asyncio.subprocess.Process, tail: bytearray) -> None:
    stream = process.stderr
    if stream is None:
        return
    while chunk := await stream.read(_CHUNK):
        tail.extend(chunk)
        del tail[:-STDERR_TAIL_BYTES]
