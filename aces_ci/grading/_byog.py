"""Run a grader the product owns (BYOG) on one rollout and read its grades, failures included.

The contract (declared in evals.json, see :mod:`aces_ci.evals`): the grader gets
``schemas/grader-input.schema.json`` (the case, the final answer, the files the agent left under
``artifacts_dir``, the trajectory at ``trajectory_path``; both in a temporary folder removed
afterwards) and answers ``schemas/grader-output.schema.json``: for each metric it declared, a
value in [0, 1] or a status with a reason. A command reads the input on stdin and prints the
answer on stdout; ``python:MODULE:FUNC`` is called with the input as a dict (sync or async) and
returns the answer as a dict; MODULE is a file of the skill directory when there is one, else
imported from the child's ``sys.path`` (the working directory, then ``PYTHONPATH``).

Both kinds run in a process of their own (:mod:`._byog_child` for Python), in the skill directory,
with the environment of :func:`~aces_ci.evals.command_environment`: a grader travels with a pull
request, so it never sees a model key or a token, and two skills' ``grade.py`` never share a module.

Nothing a grader does can crash a trial or pass for a score. A grader that cannot start, exits
non-zero, overruns its timeout, raises, prints something that is not the answer, leaves out a
declared metric or adds an undeclared one gives ``grader_error`` for every metric it owed (for a
missing one, that one), with the reason; its stderr appears only redacted. A grader past its
timeout is stopped with every process it started.

A grader's metric named like a built-in one (``accuracy``…) replaces the built-in grade of that
rollout: the product's own grader is the authority on its own tasks. A ``cost_usd`` it reports
is booked on its first metric, so a cost sums once.
"""

from __future__ import annotations

import asyncio
import functools
import json
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..evals import CommandNotRunnable, CommandOutput, GraderSpec, run_argv, tail_for_log
from ..redact import redact_text
from ..schemas import validator
from ..skill import safe_relative_path
from ._byog_child import FAILURE_MARK, FAILURE_STATUS
from ._types import Cost, MetricResult, RolloutFacts, graded, ungraded

INPUT_FORMAT = "aces-ci-grader-input"
INPUT_VERSION = 1


def grader_input(spec: GraderSpec, grading: RolloutFacts, artifacts_dir: Path, trajectory_path: Path) -> dict[str, Any]:
    """The input document of ``schemas/grader-input.schema.json`` for one rollout."""
    case = grading.case
    return {
        "format": INPUT_FORMAT,
        "version": INPUT_VERSION,
        "skill": grading.skill,
        "skill_staged": grading.skill_staged,
        "case": {
            "id": case.id,
            "prompt": case.prompt,
            "expected_output": case.expected_output,
            "assertions": list(case.assertions),
            "match": case.match,
            "should_trigger": case.should_trigger,
            "expected_skill": case.expected_skill,
            "expected_script": case.expected_script,
            "files": list(case.files),
        },
        "status": grading.figures.status,
        "end_reason": grading.figures.end_reason,
        "final_answer": grading.final_answer,
        "artifacts_dir": str(artifacts_dir),
        "artifacts": sorted(p for p, data in grading.artifacts.items() if data is not None),
        "artifacts_omitted": sorted(p for p, data in grading.artifacts.items() if data is None),
        "artifacts_complete": grading.artifacts_complete,
        "trajectory_path": str(trajectory_path),
        "skill_events": [{k: v for k, v in asdict(e).items() if v is not None} for e in grading.skill_events],
        "figures": {
            "tokens": grading.figures.tokens,
            "turns": grading.figures.turns,
            "duration_s": grading.figures.duration_s,
        },
        "metrics": list(spec.metrics),
    }


def _materialise(folder: Path, grading: RolloutFacts) -> tuple[Path, Path]:
    artifacts_dir = folder / "artifacts"
    artifacts_dir.mkdir()
    for rel, data in grading.artifacts.items():
        safe = safe_relative_path(rel)
        if safe is None or data is None:
            continue  # the engine never captures such a path; a hand-made mapping must not escape the folder
        target = artifacts_dir / safe
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    trajectory_path = folder / "trajectory.json"
    trajectory_path.write_text(json.dumps(grading.trajectory, ensure_ascii=False), encoding="utf-8")
    return artifacts_dir, trajectory_path


class _GraderFailed(Exception):
    """The grader did not produce a usable answer; the message says why."""


