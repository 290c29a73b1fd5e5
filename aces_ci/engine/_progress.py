"""Progress of an engine's rollouts: a tqdm bar on a terminal, a bounded number of plain lines in CI logs.

One display serves an engine's whole lifetime: each ``run`` call adds its rollouts to the total
(:meth:`Progress.expect`), so a command that runs several batches counts on in one display.

A bar redrawn in place is unreadable in a CI log (every redraw becomes a line, or nothing shows
until the end), so when the stream is not a TTY, or ``CI=true``, the display prints plain lines
instead. One line per rollout would bury the log (a small valuation runs hundreds), so
:class:`LineProgress` prints one line per tenth of the rollouts expected so far, each with the
tallies of the outcomes, plus what must not be missed: the first infrastructure errors in full
(the rest are counted), the budget cap that stopped a call and how many rollouts it left unrun,
and a summary when the engine closes::

    [ 61/592] 10%: 59 done, 1 cached, 1 infra_error (latest: case=q7 condition=with replicate=0 done 1.2s)

The lines follow counts, never the clock, so a log reads the same however busy the runner was.
"""

from __future__ import annotations

import math
import os
import sys
from collections import Counter
from typing import Protocol, TextIO

from tqdm import tqdm

from ..agents import RolloutRequest
from ..safe_text import inline
from ._budget import StopReason

LINE_STEPS = 10
"""Progress lines per expected total in a CI log (one per tenth)."""
FAILURES_SHOWN = 5
"""Infrastructure errors printed in full; later ones are counted in the progress lines and the summary."""
_STOPS: dict[StopReason, str] = {
    "max_rollouts": "the rollout budget (--max-rollouts)",
    "budget_usd": "the dollar budget",
    "max_wall": "the wall-time limit (--max-wall)",
    "circuit_breaker": "the circuit breaker (consecutive infrastructure errors)",
}


class Progress(Protocol):
    def expect(self, count: int) -> None:
        """``count`` more rollouts are coming (a ``run`` call's distinct rollouts)."""
        ...

    def advance(self, request: RolloutRequest, outcome: str, seconds: float) -> None:
        """One rollout finished: ``outcome`` is ``done``, ``cached``, ``resumed`` or ``infra_error (why)``."""
        ...

    def stopped(self, reason: StopReason, not_run: int) -> None:
        """A budget cap (``max_rollouts``, ``max_usd``, ``max_wall``) or the circuit breaker stopped a call with
        ``not_run`` rollouts left."""
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

    def stopped(self, reason: StopReason, not_run: int) -> None:
        """Nothing to show."""

    def close(self) -> None:
        """Nothing to close."""


def stop_line(reason: StopReason, not_run: int) -> str:
    """What a display says when a budget cap stops a call."""
    return f"stopped by {_STOPS[reason]}: {not_run} rollout{'s' if not_run != 1 else ''} not run"


def _kind(outcome: str) -> str:
    """``infra_error (timeout)`` → ``infra_error``: the tallies group outcomes by kind."""
    return outcome.split(" ", 1)[0]


class LineProgress:
    """A bounded number of plain lines, flushed at once so CI logs stream (the module docstring says which)."""

    def __init__(self, stream: TextIO, steps: int = LINE_STEPS, failures_shown: int = FAILURES_SHOWN) -> None:
        self.stream = stream
        self.steps = steps
        self.failures_shown = failures_shown
        self.total = 0
        self.count = 0
        self.tally: Counter[str] = Counter()
        self.not_run = 0
        self._next = 1
        """The count at which the next progress line is due."""

    def _write(self, line: str) -> None:
        # one line whatever a case id or an error holds: a line break could start a workflow command, an ESC
        # sequence repaint the terminal
        self.stream.write(inline(line) + "\n")
        self.stream.flush()

    def _tallies(self) -> str:
        return ", ".join(f"{n} {kind}" for kind, n in sorted(self.tally.items(), key=lambda item: -item[1]))

    def _counter(self) -> str:
        width = len(str(self.total))
        return f"[{self.count:>{width}}/{self.total}]"

    def expect(self, count: int) -> None:
        self.total += count

    def advance(self, request: RolloutRequest, outcome: str, seconds: float) -> None:
        self.count += 1
        kind = _kind(outcome)
        self.tally[kind] += 1
        latest = f"{_label(request)} {outcome} {seconds:.1f}s"
        if kind == "infra_error" and self.tally[kind] <= self.failures_shown:
            more = " (later ones are counted, not listed)" if self.tally[kind] == self.failures_shown else ""
            self._write(f"{self._counter()} {latest}{more}")
            return
        if self.count < self._next and self.count < self.total:
            return
        share = self.count / self.total if self.total else 1.0
        self._write(f"{self._counter()} {share:.0%}: {self._tallies()} (latest: {latest})")
        self._next = self.count + max(1, math.ceil(self.total / self.steps))

    def stopped(self, reason: StopReason, not_run: int) -> None:
        self.not_run += not_run
        self._write(f"{self._counter()} {stop_line(reason, not_run)}")

    def close(self) -> None:
        """The summary: every outcome's tally, and what was never run."""
        if not self.total:
            return
        unrun = f"; {self.not_run} not run" if self.not_run else ""
        self._write(f"rollouts: {self.count} of {self.total} finished ({self._tallies() or 'none'}){unrun}")


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

    def stopped(self, reason: StopReason, not_run: int) -> None:
        tqdm.write(stop_line(reason, not_run), file=self.stream)

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
