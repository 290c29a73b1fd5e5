"""``aces-ci merge`` of SkillSV value parts: the shards' scores replayed into the one valuation.

Strict, as the scan's merge is, because a valuation missing a shard's scores is not the valuation
that was asked for: every shard 1..n exactly once, every part of one valuation (aces-ci version, skill,
cases, seed, model, oracle and every setting identical), no score twice, each score in the part of
the shard the split gives it, and every shard that finished holding all its scores; else an
:class:`InputError` (exit 2) naming the file.

The value report is then not assembled from pieces: the ordinary :func:`~aces_ci.skillsv.valuate`
runs again on the skill compiled afresh (at the path the parts name: run the merge in a checkout of
the same commit) with a :class:`~aces_ci.skillsv.RecordedOracle` that answers only from the parts'
records. It asks for the same scores in the same order as an unsharded run and gets the same
answers, so the values, intervals, decisions and costs are the unsharded run's by construction. A
score no part holds is an input error naming the shard that owes it, unless that shard stopped early
(a budget, the oracle down): then the valuation stops there, as an unsharded run would have.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from .. import __version__
from ..engine import BudgetCap
from ..errors import InputError
from ..skill import files_digest
from ..skillsv import (
    CompiledSkill,
    Outcome,
    RecordedOracle,
    ScoreKey,
    ScoreRecord,
    Sessions,
    ShardDesign,
    Task,
    ValuePart,
    ValueReport,
    compile_skill,
    game_digest,
    identity_json,
    key_text,
    score_key,
    shard_design,
    valuate,
)

_CAPS: dict[str, BudgetCap] = {"max_rollouts": "max_rollouts", "budget_usd": "budget_usd", "max_wall": "max_wall"}


def _check_shards(parts: Sequence[tuple[Path, ValuePart]]) -> None:
    count = parts[0][1].count
    seen: dict[int, Path] = {}
    for path, part in parts:
        if part.count != count:
            raise InputError(f"shard {part.index}/{part.count} does not belong to a split into {count}", path=str(path))
        if part.index in seen:
            raise InputError(f"shard {part.index}/{count} given twice (also {seen[part.index]})", path=str(path))
        seen[part.index] = path
    missing = sorted(set(range(1, count + 1)) - set(seen))
    if missing:
        raise InputError(
            f"shards missing: {', '.join(f'{i}/{count}' for i in missing)}; every shard must be merged",
            path=str(parts[0][0]),
        )


def _difference(first: Any, other: Any, name: str) -> tuple[str, Any, Any] | None:
    """The first field (dotted) where two identities differ, with both values."""
    if isinstance(first, dict) and isinstance(other, dict):
        for key in first:
            found = _difference(first[key], other.get(key), f"{name}.{key}")
            if found is not None:
                return found
        return None
    return None if first == other else (name, first, other)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _check_identity(parts: Sequence[tuple[Path, ValuePart]]) -> None:
    first_path, first = parts[0]
    reference = identity_json(first.identity)
    for path, part in parts[1:]:
        found = _difference(reference, identity_json(part.identity), "identity")
        if found is not None:
            name, mine, theirs = found
            raise InputError(
                f"'{name.removeprefix('identity.')}' differs from {first_path} ({_short(theirs)} vs {_short(mine)}); "
                "every part must come from one valuation (aces-ci, skill, cases, seed, model, oracle and settings)",
                path=str(path),
            )
    if first.identity.tool_version != __version__:
        raise InputError(
            f"the parts were made by aces-ci {first.identity.tool_version}; merge them with that version "
            f"(this is {__version__})",
            path=str(first_path),
        )


def _records(parts: Sequence[tuple[Path, ValuePart]], design: ShardDesign) -> dict[ScoreKey, ScoreRecord]:
    """Every part's records by key, each in its own shard's part and in one part only."""
    records: dict[ScoreKey, ScoreRecord] = {}
    found_in: dict[ScoreKey, Path] = {}
    count = design.count
    for path, part in parts:
        for record in part.records:
            key = record.key
            owner = design.owner.get(key)
            if owner is None:
                raise InputError(f"score {key_text(key)} is not in this valuation's design", path=str(path))
            if key in records:
                raise InputError(f"score {key_text(key)} is also in {found_in[key]}", path=str(path))
            if owner != part.index:
                raise InputError(
                    f"score {key_text(key)} belongs to shard {owner}/{count}, not {part.index}/{count}", path=str(path)
                )
            records[key], found_in[key] = record, path
    for path, part in parts:
        owned = design.owned(part.index)
        if part.owned != len(owned):
            raise InputError(
                f"shard {part.index}/{count} says it owns {part.owned} scores; the split gives it {len(owned)}",
                path=str(path),
            )
        if part.stopped_by is None:
            lacking = [score_key(request) for request in owned if score_key(request) not in records]
            if lacking:
                key = lacking[0]
                raise InputError(
                    f"shard {part.index}/{count} lacks {len(lacking)} of its {len(owned)} scores "
                    f"(first: {key_text(key)}) and does not say it stopped early",
                    path=str(path),
                )
    return records


def _compiled(part: ValuePart, path: Path) -> CompiledSkill:
    identity = part.identity
    skill_dir = Path(identity.skill_dir)
    if not (skill_dir / "SKILL.md").is_file():
        raise InputError(
            f"the skill these parts valued is not at {skill_dir}: merge in a checkout of the same commit, at the "
            "same path as the shards",
            path=str(path),
        )
    game = compile_skill(skill_dir)
    if files_digest(game.source) != identity.skill_digest:
        raise InputError(
            f"the skill at {skill_dir} is not the one the shards valued: its files changed", path=str(path)
        )
    if game_digest(game) != identity.game_digest:
        raise InputError(f"the skill at {skill_dir} compiles to another game than the shards'", path=str(path))
    return game


def merge_value(parts: Sequence[tuple[Path, ValuePart]]) -> ValueReport:
    """The value report of the valuation the ``parts`` (path, part) split; InputError as the module docstring says."""
    if not parts:
        raise InputError("no value parts to merge")
    _check_shards(parts)
    _check_identity(parts)
    first_path, first = parts[0]
    identity = first.identity
    game = _compiled(first, first_path)
    tasks = [Task(case, {}, stratum) for case, stratum in identity.cases]
    design = shard_design(game, tasks, identity.settings, identity.plan, first.count)
    if design.digest != identity.design_digest:
        raise InputError(
            "this aces-ci draws another design from these settings than the shards did", path=str(first_path)
        )
    records = _records(parts, design)
    by_index: Mapping[int, tuple[Path, ValuePart]] = {part.index: (path, part) for path, part in parts}

    def missing(key: ScoreKey) -> Outcome:
        owner = design.owner.get(key)
        if owner is None:
            raise InputError(
                f"the valuation asked for {key_text(key)}, outside the parts' design", path=str(first_path)
            )
        path, part = by_index[owner]
        if part.stopped_by is None:
            raise InputError(f"no score for {key_text(key)} in shard {owner}/{design.count}", path=str(path))
        reason = part.error or f"shard {owner}/{design.count} stopped early ({part.stopped_by})"
        cap = _CAPS.get(part.stopped_by)
        fatal = part.stopped_by == "oracle_error"
        return Outcome(None, rollouts=0, error=reason, fatal=fatal, budget_stop=not fatal, cap=cap)

    oracle = RecordedOracle(identity.oracle, records, missing)
    report = valuate(game, tasks, oracle, identity.settings, identity.plan)
    sessions = [part.sessions for _, part in parts if part.sessions is not None]
    if sessions:
        report = replace(report, sessions=Sessions(sum(s.earlier for s in sessions), sum(s.reused for s in sessions)))
    return report
