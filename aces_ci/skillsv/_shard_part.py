"""A shard's part file (``schemas/skillsv-value-part.schema.json``): what it measured and of which valuation.

The identity holds everything the merge needs to draw the design again and to refuse a part of
another valuation: aces-ci's version, the skill (its staged files' digest and its compiled game's),
the cases (ids and content digests), the seed, the oracle (its identity names the model, harness,
metric and judge of the live agent, or the Python function's source), and every estimator and value
setting. The records are the (operator, coalition, case, seed) → score answers the estimator consumes,
each with what it paid; a case's text never travels in a part, only its digest.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from .. import __version__
from ..skill import files_digest
from ._budget import Plan
from ._compile import compiled_json
from ._estimate import EstimatorSettings, ValuationStop
from ._model import CompiledSkill
from ._oracle import Task
from ._shard import Attempt, ScoreRecord, ShardDesign
from ._summary import DecisionRules
from ._valuate import ScoreSettings, Sessions, ValueSettings

PART_KIND = "skillsv-value-part"
PART_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class PartIdentity:
    """What must be identical in every part of one valuation (compared field by field by the merge)."""

    tool_version: str
    skill: str
    skill_dir: str
    """The compiled skill's folder, where the merge compiles it again (the same checkout path)."""
    skill_digest: str
    """sha256 of the skill's staged files."""
    game_digest: str
    """sha256 of the compiled game (units, edges, hierarchy): the same compiler on the same files."""
    dataset_digest: str
    cases: tuple[tuple[str, str], ...]
    """Per case of the panel, in order: its id and stratum (its content only by ``dataset_digest``)."""
    seed: int
    oracle: str
    """The oracle's identity (the live agent's names provider, model, harness, metric; a digest of the rest)."""
    model: str | None
    harness: str | None
    runs: int
    settings: ValueSettings
    plan: Plan | None
    design_digest: str
    design_scores: int


@dataclass(frozen=True)
class ValuePart:
    index: int
    count: int
    identity: PartIdentity
    owned: int
    """Scores of the design this shard pays for."""
    records: tuple[ScoreRecord, ...]
    stopped_by: ValuationStop | None
    """Why the shard stopped before scoring all it owns (a budget, the oracle); None: it scored them all."""
    error: str | None
    sessions: Sessions | None
    """The live agent's rollouts across sessions of this shard; None for a Python oracle."""

    @property
    def paid(self) -> int:
        return sum(attempt.rollouts for record in self.records for attempt in record.attempts)


def dataset_digest(tasks: Sequence[Task]) -> str:
    return hashlib.sha256("\n".join(task.digest for task in tasks).encode()).hexdigest()


