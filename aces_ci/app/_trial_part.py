"""One shard of a trial split over a workflow matrix: run its (skill, case) units, return its part.

``aces-ci trial … --shard i/n --part FILE`` comes here instead of :func:`aces_ci.app.trial`. The
skills, datasets and engine are the trial's own (the same cache, journal, budget, guard and
grader), the design's requests are partitioned with :func:`aces_ci.trials.partition`, and only
shard i's are run. Nothing is analysed here: the merge job replays the analysis over every part
(:mod:`aces_ci.app._merge_trial`). A sequential trial is refused: its looks read every case's
scores, which no shard holds (ARCHITECTURE.md, "A trial over a workflow matrix").
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import __version__
from ..agents import Harness
from ..config import Project, TrialConfig
from ..errors import EXIT_PASS, EXIT_RUNTIME_ERROR, ConfigError
from ..scan import Shard
from ..trials import (
    PartRecord,
    SkillUnderTrial,
    TrialPart,
    design_digest,
    partition,
)
from ._inputs import SkillSources, skills_under_trial
from ._trial import open_runner, refuse_unpriced_cap


def _plain(value: Any) -> Any:
    """A config value as plain JSON (tuples as lists, paths as text), so parts compare equal after a round trip."""
    return json.loads(json.dumps(value, default=str))


def trial_identity(
    config: TrialConfig, harness: Harness, keys: Sequence[str], skills: Sequence[SkillUnderTrial]
) -> dict[str, Any]:
    """Everything that changes a rollout or its analysis: equal in every shard of one trial, checked by the merge.

    ``design`` digests every rollout key of the whole design, which covers the skills' rendered files,
    the cases, conditions, seeds, runs, model settings and the harness's identity at once; the named
    fields beside it say which of them differs when a part is foreign.
    """
    run = config.run
    return {
        "tool_version": __version__,
        "provider": run.model.provider,
        "model": run.model.model,
        "harness": run.harness.name,
        "harness_identity": harness.cache_identity(),
        "harness_version": harness.version(),
        "disclosure": run.harness.disclosure,
        "judge": None if config.judge is None else f"{config.judge.provider}/{config.judge.model}",
        "protocol": _plain(dataclasses.asdict(config.design)),
        "gate": _plain(dataclasses.asdict(config.gate)),
        "skills": {s.plan.skill.name: {"digest": s.plan.skill.digest, "cases": len(s.cases)} for s in skills},
        "design": design_digest(keys),
    }


async def _run_part(
    config: TrialConfig, skills: list[SkillUnderTrial], shard: Shard, invocation: Sequence[str]
) -> TrialPart:
    async with open_runner(config, skills) as runner:
        engine = runner.engine
        requests = runner.design_requests(skills)
        keys = [request.cache_key(engine.harness.cache_identity()) for request in requests]
        units = partition(requests, shard.count)[shard.index - 1]
        batch = await runner.run_part(skills, units)
        records = tuple(PartRecord(r.request.identity(), r.result, r.grades) for r in batch.records)
        return TrialPart(
            shard=shard,
            identity=trial_identity(config, engine.harness, keys, skills),
            invocation=tuple(invocation),
            grader=(runner.grader.name, tuple(runner.grader.metrics)),
            units=tuple(sorted(units)),
            records=records,
            spent=runner.spent(),
            not_run=len(batch.not_run),
            stopped_by=batch.stopped_by,
        )


def trial_part(
    skill_dirs: Sequence[Path], project: Project, config: TrialConfig, shard: Shard, invocation: Sequence[str]
) -> TrialPart:
    """Run shard ``shard`` of the trial of ``skill_dirs`` and return its part; ``invocation`` is the trial's command
    line after ``trial``, which the merge job replays."""
    if config.design.sequential:
        raise ConfigError(
            "--sequential cannot be sharded: its looks read every case's scores after each round, and a shard holds "
            "only its own cases. Shard a fixed design (drop --sequential), or run the sequential trial in one job",
            field="--shard",
        )
    refuse_unpriced_cap(config)
    sources = SkillSources(decoys=config.decoys, supporting=config.supporting, evals=config.evals, read={})
    skills = skills_under_trial(skill_dirs, project, config.design, sources)
    return asyncio.run(_run_part(config, skills, shard, invocation))


def shard_ending(part: TrialPart) -> tuple[tuple[str, ...], int]:
    """What a shard's user must hear once its part is written, and the exit code, for ``trial --shard`` and
    ``ci --shard`` alike: a shard stopped by its budget is incomplete (the merge refuses it), and rollouts lost
    to infrastructure are exit 3 (a rerun retries exactly those, its cache paying only the rest)."""
    said: list[str] = []
    if part.not_run:
        said.append(
            f"shard {part.shard} stopped ({part.stopped_by}) with {part.not_run} rollout(s) not run; the merge "
            "refuses an incomplete shard: rerun it (its cache makes it pay only the rest)"
        )
    failed = sum(1 for record in part.records if record.result.status != "completed")
    if failed or part.stopped_by == "circuit_breaker":
        said.append(
            f"{failed} rollout(s) of shard {part.shard} ended as infrastructure errors; rerun the shard to retry "
            "exactly those"
        )
        return tuple(said), EXIT_RUNTIME_ERROR
    return tuple(said), EXIT_PASS
