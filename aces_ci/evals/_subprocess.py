"""Run a command the product owns (a task source, a grader) safely: no shell, a timeout, bounded output.

The words of the command go to the operating system as they are (``shell=False``): nothing a case,
a prompt or an answer holds is ever spliced into a command line, so no text in a dataset can run
code. Data travels on stdin and stdout only.

The command runs with :func:`command_environment`: ours without model keys, GitHub tokens or
anything else secret (a pull request may change the command, and a command that needs no key must
not be handed one); what aces.yml names under the command's ``env`` is passed on as it is.

The command runs in its own session, so a timeout ends it *and* every process it started. Output
beyond :data:`MAX_OUTPUT_BYTES` per stream is read and thrown away (the pipe must keep draining, or
the child blocks), and the result says it was cut. What the command prints may hold secrets (a
task source that calls an internal API, a grader that echoes its environment): :func:`tail_for_log`
is the only way its text reaches a message, and it redacts first.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..redact import environment_secrets, redact_text, safe_environment

MAX_OUTPUT_BYTES = 16 * 1024 * 1024
"""Per stream; 5,000 cases of a few kilobytes each fit, a runaway loop printing forever does not."""
TAIL_LINES = 12
TAIL_CHARS = 2000
_KILL_WAIT_S = 5.0
_GITHUB_CREDENTIAL_PREFIXES = ("ACTIONS_ID_TOKEN_REQUEST_", "ACTIONS_RUNTIME_", "ACTIONS_CACHE_", "ACTIONS_RESULTS_")
"""The Actions runtime: with these a step mints OIDC tokens and writes caches and artifacts as the workflow."""


def command_environment(pass_env: Sequence[str] = (), environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a product's command: ours without secrets, plus the variables it names.

    Dropped: every variable whose name marks a secret (``*_API_KEY``, ``*_TOKEN``, ``*_SECRET``,
    ``GITHUB_TOKEN`` … as :func:`~aces_ci.redact.safe_environment` decides), every value the
    detectors recognise as a key, and the Actions runtime's credentials. ``pass_env`` (aces.yml's
    ``env: [HOUSE_DB_URL]``) is kept whatever it holds: naming a variable is handing it over.
    """
    named = frozenset(pass_env)
    env = safe_environment(environ, keep=named)
    runtime = _GITHUB_CREDENTIAL_PREFIXES
    return {name: value for name, value in env.items() if name in named or not name.startswith(runtime)}


@dataclass(frozen=True)
class CommandOutput:
    """How a command ended and what it printed."""

    returncode: int | None
    """None when it was stopped at the timeout."""
    stdout: bytes
    stderr: bytes
    timed_out: bool = False
    truncated: bool = False
    """True when a stream passed :data:`MAX_OUTPUT_BYTES` and the rest was dropped."""


class CommandNotRunnable(Exception):
    """The program could not be started (missing, not executable); the message says which and why."""


def _drain(stream: IO[bytes], sink: bytearray, cut: list[bool]) -> None:
    while chunk := stream.read(65536):
        room = MAX_OUTPUT_BYTES - len(sink)
        if room > 0:
            sink.extend(chunk[:room])
        if len(chunk) > room:
            cut[0] = True


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(_KILL_WAIT_S)


def run_argv(
    argv: Sequence[str],
    *,
    cwd: Path,
    stdin: bytes = b"",
    timeout_s: float,
    extra_env: Mapping[str, str] | None = None,
    pass_env: Sequence[str] = (),
) -> CommandOutput:
    """Run ``argv`` in ``cwd`` with ``stdin``; raises :class:`CommandNotRunnable` if it cannot start.

    A relative program path (``./tools/cases.sh``) is relative to ``cwd``; a bare name is looked up
    on ``PATH``. The environment is :func:`command_environment` (``pass_env`` kept) plus ``extra_env``.
    """
    env = {**command_environment(pass_env), **(extra_env or {})}
    try:
        process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        raise CommandNotRunnable(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from None
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    out, err, cut = bytearray(), bytearray(), [False]
    readers = [
        threading.Thread(target=_drain, args=(process.stdout, out, cut), daemon=True),
        threading.Thread(target=_drain, args=(process.stderr, err, cut), daemon=True),
    ]
    for reader in readers:
        reader.start()
    with contextlib.suppress(BrokenPipeError, OSError):  # a command that never reads its input is fine
        process.stdin.write(stdin)
    with contextlib.suppress(OSError):
        process.stdin.close()
    timed_out = False
    try:
        process.wait(timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
    # The group goes either way: a command that exits but leaves a child holding the pipes would hang the readers.
    _kill_group(process)
    for reader in readers:
        reader.join(_KILL_WAIT_S)
    process.stdout.close()
    process.stderr.close()
    return CommandOutput(
        None if timed_out else process.returncode, bytes(out), bytes(err), timed_out=timed_out, truncated=cut[0]
    )


def tail_for_log(data: bytes) -> str:
    """The last lines of a command's output, redacted of secrets, for an error message."""
    text = data.decode("utf-8", errors="replace").strip()
    lines = text.splitlines()[-TAIL_LINES:]
    tail = "\n".join(lines)[-TAIL_CHARS:]
    return redact_text(tail, environment_secrets())
