"""A trial split over a workflow matrix: the partition into shards, the part file each shard writes, the merge's checks.

The work unit is (skill, case): every run of every condition of one case lands in one shard, because
the interval is clustered on the case and a pair (run r with, run r without) must be read together.
:func:`partition` splits the units of the whole design the same way on every machine: greedy
balance by expected cost, the units taken from the dearest down (ties by name), each to the shard
with the least load so far (ties to the lowest index). A unit's cost is the estimated tokens the
agent reads before it answers (the staged skills' files and the prompt, four bytes a token), summed
over its rollouts: cases × runs × conditions × staged-skill tokens.

A shard writes a :class:`TrialPart`: its identity (everything that changes a rollout or the
analysis), its units, and each rollout's ungraded result (ATIF trajectory included) with the grades
it was given. :func:`check_parts` is the merge's strictness, like the scan's: every shard 1..n once,
the same identity in all, no unit twice, and each shard holding exactly the units the partition
gave it. The merge then replays the ordinary trial over the parts (:class:`PartStore`,
:class:`StoredGrades`), so its result is the unsharded one by construction.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agents import HarnessName, HarnessOutcome, RolloutRequest, RolloutResult, Workspace
from ..engine import result_from_dict, result_to_dict
from ..errors import InputError
from ..grading import GRADE_STATUSES, Grades, GradeStatus, GradingInput, MetricGrade
from ..models import Usage
from ..scan import Shard
from ._result import Spent

PART_FORMAT = "aces-ci-trial-part"
PART_SCHEMA_VERSION = 1
BYTES_PER_TOKEN = 4
"""The estimate behind a unit's cost; only the balance depends on it, never a result."""

Unit = tuple[str, str]
"""(skill name, case id): the rollouts that stay together in one shard."""


def unit_of(request: RolloutRequest) -> Unit:
    return (request.skills.target, request.case.id)


def expected_tokens(request: RolloutRequest) -> int:
    """Tokens the agent reads at least in this rollout: every staged skill's files and the prompt."""
    staged = sum(len(data) for skill in request.skills.skills for data in skill.files.values())
    return 1 + (staged + len(request.case.prompt.encode("utf-8"))) // BYTES_PER_TOKEN


def partition(requests: Iterable[RolloutRequest], count: int) -> tuple[frozenset[Unit], ...]:
    """The units of ``requests`` in ``count`` shards balanced by expected cost; the same on every machine."""
    cost: dict[Unit, int] = {}
    for request in requests:
        unit = unit_of(request)
        cost[unit] = cost.get(unit, 0) + expected_tokens(request)
    loads = [0] * count
    shards: list[set[Unit]] = [set() for _ in range(count)]
    for unit in sorted(cost, key=lambda u: (-cost[u], u)):
        lightest = min(range(count), key=lambda i: (loads[i], i))
        shards[lightest].add(unit)
        loads[lightest] += cost[unit]
    return tuple(frozenset(shard) for shard in shards)


def design_digest(keys: Iterable[str]) -> str:
    """One digest of every rollout key of the whole design: the same skills, cases, conditions, seeds, runs,
    model and harness give the same digest, anything else a different one."""
    return hashlib.sha256("\n".join(sorted(set(keys))).encode("ascii")).hexdigest()


@dataclass(frozen=True)
class PartRecord:
    """One finished rollout of a shard: its ungraded result and the grades the shard gave it."""

    rollout: Mapping[str, str | int]
    """Case, condition, replicate, seed and skill: what a reader (and the merge's checks) joins it to."""
    result: RolloutResult
    grades: Grades | None


@dataclass(frozen=True)
class TrialPart:
    """What one shard of a sharded trial hands to the merge job."""

    shard: Shard
    identity: Mapping[str, Any]
    """Everything that changes a rollout or the analysis; equal in every shard of one trial."""
    invocation: tuple[str, ...]
    """The trial's command line after ``trial``: the merge replays it (its per-shard flags aside)."""
    grader: tuple[str, tuple[str, ...]]
    """The trial grader's name and metrics, so a replayed infrastructure error is graded as it was."""
    units: tuple[Unit, ...]
    records: tuple[PartRecord, ...]
    spent: Spent
    not_run: int = 0
    stopped_by: str | None = None


def _grades_to_dict(grades: Grades) -> dict[str, Any]:
    return {
        "grader": grades.grader,
        "metrics": [
            {"metric": g.metric, "status": g.status, "value": g.value, "reason": g.reason} for g in grades.metrics
        ],
        "usage": _usage_dict(grades.usage),
    }


_USAGE_COUNTS = ("prompt_tokens", "completion_tokens", "cache_read_tokens", "cache_write_tokens", "model_calls")


def _usage_dict(usage: Usage) -> dict[str, Any]:
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "cache_read_tokens": usage.cache_read_tokens,
        "cache_write_tokens": usage.cache_write_tokens,
        "cost_usd": usage.cost_usd,
        "model_calls": usage.model_calls,
    }