def _output(
    spec: GraderSpec, argv: Sequence[str], document: dict[str, Any], extra_env: Mapping[str, str] | None = None
) -> CommandOutput:
    """The grader's process run on ``document`` (in the skill directory, secrets removed, stopped at its
    timeout: :func:`~aces_ci.evals.run_argv`); one that cannot start is the grader's failure."""
    try:
        return run_argv(
            argv,
            cwd=spec.cwd,
            stdin=json.dumps(document).encode("utf-8"),
            timeout_s=spec.timeout_s,
            extra_env=extra_env,
            pass_env=spec.pass_env,
        )
    except CommandNotRunnable as exc:
        raise _GraderFailed(str(exc)) from None


def _run_command(spec: GraderSpec, document: dict[str, Any]) -> Any:
    output = _output(spec, spec.argv, document)
    stderr = tail_for_log(output.stderr)
    said = f"; it said: {stderr}" if stderr else ""
    if output.timed_out:
        raise _GraderFailed(f"still running after {spec.timeout_s:g} s, stopped{said}")
    if output.returncode != 0:
        raise _GraderFailed(f"exited with status {output.returncode}{said}")
    try:
        return json.loads(output.stdout)
    except ValueError:
        raise _GraderFailed(f"did not print one JSON object on stdout{said}") from None


@functools.cache
def _child_source() -> str:
    """The child interpreter's program (:mod:`._byog_child`), read once per process, not once per grade."""
    return Path(__file__).with_name("_byog_child.py").read_text(encoding="utf-8")


_CHILD_ENV = {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8"}
"""No ``__pycache__`` left in the skill directory (it would change the skill's digest), UTF-8 both ways."""


def _run_python(spec: GraderSpec, document: dict[str, Any]) -> Any:
    """Call ``python:MODULE:FUNC`` in a child interpreter (see :mod:`._byog_child`) and read its answer."""
    assert spec.python is not None
    module_name, function_name = spec.python
    argv = (sys.executable, "-c", _child_source(), module_name, function_name)
    output = _output(spec, argv, document, _CHILD_ENV)
    if output.timed_out:
        raise _GraderFailed(f"did not return within {spec.timeout_s:g} s")
    if output.returncode == FAILURE_STATUS:
        said = output.stderr.decode("utf-8", errors="replace").splitlines()
        failure = [line[len(FAILURE_MARK) :] for line in said if line.startswith(FAILURE_MARK)]
        if failure:
            raise _GraderFailed(tail_for_log(failure[-1].encode("utf-8")))  # redacted and capped, as any stderr
    if output.returncode != 0:
        stderr = tail_for_log(output.stderr)
        raise _GraderFailed(f"exited with status {output.returncode}" + (f"; it said: {stderr}" if stderr else ""))
    try:
        return json.loads(output.stdout)
    except ValueError:
        raise _GraderFailed("did not return one JSON object") from None


def _read_answer(spec: GraderSpec, answer: Any, grader: str) -> dict[str, MetricResult]:
    errors = sorted(validator("grader-output").iter_errors(answer), key=lambda e: list(e.absolute_path))
    if errors:
        where = "/" + "/".join(str(p) for p in errors[0].absolute_path)
        raise _GraderFailed(f"answered something other than schemas/grader-output.schema.json (at {where})")
    metrics: Mapping[str, Mapping[str, Any]] = answer["metrics"]
    extra = sorted(set(metrics) - set(spec.metrics))
    if extra:
        raise _GraderFailed(f"returned metrics it did not declare: {', '.join(extra)}")
    cost = Cost(usd=float(answer.get("cost_usd", 0.0)))
    grades: dict[str, MetricResult] = {}
    for position, name in enumerate(spec.metrics):
        booked = cost if position == 0 else Cost()
        entry = metrics.get(name)
        if entry is None:
            grades[name] = ungraded(name, "grader_error", f"{grader} did not return {name}", grader=grader)
        elif "value" in entry:
            reason = str(entry.get("reason") or f"graded by {grader}")
            grades[name] = graded(name, float(entry["value"]), reason, cost=booked, grader=grader)
        else:
            grades[name] = ungraded(name, entry["status"], str(entry["reason"]), cost=booked, grader=grader)
    return grades


async def run_byog(spec: GraderSpec, grading: RolloutFacts) -> dict[str, MetricResult]:
    """The grades ``spec``'s grader gives one rollout: one per declared metric, never an exception."""
    grader = f"byog:{spec.label}"
    try:
        with tempfile.TemporaryDirectory(prefix="aces-byog-") as folder:
            artifacts_dir, trajectory_path = _materialise(Path(folder), grading)
            document = grader_input(spec, grading, artifacts_dir, trajectory_path)
            run = _run_python if spec.python is not None else _run_command
            answer = await asyncio.to_thread(run, spec, document)
        return _read_answer(spec, answer, grader)
    except _GraderFailed as exc:
        reason = redact_text(f"the grader {spec.label} {exc}")
        return {name: ungraded(name, "grader_error", reason, grader=grader) for name in spec.metrics}
