"""Progress of an engine's rollouts: a tqdm bar on a terminal, plain lines in CI logs.

One display serves an engine's whole lifetime: each ``run`` call adds its rollouts to the total
(:meth:`Progress.expect`), so a command that runs several batches counts on in one display.

A bar redrawn in place is unreadable in a CI log (every redraw becomes a line, or nothing shows
until the end), so when the stream is not a TTY, or ``CI=true``, each finished rollout prints one
line instead: ``[12/200] case=3 condition=with replicate=1 done 1.2s``.
"""

from __future__ import annotations

import os
import sys
from typing import Protocol, TextIO

from tqdm import tqdm

from ..agents import RolloutRequest


class Progress(Protocol):
    def expect(self, count: int) -> None:
        """``count`` more rollouts are coming (a ``run`` call's distinct rollouts)."""
        ...

    def advance(self, request: RolloutRequest, outcome: str, seconds: float) -> None:
        """One rollout finished: ``outcome`` is ``done``, ``cached``, ``resumed`` or ``infra_error (why)``."""
        ...

    def close(self) -> None: ...


def _label(request: RolloutRequest) -> str:
    return f"case={request.case.id} condition={request.condition} replicate={request.replicate}"


class NoProgress:
    """Reports nothing (library use, tests)."""

    def expect(self, count: int) -> None:
        """Nothing to show."""

    def advance(self, request: RolloutRequest, outcome: str, seconds: float) -> None:
        """Nothing to show."""

    def close(self) -> None:
        """Nothing to close."""


class LineProgress:
    """One line per finished rollout, flushed at once so CI logs stream."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.total = 0
        self.count = 0

    def expect(self, count: int) -> None:
        self.total += count

    def advance(self, request: RolloutRequest, outcome: str, seconds: float) -> None:
        self.count += 1
        width = len(str(self.total))
        self.stream.write(f"[{self.count:>{width}}/{self.total}] {_label(request)} {outcome} {seconds:.1f}s\n")
        self.stream.flush()

    def close(self) -> None:
        """Lines are already flushed."""


class BarProgress:
    """A tqdm bar whose postfix names the latest rollout."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._bar: tqdm | None = None

    def expect(self, count: int) -> None:
        if self._bar is None:
            self._bar = tqdm(total=count, file=self.stream, unit="rollout", dynamic_ncols=True)
        else:
            self._bar.total += count
            self._bar.refresh()

    def advance(self, request: RolloutRequest, outcome: str, seconds: float) -> None:
        if self._bar is not None:
            self._bar.set_postfix_str(f"{_label(request)} {outcome} {seconds:.1f}s", refresh=False)
            self._bar.update(1)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def auto_progress(stream: TextIO | None = None) -> Progress:
    """A bar when ``stream`` (stderr by default) is an interactive terminal outside CI, else lines."""
    stream = stream if stream is not None else sys.stderr
    in_ci = os.environ.get("CI", "").strip().lower() in ("true", "1")
    if not in_ci and stream.isatty():
        return BarProgress(stream)
    return LineProgress(stream)
