"""Tasks and graders the product already owns: how a dataset declares them (BYOT, BYOG).

Both are declared at the top level of evals.json (or given by the caller, e.g. from aces.yml), and
both are run without a shell, in the skill directory, with a timeout:

``"tasks": {"command": ["python3", "tools/export_cases.py"], "timeout_s": 60}``
    **Bring your own tasks.** The command prints cases on stdout, one JSON object per line, in any
    case dialect of ``schemas/evals.schema.json`` (``{"id": "refund-1", "prompt": "…",
    "expected_output": "45"}``). It must exit 0. Its environment is the caller's, secrets removed, plus
    ``ACES_SKILL_DIR`` and ``ACES_SKILL_NAME``, so one command can serve every skill of a
    repository. Model keys, GitHub tokens and other secrets are not in it: aces.yml's ``env`` names
    the variables a command of aces.yml needs (a dataset's own command cannot ask). Its stderr is
    shown (redacted, last lines) only when it fails. Each line is checked
    like a line of ``evals.jsonl``: an error names the output line and its JSON pointer
    (``/3/prompt``, the fourth case).

``"grader": {"command": ["python3", "evals/grade.py"], "metrics": ["bleu"], "timeout_s": 60}``
    **Bring your own grader.** ``command`` is a list of words, or ``"python:MODULE:FUNC"``. The
    grader reads one JSON document (``schemas/grader-input.schema.json``: the case, the final
    answer, where the agent's files and the trajectory are) and answers one
    (``schemas/grader-output.schema.json``: a value or a status per metric). It must return
    exactly the ``metrics`` it declares, so when it fails each of them is a ``grader_error`` with
    the reason, never a silent gap. :mod:`aces_ci.grading` runs it.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_TIMEOUT_S = 60.0
PYTHON_PREFIX = "python:"


@dataclass(frozen=True)
class TaskCommand:
    """A command that prints cases as JSON lines (BYOT)."""

    argv: tuple[str, ...]
    timeout_s: float = DEFAULT_TIMEOUT_S
    declared_in: str = ""
    """Where it was declared (``skills/x/evals/evals.json``, ``aces.yml``), for error messages."""
    cwd: Path | None = None
    """Where it runs; None: the skill directory (a command of evals.json). aces.yml's run beside aces.yml."""
    pass_env: tuple[str, ...] = ()
    """Variables passed on from our environment though secret-looking (aces.yml's ``env``); see ``run_argv``."""

    @property
    def label(self) -> str:
        return shlex.join(self.argv)


@dataclass(frozen=True)
class GraderSpec:
    """A grader the product owns (BYOG): a command or a Python function, and the metrics it returns."""

    metrics: tuple[str, ...]
    argv: tuple[str, ...] = ()
    """The command's words; empty for a Python grader."""
    python: tuple[str, str] | None = None
    """(module, function) for ``python:MODULE:FUNC``."""
    timeout_s: float = DEFAULT_TIMEOUT_S
    cwd: Path = Path()
    """Where the command runs and where a Python grader's module is looked up first: the skill directory."""
    declared_in: str = ""
    pass_env: tuple[str, ...] = ()
    """Variables passed on to the command though secret-looking (aces.yml's ``env``); see ``run_argv``."""

    @property
    def label(self) -> str:
        if self.python is not None:
            return f"{PYTHON_PREFIX}{self.python[0]}:{self.python[1]}"
        return shlex.join(self.argv)

    def cache_identity(self) -> str:
        """What a grade of this grader depends on, as far as the spec can tell (the grader's code may change)."""
        return json.dumps([self.label, self.metrics], separators=(",", ":"))


def _argv(value: object) -> tuple[str, ...] | None:
    if isinstance(value, list) and value and all(isinstance(word, str) and word for word in value):
        return tuple(value)
    return None


def _timeout(value: object) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= 3600:
        return float(value)
    return DEFAULT_TIMEOUT_S


def task_command_from(value: object, declared_in: str, cwd: Path | None = None) -> TaskCommand | None:
    """The ``tasks`` entry of a dataset or of aces.yml, or None when absent or malformed (the schema reports why)."""
    if not isinstance(value, dict):
        return None
    argv = _argv(value.get("command"))
    return TaskCommand(argv, _timeout(value.get("timeout_s")), declared_in, cwd) if argv else None


def parse_python_target(text: str) -> tuple[str, str] | None:
    """``python:pkg.mod:func`` → ``("pkg.mod", "func")``; None when it is not of that shape."""
    if not text.startswith(PYTHON_PREFIX):
        return None
    module, _, function = text[len(PYTHON_PREFIX) :].rpartition(":")
    parts = [*module.split("."), function] if module else []
    if not parts or not all(part.isidentifier() for part in parts):
        return None
    return module, function


def grader_from(value: object, cwd: Path, declared_in: str) -> GraderSpec | None:
    """The ``grader`` entry of a dataset, or None when absent or malformed (the schema reports why)."""
    if not isinstance(value, dict):
        return None
    metrics: Any = value.get("metrics")
    if not isinstance(metrics, list) or not metrics or not all(isinstance(m, str) and m for m in metrics):
        return None
    command = value.get("command")
    timeout_s = _timeout(value.get("timeout_s"))
    names = tuple(dict.fromkeys(metrics))
    if isinstance(command, str):
        target = parse_python_target(command)
        if target is None:
            return None
        return GraderSpec(names, python=target, timeout_s=timeout_s, cwd=cwd, declared_in=declared_in)
    argv = _argv(command)
    if argv is None:
        return None
    return GraderSpec(names, argv=argv, timeout_s=timeout_s, cwd=cwd, declared_in=declared_in)
