"""Run a task command (BYOT) and read the cases it prints, with the checks of ``evals.jsonl``.

The contract is in :mod:`aces_ci.evals._owned`. Every line of the output is parsed and checked
against the case schema; a problem names the output line and the case's JSON pointer
(``/3/prompt``: the fourth case). A command that cannot start, exits non-zero or prints more than
the limits is an input error (exit 2); one still running at its timeout is an infrastructure error
(exit 3), since a stalled service is not a broken dataset. Its stderr reaches a message only
through :func:`~aces_ci.evals._subprocess.tail_for_log`, redacted.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import InfraError, InputError
from ..skill import ParseProblem
from ._canonical import MAX_CASES, canonicalise
from ._document import Document, JsonPath
from ._json_source import parse_jsonl
from ._model import EvalCase
from ._owned import TaskCommand
from ._schema import schema_problems
from ._subprocess import CommandNotRunnable, run_argv, tail_for_log


@dataclass(frozen=True)
class TaskOutput:
    """The cases a task command printed, and what was wrong with them."""

    cases: tuple[EvalCase, ...]
    problems: tuple[ParseProblem, ...]


def _error(command: TaskCommand, message: str) -> InputError:
    return InputError(f"the task command `{command.label}` {message}", path=command.declared_in or None, field="tasks")


def _in_output(pointer: str | None) -> str | None:
    """A pointer into the wrapped document, made to point into the command's output (``/evals/3`` → ``/3``)."""
    return pointer[len("/evals") :] if pointer is not None and pointer.startswith("/evals/") else pointer


def read_task_output(text: str, skill_dir: Path, skill_name: str, source: str) -> TaskOutput:
    """The cases in a task command's stdout, each inheriting ``skill_name`` as evals.json cases do.

    No output at all is no case, not a bad one: a command serving every skill of a repository
    prints nothing for a skill it has no case for (the dataset then says the skill has none).
    """
    if not text.strip():
        return TaskOutput((), ())
    document = parse_jsonl(text)
    problems = list(document.problems)
    if not document.parsed:
        return TaskOutput((), tuple(problems))
    problems.extend(schema_problems(document))
    rows = document.data if isinstance(document.data, list) else []
    lines: dict[JsonPath, int] = {("evals", *path): line for path, line in document.lines.items()}
    wrapped = Document({"skill_name": skill_name, "evals": rows[:MAX_CASES]}, lines)
    canonical = canonicalise(wrapped, skill_dir, source)
    problems.extend(replace(problem, pointer=_in_output(problem.pointer)) for problem in canonical.problems)
    cases = tuple(replace(case, pointer=_in_output(case.pointer)) for case in canonical.cases)
    if len(rows) > MAX_CASES:
        problems.append(ParseProblem("too-many-cases", f"{len(rows):,} cases; at most {MAX_CASES:,} are read", 1))
    return TaskOutput(cases, tuple(problems))


def run_task_command(command: TaskCommand, skill_dir: Path, skill_name: str) -> TaskOutput:
    """Run ``command`` in ``skill_dir`` and read its cases; raises on a command that did not work."""
    try:
        output = run_argv(
            command.argv,
            cwd=command.cwd or skill_dir,
            timeout_s=command.timeout_s,
            extra_env={"ACES_SKILL_DIR": str(skill_dir), "ACES_SKILL_NAME": skill_name},
            pass_env=command.pass_env,
        )
    except CommandNotRunnable as exc:
        raise _error(command, f"cannot run: {exc}") from None
    stderr = tail_for_log(output.stderr)
    said = f"; it said:\n{stderr}" if stderr else ""
    if output.timed_out:
        raise InfraError(
            f"the task command `{command.label}` was still running after {command.timeout_s:g} s and was stopped{said}"
        )
    if output.returncode != 0:
        raise _error(command, f"exited with status {output.returncode}{said}")
    if output.truncated:
        raise _error(command, "printed more output than the limit; print one case per line, and nothing else")
    try:
        text = output.stdout.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _error(command, f"printed output that is not UTF-8 (byte {exc.start})") from None
    source = f"{command.declared_in} (tasks)" if command.declared_in else "tasks"
    return read_task_output(text, skill_dir, skill_name, source)
