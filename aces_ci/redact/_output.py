"""The redactor at the edges: JSON we write to disk, and everything printed to stdout and stderr.

Sources redact what they produce (the ATIF builder, the scan's findings, the engine's error
messages); these are the last gates every byte passes on its way out, so a writer that forgot
cannot leak: :func:`redacted_json` for every JSON document we store (rollout cache entries,
journal lines, scan reports, the scan cache, trajectory files), :func:`redacted_stdio` around the
whole command line (reports, progress lines, log records, error messages, argparse's own
complaints), which also keeps any line from reading as a GitHub workflow command: only
:func:`command_writer` writes one (our annotations).
Both also mask the values of our environment's secrets (:func:`environment_secrets`).
Redacting already-redacted text changes nothing: a ``[REDACTED:<kind>]`` marker matches no detector.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from ._environment import environment_secrets
from ._find import literal_set, redact_with
from ._walk import redact_obj

__all__ = ["RedactingStream", "command_writer", "redacted_json", "redacted_stdio"]

_MAX_PENDING = 64 * 1024
"""Text without a line break is passed on once it grows past this (a progress bar, a huge line)."""
_WORKFLOW_COMMAND = re.compile(r"^([ \t\f\v]*)(::|##\[)", re.MULTILINE)
"""A line the Actions runner would read as a command (it trims leading white space first): ``::stop-commands::``,
``::warning::``, the legacy ``##[…]``."""
WORKFLOW_COMMAND_GUARD = "» "
"""What a guarded line starts with instead: visible, and no longer a command."""


def redacted_json(data: Any, extra_secrets: Iterable[str] | None = None, **dumps: Any) -> str:
    """``json.dumps`` of ``data`` with every string (keys too) redacted first.

    ``extra_secrets`` defaults to our environment's secret values. Redacting the values before
    encoding, not the encoded text, keeps the document valid JSON whatever a secret spans.
    """
    secrets = environment_secrets() if extra_secrets is None else extra_secrets
    return json.dumps(redact_obj(data, extra_secrets=secrets), **dumps)


class RedactingStream(io.TextIOBase):
    """A text stream that redacts what it is given, a line at a time, before passing it on.

    Whole lines are redacted together (a chunk holding several lines is redacted as one text, so a
    private key printed in one ``write`` is caught); text without a line break waits for the rest
    of its line, for :meth:`flush`, or until it passes :data:`_MAX_PENDING` characters.
    """

    def __init__(self, target: TextIO, extra_secrets: Iterable[str] = (), *, workflow_commands: bool = True) -> None:
        super().__init__()
        self._target = target
        self._literals = literal_set(extra_secrets)
        self._pending = ""
        self._guard = not workflow_commands

    def _out(self, text: str) -> None:
        text = redact_with(text, self._literals)
        if self._guard:
            text = _WORKFLOW_COMMAND.sub(lambda m: f"{m.group(1)}{WORKFLOW_COMMAND_GUARD}{m.group(2)}", text)
        self._target.write(text)

    @property
    def target(self) -> TextIO:
        return self._target

    def write_command(self, line: str) -> int:
        """Write a workflow command we built (an annotation), redacted but not guarded: the one way a line
        starting with ``::`` reaches the log (:func:`command_writer`). Text still waiting for its line end is
        ended first, so the command starts a line of its own."""
        if self._pending:
            ready, self._pending = self._pending, ""
            self._out(ready if ready.endswith("\n") else ready + "\n")
        self._target.write(redact_with(line, self._literals))
        return len(line)

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._pending += text
        cut = self._pending.rfind("\n") + 1
        if cut == 0 and len(self._pending) > _MAX_PENDING:
            cut = len(self._pending)
        if cut:
            ready, self._pending = self._pending[:cut], self._pending[cut:]
            self._out(ready)
        return len(text)

    def flush(self) -> None:
        if self._pending:
            ready, self._pending = self._pending, ""
            self._out(ready)
        self._target.flush()

    def isatty(self) -> bool:
        return self._target.isatty()

    def fileno(self) -> int:
        return self._target.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._target, "encoding", "utf-8")

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self._target, "errors", None)


@contextmanager
def redacted_stdio() -> Iterator[None]:
    """Route ``sys.stdout`` and ``sys.stderr`` through :class:`RedactingStream` while the block runs.

    On both, every line that would read as a workflow command is guarded — a skill named
    ``::stop-commands::t`` heading a text report, a folder named ``x\n::warning::y`` in a log line, an
    error message, a traceback: the runner would obey it (``stop-commands`` silences every annotation
    after it). Our own annotations pass through :func:`command_writer`.
    """
    secrets = environment_secrets()
    saved = sys.stdout, sys.stderr
    out = RedactingStream(saved[0], secrets, workflow_commands=False)
    err = RedactingStream(saved[1], secrets, workflow_commands=False)
    sys.stdout, sys.stderr = out, err
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
        for stream in (out, err):
            # A reader that went away (a closed pipe) needs nothing more.
            with contextlib.suppress(OSError, ValueError):
                stream.flush()


def command_writer(stream: TextIO) -> Callable[[str], object]:
    """How to write workflow commands of ours (annotations, each escaped as the runner expects) to ``stream``:
    past :class:`RedactingStream`'s guard when ``stream`` is one (inside :func:`redacted_stdio`), else as is."""
    return stream.write_command if isinstance(stream, RedactingStream) else stream.write
