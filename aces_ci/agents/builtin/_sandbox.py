"""Run one shell command for the agent: inside its workspace, limited, killable, and without our secrets.

The agent is untrusted code's author. Its command runs in a new session (so the whole process
group can be killed), with CPU-time, address-space and file-size limits set in the child before
exec, no core dumps, a wall-clock timeout, output capped, and an environment built from an
allow-list, so API keys of the process running aces-ci never reach it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ...redact import trim_partial_tokens
from .._session import signal_group, start_session

ENV_ALLOWLIST = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM")
"""The only variables inherited from our environment; everything else (API keys included) is dropped."""
_READ_CHUNK = 64 * 1024
_DRAIN_AFTER_KILL_S = 1.0
"""After killing the group, wait this long for the pipe to close (a daemonised grandchild may hold it),
and, when the run was cancelled, for the killed shell's exit to be collected."""


@dataclass(frozen=True)
class SandboxLimits:
    """Resource limits of one agent command."""

    timeout_s: float = 60.0
    cpu_s: int = 60
    address_space_bytes: int = 4 * 1024**3
    """Virtual memory; generous because runtimes such as Node reserve far more than they use."""
    file_size_bytes: int = 64 * 1024**2
    output_bytes: int = 16 * 1024
    """Output kept for the model: the first and last halves; the middle is replaced by a note."""


@dataclass(frozen=True)
class CommandResult:
    exit_code: int | None
    """None when the command was killed on timeout."""
    output: str
    """stdout and stderr interleaved, capped at ``SandboxLimits.output_bytes``."""
    timed_out: bool
    output_total_bytes: int


def sandbox_env(home: Path, workdir: Path) -> dict[str, str]:
    """The environment of an agent command: the allow-list plus a throwaway HOME."""
    env = {name: os.environ[name] for name in ENV_ALLOWLIST if name in os.environ}
    env.setdefault("PATH", os.defpath)
    env.update({"HOME": str(home), "PWD": str(workdir)})
    return env


def _clamped(which: int, wanted: int, hard_extra: int = 0) -> tuple[int, int]:
    """(soft, hard) limits near ``wanted``, never above the hard limit we already have (raising it fails)."""
    _, hard = resource.getrlimit(which)
    if hard == resource.RLIM_INFINITY:
        return wanted, wanted + hard_extra
    return min(wanted, hard), min(wanted + hard_extra, hard)


def _limiter(limits: SandboxLimits) -> Callable[[], None]:
    """The preexec function: computed here, in the parent, so the child only makes system calls."""
    settings = [
        # soft CPU limit sends SIGXCPU, the hard one a second later SIGKILL.
        (resource.RLIMIT_CPU, _clamped(resource.RLIMIT_CPU, max(1, limits.cpu_s), hard_extra=1)),
        (resource.RLIMIT_AS, _clamped(resource.RLIMIT_AS, limits.address_space_bytes)),
        (resource.RLIMIT_FSIZE, _clamped(resource.RLIMIT_FSIZE, limits.file_size_bytes)),
        (resource.RLIMIT_CORE, (0, 0)),
    ]

    def apply() -> None:
        for which, (soft, hard) in settings:
            resource.setrlimit(which, (soft, hard))

    return apply


class _CappedOutput:
    """Keeps the first and last ``cap // 2`` bytes of a stream and counts the rest."""

    def __init__(self, cap: int) -> None:
        self.half = max(1, cap // 2)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.half - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            del self.tail[: max(0, len(self.tail) - self.half)]

    def text(self) -> str:
        kept = len(self.head) + len(self.tail)
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        if kept >= self.total:
            return head + tail
        head, tail = trim_partial_tokens(head, tail)  # a secret cut in two would escape redaction
        return f"{head}\n[… {self.total - kept:,} bytes of output omitted …]\n{tail}"


async def run_command(
    command: str, *, cwd: Path, env: Mapping[str, str], limits: SandboxLimits, timeout_s: float | None = None
) -> CommandResult:
    """Run ``command`` with ``/bin/sh -c`` and return its capped output; never raises for the command's sake.

    ``timeout_s`` (default ``limits.timeout_s``) is wall-clock time; on expiry, and when the caller is
    cancelled, the command's whole process group is killed.
    """
    wall = limits.timeout_s if timeout_s is None else min(timeout_s, limits.timeout_s)
    process = await start_session(
        ["/bin/sh", "-c", command],
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.STDOUT,
        preexec_fn=_limiter(limits),
    )
    output = _CappedOutput(limits.output_bytes)
    stdout = process.stdout
    assert stdout is not None  # PIPE was requested

    async def pump() -> None:
        while chunk := await stdout.read(_READ_CHUNK):
            output.feed(chunk)

    reader = asyncio.create_task(pump())
    waiter = asyncio.create_task(process.wait())
    try:
        await asyncio.wait({reader, waiter}, timeout=max(0.0, wall))
        timed_out = not waiter.done()
        if timed_out or not reader.done():
            # Timed out, or a background child still holds the pipe open: end the whole group.
            signal_group(process.pid)
            await asyncio.wait({reader}, timeout=_DRAIN_AFTER_KILL_S)
        await waiter
    finally:
        if not waiter.done():  # cancelled midway: kill the group and collect the shell's exit, so no
            # zombie outlives the run and its transport is not collected "still running" with the loop
            signal_group(process.pid)
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(waiter), _DRAIN_AFTER_KILL_S)
        for task in (reader, waiter):
            task.cancel()
        await asyncio.gather(reader, waiter, return_exceptions=True)
    return CommandResult(
        exit_code=None if timed_out else process.returncode,
        output=output.text(),
        timed_out=timed_out,
        output_total_bytes=output.total,
    )


def describe(result: CommandResult, timeout_s: float) -> str:
    """The tool result the model sees: how the command ended, then its output."""
    if result.timed_out:
        status = f"timed out after {timeout_s:g}s; the command and its children were killed"
    else:
        status = f"exit code {result.exit_code}"
    body = result.output if result.output else "(no output)"
    return f"[{status}]\n{body}"
