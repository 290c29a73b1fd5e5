"""GitHub workflow commands on stdout: ``::error file=…,line=…::message`` annotations.

The escaping is the runner's own (``actions/toolkit`` ``command.ts``): in message data ``%``, CR and
LF become ``%25``, ``%0D``, ``%0A``; property values additionally escape ``:`` and ``,``. Without it
a multi-line message ends the command at its first newline and a path holding a comma breaks the
property list.

GitHub shows at most 10 annotations of each level per step (and 50 per job) and silently drops the
rest. :func:`annotate` therefore emits the worst first, up to the caps, and prints every finding it
could not annotate as a plain log line, so nothing is lost: the log always lists all of them.
Every message is redacted first; an annotation is as public as the log.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from ..redact import redact_text
from ..safe_text import printable

AnnotationLevel = Literal["error", "warning", "notice"]

PER_STEP_CAP = 10
"""Annotations GitHub shows per level per step."""
PER_JOB_CAP = 50
"""Annotations GitHub shows per job, all levels together."""

_LEVEL_ORDER: tuple[AnnotationLevel, ...] = ("error", "warning", "notice")


def escape_data(text: str) -> str:
    """A workflow command's message, escaped as the runner expects."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def one_line_log(text: str) -> str:
    """``text`` for a plain log line: its line breaks shown as ``⏎``, so nothing in it can start a line (the
    runner reads a line starting with ``::`` as a command, e.g. ``::stop-commands::`` from a folder name),
    and its control characters made visible (:func:`~aces_ci.safe_text.printable`: an ESC would repaint
    the log)."""
    return printable(text.replace("\r\n", "\n").replace("\r", "\n")).replace("\n", " ⏎ ")


def escape_property(text: str) -> str:
    """A workflow command's property value (``file=``, ``title=``), escaped as the runner expects."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


@dataclass(frozen=True)
class Annotation:
    """One message GitHub shows beside a line of a file in the pull request's diff."""

    level: AnnotationLevel
    message: str
    path: str | None = None
    """Repository-relative POSIX path; None annotates the run instead of a file."""
    line: int | None = None
    title: str | None = None

    def command(self) -> str:
        """The workflow command line for this annotation (without the newline), secrets redacted."""
        properties = []
        if self.path:
            properties.append(f"file={escape_property(self.path)}")
        if self.line:
            properties.append(f"line={self.line}")
        if self.title:
            properties.append(f"title={escape_property(redact_text(self.title))}")
        joined = (" " + ",".join(properties)) if properties else ""
        return f"::{self.level}{joined}::{escape_data(redact_text(self.message))}"

    def log_line(self) -> str:
        """The annotation as a plain log line, for those past GitHub's caps."""
        where = self.path or ""
        if self.path and self.line:
            where += f":{self.line}"
        title = f" [{self.title}]" if self.title else ""
        text = f"{self.level}: {where}{title} {self.message}" if where else f"{self.level}:{title} {self.message}"
        return one_line_log(redact_text(text))


@dataclass(frozen=True)
class AnnotationOutcome:
    emitted: int
    logged: int
    """Annotations past the caps, printed as plain log lines instead."""


def annotate(
    annotations: Iterable[Annotation],
    write: Callable[[str], object],
    *,
    per_step: int = PER_STEP_CAP,
    per_job: int = PER_JOB_CAP,
) -> AnnotationOutcome:
    """Emit ``annotations`` as workflow commands within GitHub's caps; log the rest as plain lines.

    ``write`` receives whole lines including their newline (``sys.stdout.write``). The order
    within a level is kept (callers pass findings worst first, then by location).
    """
    by_level: dict[AnnotationLevel, list[Annotation]] = {level: [] for level in _LEVEL_ORDER}
    for annotation in annotations:
        by_level[annotation.level].append(annotation)
    shown: list[Annotation] = []
    rest: list[Annotation] = []
    for level in _LEVEL_ORDER:
        for annotation in by_level[level]:
            if sum(1 for a in shown if a.level == level) < per_step and len(shown) < per_job:
                shown.append(annotation)
            else:
                rest.append(annotation)
    for annotation in shown:
        write(annotation.command() + "\n")
    if rest:
        write(
            f"aces-ci: {len(rest)} more finding(s) not annotated (GitHub shows at most {per_step} per level per "
            f"step and {per_job} per job); all of them:\n"
        )
        for annotation in rest:
            write("  " + annotation.log_line() + "\n")
    return AnnotationOutcome(len(shown), len(rest))