def game_digest(game: CompiledSkill) -> str:
    return hashlib.sha256(json.dumps(compiled_json(game), sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _estimator_json(settings: EstimatorSettings) -> dict[str, Any]:
    return {**asdict(settings), "operators": list(settings.operators)}


def _estimator(data: dict[str, Any]) -> EstimatorSettings:
    return EstimatorSettings(**{**data, "operators": tuple(data["operators"])})


def settings_json(settings: ValueSettings) -> dict[str, Any]:
    return {
        "estimator": _estimator_json(settings.estimator),
        "score": asdict(settings.score),
        "exact": settings.exact,
        "holdout": settings.holdout,
        "rules": asdict(settings.rules),
        "bootstrap": settings.bootstrap,
        "values_from": settings.values_from,
        "adaptive": settings.adaptive,
    }


def _settings(data: dict[str, Any]) -> ValueSettings:
    return ValueSettings(
        estimator=_estimator(data["estimator"]),
        score=ScoreSettings(**data["score"]),
        exact=data["exact"],
        holdout=data["holdout"],
        rules=DecisionRules(**data["rules"]),
        bootstrap=data["bootstrap"],
        values_from=data["values_from"],
        adaptive=data["adaptive"],
    )


def part_identity(
    game: CompiledSkill,
    tasks: Sequence[Task],
    settings: ValueSettings,
    plan: Plan | None,
    design: ShardDesign,
    *,
    oracle: str,
    model: str | None,
    harness: str | None,
    runs: int,
) -> PartIdentity:
    return PartIdentity(
        tool_version=__version__,
        skill=game.name,
        skill_dir=game.skill_dir,
        skill_digest=files_digest(game.source),
        game_digest=game_digest(game),
        dataset_digest=dataset_digest(tasks),
        cases=tuple((task.id, task.stratum) for task in tasks),
        seed=settings.estimator.seed,
        oracle=oracle,
        model=model,
        harness=harness,
        runs=runs,
        settings=settings,
        plan=plan,
        design_digest=design.digest,
        design_scores=len(design.requests),
    )


def identity_json(identity: PartIdentity) -> dict[str, Any]:
    """The identity as JSON, its fields in the order the merge compares them (the first difference is named)."""
    plan = identity.plan
    return {
        "tool_version": identity.tool_version,
        "skill": identity.skill,
        "skill_dir": identity.skill_dir,
        "skill_digest": identity.skill_digest,
        "dataset_digest": identity.dataset_digest,
        "seed": identity.seed,
        "model": identity.model,
        "harness": identity.harness,
        "runs": identity.runs,
        "oracle": identity.oracle,
        "settings": settings_json(identity.settings),
        "plan": None
        if plan is None
        else {"settings": _estimator_json(plan.settings), "scores": plan.scores, "notes": list(plan.notes)},
        "cases": [{"id": case, "stratum": stratum} for case, stratum in identity.cases],
        "game_digest": identity.game_digest,
        "design_digest": identity.design_digest,
        "design_scores": identity.design_scores,
    }


def _attempt_json(attempt: Attempt) -> dict[str, Any]:
    return {"score": attempt.score, "rollouts": attempt.rollouts, "cost_usd": attempt.cost_usd, "error": attempt.error}


def part_json(part: ValuePart) -> dict[str, Any]:
    return {
        "kind": PART_KIND,
        "schema_version": PART_SCHEMA_VERSION,
        "shard": {"index": part.index, "count": part.count},
        "identity": identity_json(part.identity),
        "owned": part.owned,
        "stopped_by": part.stopped_by,
        "error": part.error,
        "sessions": None
        if part.sessions is None
        else {"earlier": part.sessions.earlier, "reused": part.sessions.reused},
        "records": [
            {
                "operator": record.operator,
                "members": sorted(record.members),
                "case": record.case,
                "seed": record.seed,
                "attempts": [_attempt_json(attempt) for attempt in record.attempts],
            }
            for record in part.records
        ],
    }


def part_from_json(data: dict[str, Any]) -> ValuePart:
    """A part from JSON the schema accepted; KeyError/TypeError/ValueError when its settings do not fit."""
    raw = data["identity"]
    plan = raw["plan"]
    identity = PartIdentity(
        tool_version=raw["tool_version"],
        skill=raw["skill"],
        skill_dir=raw["skill_dir"],
        skill_digest=raw["skill_digest"],
        game_digest=raw["game_digest"],
        dataset_digest=raw["dataset_digest"],
        cases=tuple((case["id"], case["stratum"]) for case in raw["cases"]),
        seed=raw["seed"],
        oracle=raw["oracle"],
        model=raw["model"],
        harness=raw["harness"],
        runs=raw["runs"],
        settings=_settings(raw["settings"]),
        plan=None if plan is None else Plan(_estimator(plan["settings"]), plan["scores"], tuple(plan["notes"])),
        design_digest=raw["design_digest"],
        design_scores=raw["design_scores"],
    )
    sessions = data["sessions"]
    return ValuePart(
        index=data["shard"]["index"],
        count=data["shard"]["count"],
        identity=identity,
        owned=data["owned"],
        records=tuple(
            ScoreRecord(
                record["operator"],
                frozenset(record["members"]),
                record["case"],
                record["seed"],
                tuple(
                    Attempt(attempt["score"], attempt["rollouts"], attempt["cost_usd"], attempt["error"])
                    for attempt in record["attempts"]
                ),
            )
            for record in data["records"]
        ),
        stopped_by=data["stopped_by"],
        error=data["error"],
        sessions=None if sessions is None else Sessions(sessions["earlier"], sessions["reused"]),
    )
