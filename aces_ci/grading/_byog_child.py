"""The process a ``python:MODULE:FUNC`` grader runs in: ``python -c <this file's text> MODULE FUNC``.

A Python grader is code from the skill's repository (``evals.json`` travels with a pull request), so it
runs the way a grader command does: in its own process, in the skill directory, with the secrets
removed from its environment, stopped at its timeout. In-process it would have seen every model key
and token of the job and could only be abandoned, not stopped, when it hung.

Only the standard library is used here: the text is handed to the interpreter with ``-c`` (so the
skill directory, not this package, is first on ``sys.path``), and nothing of aces-ci is imported.
The grader input arrives on stdin; the answer leaves on stdout as one JSON document. What the grader
itself prints goes to stderr, so a stray ``print`` cannot corrupt the answer. A failure is one line on
stderr starting with :data:`FAILURE_MARK`, and exit status :data:`FAILURE_STATUS`.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import inspect
import json
import sys
from pathlib import Path
from typing import Any

FAILURE_MARK = "aces-ci grader failure: "
FAILURE_STATUS = 3


class _Failed(Exception):
    """The grader could not be loaded or called; the message says why."""


def _module(module_name: str) -> Any:
    """A file of the skill directory (the working directory) by its path, else an import from ``sys.path``."""
    candidate = Path(*module_name.split(".")).with_suffix(".py")
    try:
        if candidate.is_file():
            loader_spec = importlib.util.spec_from_file_location(module_name, candidate)
            if loader_spec is None or loader_spec.loader is None:
                raise _Failed(f"cannot load {candidate}")
            module = importlib.util.module_from_spec(loader_spec)
            sys.modules[module_name] = module
            loader_spec.loader.exec_module(module)
            return module
        return importlib.import_module(module_name)
    except _Failed:
        raise
    except BaseException as exc:  # an import runs the grader's code: any failure is the grader's
        raise _Failed(f"cannot import {module_name}: {type(exc).__name__}: {exc}") from None


def _answer(module_name: str, function_name: str, document: Any) -> Any:
    function = getattr(_module(module_name), function_name, None)
    if not callable(function):
        raise _Failed(f"{module_name} has no function {function_name}")
    try:
        result = function(document)
        if inspect.isawaitable(result):
            result = asyncio.run(_awaited(result))
        return result
    except BaseException as exc:  # the grader's own bug is reported, never a traceback for a score
        raise _Failed(f"raised {type(exc).__name__}: {exc}") from None


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


def main(argv: list[str]) -> int:
    module_name, function_name = argv
    answer_stream = sys.stdout
    sys.stdout = sys.stderr  # the grader's own prints must not mix with the answer
    try:
        document = json.load(sys.stdin)
        answer = _answer(module_name, function_name, document)
        text = json.dumps(answer)
    except _Failed as exc:
        print(FAILURE_MARK + str(exc).replace("\n", " "), file=sys.stderr)
        return FAILURE_STATUS
    except (TypeError, ValueError) as exc:
        print(FAILURE_MARK + f"returned something that is not JSON: {exc}", file=sys.stderr)
        return FAILURE_STATUS
    answer_stream.write(text)
    answer_stream.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
