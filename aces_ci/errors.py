"""The exception tree of aces-ci, and the exit code each branch maps to.

::

    AcesError                       base; never raised itself
    ├── InputError       (exit 2)   a file the user gave us is unusable: names the file, line, field
    │   └── ConfigError  (exit 2)   aces.yml or a command-line setting is invalid
    └── InfraError       (exit 3)   something outside the skill failed: model API, harness, disk

The gate's own verdict (exit 0 pass, 1 fail) is not an exception: see :mod:`aces_ci.gate`.
"""

from __future__ import annotations

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