def part_to_dict(part: TrialPart) -> dict[str, Any]:
    """The part file's JSON (schemas/trial-part.schema.json); the caller writes it redacted."""
    return {
        "format": PART_FORMAT,
        "schema_version": PART_SCHEMA_VERSION,
        "shard": {"index": part.shard.index, "count": part.shard.count},
        "identity": dict(part.identity),
        "invocation": list(part.invocation),
        "grader": {"name": part.grader[0], "metrics": list(part.grader[1])},
        "units": [list(unit) for unit in part.units],
        "records": [
            {
                "rollout": dict(record.rollout),
                "result": result_to_dict(record.result),
                "grades": None if record.grades is None else _grades_to_dict(record.grades),
            }
            for record in part.records
        ],
        "spent": {
            "rollouts_run": part.spent.rollouts_run,
            "rollouts_reused": part.spent.rollouts_reused,
            "input_tokens": part.spent.input_tokens,
            "output_tokens": part.spent.output_tokens,
            "usd": part.spent.usd,
        },
        "not_run": part.not_run,
        "stopped_by": part.stopped_by,
    }


def _get(data: Mapping[str, Any], name: str, kind: Any, where: str) -> Any:
    value = data.get(name)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ValueError(f"{where}{name} is missing or not of type {getattr(kind, '__name__', kind)}")
    return value


def _grades_from(data: Any, where: str) -> Grades | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ValueError(f"{where}grades must be an object or null")
    metrics = []
    for entry in _get(data, "metrics", list, where):
        if not isinstance(entry, dict) or entry.get("status") not in GRADE_STATUSES:
            raise ValueError(f"{where}grades: a metric needs a name and one of the statuses {sorted(GRADE_STATUSES)}")
        status: GradeStatus = entry["status"]
        metrics.append(MetricGrade(_get(entry, "metric", str, where), status, entry.get("value"), entry.get("reason")))
    usage = _get(data, "usage", dict, where)
    counts = {name: _get(usage, name, int, f"{where}grades.usage.") for name in _USAGE_COUNTS}
    cost = _get(usage, "cost_usd", int | float, f"{where}grades.usage.")
    return Grades(_get(data, "grader", str, where), tuple(metrics), Usage(**counts, cost_usd=float(cost)))


def part_from_dict(data: Any, path: Path) -> TrialPart:
    """The :class:`TrialPart` of a part file's JSON; :class:`InputError` naming the file and field otherwise."""
    try:
        if not isinstance(data, dict) or data.get("format") != PART_FORMAT:
            raise ValueError(f"not an aces-ci trial part (format {PART_FORMAT!r})")
        if data.get("schema_version") != PART_SCHEMA_VERSION:
            raise ValueError(
                f"schema_version {data.get('schema_version')!r}; this aces-ci reads {PART_SCHEMA_VERSION}: "
                "merge parts written by the same aces-ci"
            )
        shard = _get(data, "shard", dict, "")
        grader = _get(data, "grader", dict, "")
        records = []
        for number, entry in enumerate(_get(data, "records", list, "")):
            where = f"records[{number}]."
            if not isinstance(entry, dict):
                raise ValueError(f"records[{number}] must be an object")
            rollout = _get(entry, "rollout", dict, where)
            if not all(isinstance(v, str | int) and not isinstance(v, bool) for v in rollout.values()):
                raise ValueError(f"{where}rollout holds a value that is not a string or a number")
            records.append(
                PartRecord(rollout, result_from_dict(entry.get("result")), _grades_from(entry.get("grades"), where))
            )
        units = []
        for unit in _get(data, "units", list, ""):
            if not (isinstance(unit, list) and len(unit) == 2 and all(isinstance(u, str) for u in unit)):
                raise ValueError("units must be [skill, case] pairs of strings")
            units.append((unit[0], unit[1]))
        spent = _get(data, "spent", dict, "")
        usd = spent.get("usd")
        invocation = _get(data, "invocation", list, "")
        if not all(isinstance(arg, str) for arg in invocation):
            raise ValueError("invocation must be a list of strings")
        stopped = data.get("stopped_by")
        return TrialPart(
            shard=Shard(_get(shard, "index", int, "shard."), _get(shard, "count", int, "shard.")),
            identity=_get(data, "identity", dict, ""),
            invocation=tuple(invocation),
            grader=(
                _get(grader, "name", str, "grader."),
                tuple(str(m) for m in _get(grader, "metrics", list, "grader.")),
            ),
            units=tuple(units),
            records=tuple(records),
            spent=Spent(
                _get(spent, "rollouts_run", int, "spent."),
                _get(spent, "rollouts_reused", int, "spent."),
                _get(spent, "input_tokens", int, "spent."),
                _get(spent, "output_tokens", int, "spent."),
                float(usd) if isinstance(usd, int | float) and not isinstance(usd, bool) else None,
            ),
            not_run=_get(data, "not_run", int, ""),
            stopped_by=stopped if isinstance(stopped, str) else None,
        )
    except (ValueError, TypeError) as exc:
        raise InputError(f"not a readable trial part: {exc}", path=str(path)) from None


