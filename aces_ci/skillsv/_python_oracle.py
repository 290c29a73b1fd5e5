"""``--oracle python:MODULE:FUNC``: a user's Python function scores each rendered skill on each case.

``FUNC(skill_dir: str, case: dict, seed: int) -> float`` receives a temporary folder holding exactly
the rendered skill (an empty folder for the bare agent, ρ_del(∅)), the evals case object exactly as
written in the dataset (its own ``id``, ``prompt``, …; a copy, so the function may change it), and
the seed. MODULE is imported from the Python path: ``PYTHONPATH`` and the working directory.

A batch writes each distinct rendered skill once and hands the same folder to every case it is
scored on; before each call the folder is checked against the rendered bytes and rewritten if the
function changed it, so every call still sees exactly its skill (creating and removing a folder per
call costs milliseconds on a busy disk, more than many oracles take to score).

Errors, and their exit codes:

* before anything is scored (the spec is malformed, the module cannot be imported, FUNC is missing
  or not callable): :class:`~aces_ci.errors.ConfigError`, exit 2;
* while scoring (FUNC raises, or returns something that is not a finite number): the failing
  request comes back as a *fatal* outcome and nothing after it in the batch is run; every score
  returned before it is kept in the score cache, the valuation stops and reports what it has, and
  ``aces-ci value`` exits 3. A rerun resumes from the cache.

The scorer's identity (part of every cache key) includes a hash of the module's source file, so
editing the oracle invalidates its cached scores instead of silently reusing them.
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import math
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..redact import redact_text
from ._oracle import Outcome, ScoreRequest

PREFIX = "python:"


def _load(spec: str) -> tuple[Callable[..., Any], str]:
    """The callable a spec names and the hash of its module's source (empty when it has no file)."""
    body = spec[len(PREFIX) :]
    module_name, _, attribute = body.rpartition(":")
    if not module_name or not attribute:
        raise ConfigError(
            f"--oracle {spec!r}: expected python:MODULE:FUNC, e.g. python:my_oracle:score", field="--oracle"
        )
    cwd = str(Path.cwd())
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # an import runs user code: any failure is the user's configuration
        detail = redact_text(f"{type(exc).__name__}: {exc}")
        raise ConfigError(f"--oracle {spec!r}: cannot import {module_name!r}: {detail}", field="--oracle") from None
    target: Any = module
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise ConfigError(f"--oracle {spec!r}: {module_name!r} has no {attribute!r}", field="--oracle")
        target = getattr(target, part)
    if not callable(target):
        raise ConfigError(f"--oracle {spec!r}: {attribute!r} is not callable", field="--oracle")
    source = getattr(module, "__file__", None)
    digest = ""
    if source:
        try:
            digest = hashlib.sha256(Path(source).read_bytes()).hexdigest()[:16]
        except OSError:
            digest = ""
    return target, digest


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


class PythonScorer:
    """A :class:`~aces_ci.skillsv.SkillScorer` calling ``FUNC(skill_dir, case, seed)`` once per request."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.function, self._digest = _load(spec)

    @property
    def identity(self) -> str:
        return f"{self.spec}@{self._digest}"

    def _call(self, request: ScoreRequest, skill_dir: Path) -> Outcome:
        try:
            returned = self.function(str(skill_dir), copy.deepcopy(dict(request.task.case)), request.seed)
        except Exception as exc:
            detail = redact_text(f"{type(exc).__name__}: {exc}")
            return Outcome(None, error=f"{self.spec} raised on case {request.task.id!r}: {detail}", fatal=True)
        score = _number(returned)
        if score is None:
            shown = type(returned).__name__ if not isinstance(returned, float) else repr(returned)
            return Outcome(
                None, error=f"{self.spec} returned {shown} on case {request.task.id!r}, not a finite number", fatal=True
            )
        return Outcome(score, rollouts=1)

    def score(self, requests: Sequence[ScoreRequest]) -> list[Outcome]:
        outcomes: list[Outcome] = []
        folders: dict[str, Path] = {}
        with tempfile.TemporaryDirectory(prefix="aces-skillsv-") as tmp:
            for request in requests:
                folder = folders.get(request.render_digest)
                if folder is None:
                    folder = folders[request.render_digest] = Path(tmp) / str(len(folders)) / request.skill_name
                if not _holds_exactly(folder, request.files):
                    _write_tree(folder, request.files)
                outcome = self._call(request, folder)
                outcomes.append(outcome)
                if outcome.fatal:
                    skipped = Outcome(
                        None, rollouts=0, error="not run: the oracle failed earlier in the batch", fatal=True
                    )
                    outcomes.extend([skipped] * (len(requests) - len(outcomes)))
                    break
        return outcomes


def _files_under(folder: Path) -> dict[str, Path]:
    return {path.relative_to(folder).as_posix(): path for path in folder.rglob("*") if not path.is_dir()}


def _holds_exactly(folder: Path, files: Mapping[str, bytes]) -> bool:
    """Whether ``folder`` holds ``files`` and nothing else, byte for byte."""
    if not folder.is_dir():
        return False
    present = _files_under(folder)
    if set(present) != set(files):
        return False
    try:
        return all(present[rel].read_bytes() == data for rel, data in files.items())
    except OSError:
        return False


def _write_tree(folder: Path, files: Mapping[str, bytes]) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for rel, data in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
