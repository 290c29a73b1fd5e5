"""The exception tree of aces-ci, and the exit code each branch maps to.

::

    AcesError                       base; never raised itself
    ├── InputError       (exit 2)   a file the user gave us is unusable: names the file, line, field
    │   └── ConfigError  (exit 2)   aces.yml or a command-line setting is invalid
    └── InfraError       (exit 3)   something outside the skill failed: model API, harness, disk

The gate's own verdict (exit 0 pass, 1 fail) is not an exception: see :mod:`aces_ci.gate`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

EXIT_PASS = 0
EXIT_GATE_FAILED = 1
EXIT_INPUT_ERROR = 2
EXIT_RUNTIME_ERROR = 3


class AcesError(Exception):
    """Base of every error aces-ci raises on purpose."""

    exit_code = EXIT_RUNTIME_ERROR


class InputError(AcesError):
    """A user-supplied file or value is unusable.

    The message always names where: ``path``, and ``line`` / ``field`` when known, so a CI log
    line is enough to find and fix the problem.
    """

    exit_code = EXIT_INPUT_ERROR

    def __init__(
        self, message: str, *, path: str | None = None, line: int | None = None, field: str | None = None
    ) -> None:
        self.path = path
        self.line = line
        self.field = field
        super().__init__(message)

    def __str__(self) -> str:
        where = self.path or ""
        if self.path and self.line:
            where += f":{self.line}"
        if self.field:
            where += f" ({self.field})" if where else self.field
        base = super().__str__()
        return f"{where}: {base}" if where else base


class ConfigError(InputError):
    """aces.yml, a CLI flag or an environment setting is invalid."""


class InfraError(AcesError):
    """A model API, a harness or the machine failed; the skill is not to blame."""

    exit_code = EXIT_RUNTIME_ERROR


@dataclass(frozen=True)
class ConfigSource:
    """Where a group of settings was written, so a check made long after loading can point at the line.

    Settings are validated in the room that uses them (the scan checks rule ids against its
    registry); the file they came from is known only to the config loader. This small record
    travels with the settings and turns a field path into ``aces.yml:12 (scan.rules.X)``.
    """

    path: Path | None = None
    field_lines: Mapping[str, int] = field(default_factory=dict)
    """Line of each field by dotted path (``scan.rules.SPEC001``, ``scan.ignore[0].rule``)."""

    def error(self, message: str, field: str) -> ConfigError:
        """A :class:`ConfigError` about ``field``, naming the file and the field's line when known."""
        return ConfigError(
            message, path=str(self.path) if self.path else None, line=self.field_lines.get(field), field=field
        )