def check_parts(parts: Sequence[tuple[Path, TrialPart]]) -> None:
    """The merge's strictness before any replay: exit 2 naming the file (see the module docstring)."""
    first_path, first = parts[0]
    count = first.shard.count
    seen: dict[int, Path] = {}
    for path, part in parts:
        if part.shard.count != count:
            raise InputError(f"shard {part.shard} does not belong to a split into {count}", path=str(path))
        if part.shard.index in seen:
            raise InputError(f"shard {part.shard} given twice (also {seen[part.shard.index]})", path=str(path))
        seen[part.shard.index] = path
        for name in sorted(set(first.identity) | set(part.identity)):
            if part.identity.get(name) != first.identity.get(name):
                raise InputError(
                    f"'{name}' differs from {first_path} ({part.identity.get(name)!r} vs "
                    f"{first.identity.get(name)!r}): parts must come from one trial",
                    path=str(path),
                )
        if part.grader != first.grader:
            raise InputError(
                f"graded with {part.grader[0]} over {list(part.grader[1])}, {first_path} with {first.grader[0]} over "
                f"{list(first.grader[1])}: parts must come from one trial",
                path=str(path),
            )
        if part.not_run or part.stopped_by is not None:
            raise InputError(
                f"shard {part.shard} stopped ({part.stopped_by}) with {part.not_run} rollout(s) of its units not run: "
                "rerun that shard (its cache makes it pay only the rest), then merge",
                path=str(path),
            )
    missing = sorted(set(range(1, count + 1)) - set(seen))
    if missing:
        raise InputError(
            f"shards missing: {', '.join(f'{i}/{count}' for i in missing)}; every shard must be merged",
            path=str(first_path),
        )
    owners: dict[Unit, Path] = {}
    for path, part in parts:
        for unit in part.units:
            if unit in owners:
                raise InputError(f"skill {unit[0]} case {unit[1]} is also in {owners[unit]}", path=str(path))
            owners[unit] = path


def check_against_design(
    parts: Sequence[tuple[Path, TrialPart]], shards: Sequence[frozenset[Unit]], keys_of: Mapping[Unit, set[str]]
) -> None:
    """Each part holds exactly its shard's units of the replayed design and a record for each of their rollouts."""
    for path, part in parts:
        expected = shards[part.shard.index - 1]
        held = set(part.units)
        if held != expected:
            extra = sorted(held - expected)
            lacking = sorted(expected - held)
            what = f"units not in this shard of the design: {extra[:3]}" if extra else f"units lacking: {lacking[:3]}"
            raise InputError(f"shard {part.shard} does not match the partition of this trial ({what})", path=str(path))
        keys = {record.result.key for record in part.records}
        wanted = set().union(*(keys_of[unit] for unit in expected)) if expected else set()
        if keys - wanted:
            raise InputError(
                f"shard {part.shard} holds {len(keys - wanted)} rollout(s) that are not in this trial's design: "
                "a part of another trial, or a checkout that differs from the shards'",
                path=str(path),
            )
        if wanted - keys:
            raise InputError(
                f"shard {part.shard} lacks {len(wanted - keys)} rollout(s) of its units: rerun that shard",
                path=str(path),
            )


class PartStore:
    """The merge's read-only :class:`~aces_ci.engine.RolloutStore`: the shards' results, nothing else.

    It serves infrastructure errors too (a cache never holds them), so the replay sees every
    rollout exactly as the shard that ran it did.
    """

    def __init__(self, records: Iterable[PartRecord]) -> None:
        self._results = {record.result.key: record.result for record in records}
        self.missing: list[str] = []

    def get(self, key: str) -> RolloutResult | None:
        result = self._results.get(key)
        if result is None:
            self.missing.append(key)
        return result

    def put(self, result: RolloutResult, rollout: Mapping[str, str | int] | None = None) -> bool:
        return False


class StoredGrades:
    """The merge's grader: each rollout's grades as its shard gave them (a judge is never called again)."""

    def __init__(self, name: str, metrics: tuple[str, ...], records: Iterable[PartRecord]) -> None:
        self.name = name
        self.metrics = metrics
        self._grades = {record.result.key: record.grades for record in records}

    async def grade(self, rollout: GradingInput) -> Grades:
        grades = self._grades.get(rollout.result.key)
        if grades is None:
            raise RuntimeError(f"no stored grades for rollout {rollout.result.key}")
        return grades


class RecordedHarness:
    """The harness of the merge's replay: the shards' harness identity and version, and no way to run.

    The merge job needs no model, key or CLI agent: every rollout comes from the parts, and the
    replay's budget of zero launches means this ``run`` is never reached; it refuses if it were.
    """

    def __init__(self, name: HarnessName, identity: str, version: str) -> None:
        self.name: HarnessName = name
        self._identity = identity
        self._version = version

    def version(self) -> str:
        return self._version

    def cache_identity(self) -> str:
        return self._identity

    def skill_root(self, workspace_root: Path, home: Path) -> Path:
        return workspace_root / ".agents" / "skills"

    async def run(self, request: RolloutRequest, workspace: Workspace) -> HarnessOutcome:
        raise RuntimeError("a merge replays the shards' rollouts and never runs one")
