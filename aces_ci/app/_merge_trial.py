"""The merge of a sharded trial: the ordinary trial replayed over the shards' parts, so its result is the unsharded one.

:func:`merge_trial` checks the parts (:func:`aces_ci.trials.check_parts`: every shard once, one
identity, no (skill, case) twice), reads the skills and datasets of this checkout exactly as the
trial does, and then runs the trial's own :class:`~aces_ci.trials.TrialRunner` and analysis on an
engine whose only store is the parts (:class:`~aces_ci.trials.PartStore`), whose grader hands back
the shards' grades (:class:`~aces_ci.trials.StoredGrades`), whose harness cannot run
(:class:`~aces_ci.trials.RecordedHarness`) and whose budget launches nothing. Before the replay the
design this checkout builds is held against the parts: the same identity (a different skill,
dataset, seed, model or flag is a foreign part), each shard exactly its units of the partition and
a record for every rollout of them. So the merged result has the same intervals, verdicts and
triage as one process would have produced with the same seeds, by construction; only timings and
``spent`` (the sum of what the shards paid) come from elsewhere.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path

from ..config import Project, TrialConfig
from ..engine import Budget, NoProgress, RolloutEngine, paired_schedule
from ..errors import InputError
from ..skill import read_bounded
from ..trials import (
    PartStore,
    RecordedHarness,
    RunSetup,
    SkillUnderTrial,
    Spent,
    StoredGrades,
    TrialPart,
    TrialResult,
    TrialRunner,
    Unit,
    check_against_design,
    check_parts,
    part_from_dict,
    partition,
    unit_of,
)
from ._engine import condition_order
from ._inputs import SkillSources, skills_under_trial
from ._judge import priced
from ._trial_part import trial_identity

MAX_PART_BYTES = 2 * 1024**3
"""A part holds every rollout of its shard, trajectories included: large, but not without end."""


def read_part(path: Path) -> TrialPart:
    """One shard's part file; :class:`InputError` naming the file when it is unreadable, not JSON or damaged."""
    raw = read_bounded(path, what="trial part", max_bytes=MAX_PART_BYTES)
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"not JSON: {exc}", path=str(path)) from None
    return part_from_dict(data, path)


def _spent(parts: Sequence[TrialPart]) -> Spent:
    """What the shards paid together: the merge itself pays nothing."""
    dollars = [part.spent.usd for part in parts]
    return Spent(
        sum(part.spent.rollouts_run for part in parts),
        sum(part.spent.rollouts_reused for part in parts),
        sum(part.spent.input_tokens for part in parts),
        sum(part.spent.output_tokens for part in parts),
        None if any(usd is None for usd in dollars) else sum(usd for usd in dollars if usd is not None),
    )


async def _replay(
    config: TrialConfig, skills: list[SkillUnderTrial], parts: Sequence[tuple[Path, TrialPart]]
) -> TrialResult:
    first_path, first = parts[0]
    records = [record for _, part in parts for record in part.records]
    recorded = (str(first.identity.get("harness_identity")), str(first.identity.get("harness_version")))
    harness = RecordedHarness(config.run.harness.name, *recorded)
    store = PartStore(records)
    engine = RolloutEngine(
        harness,
        concurrency=config.run.concurrency,
        cache=store,
        budget=Budget(max_rollouts=0),
        progress=NoProgress(),
        schedule=paired_schedule(condition_order(skills)),
    )
    async with engine:
        setup = RunSetup(config.run.harness, config.run.model, priced(config.run, config.judge), config.judge)
        grader = StoredGrades(first.grader[0], first.grader[1], records)
        runner = TrialRunner(engine, config.design, config.gate, setup, grader)
        requests = runner.design_requests(skills)
        keys = [request.cache_key(harness.cache_identity()) for request in requests]
        identity = trial_identity(config, harness, keys, skills)
        for name in sorted(set(identity) | set(first.identity)):
            if identity.get(name) != first.identity.get(name):
                raise InputError(
                    f"the parts' '{name}' ({first.identity.get(name)!r}) differs from the trial this checkout and "
                    f"the parts' command line build ({identity.get(name)!r}): merge in the checkout the shards ran in",
                    path=str(first_path),
                )
        keys_of: dict[Unit, set[str]] = {}
        for request, key in zip(requests, keys, strict=True):
            keys_of.setdefault(unit_of(request), set()).add(key)
        check_against_design(parts, partition(requests, first.shard.count), keys_of)
        result = await runner.run(skills)
    if store.missing:  # check_against_design makes this unreachable; a merge never reports what it did not read
        raise InputError(f"{len(store.missing)} rollout(s) of the design are in no part", path=str(first_path))
    return dataclasses.replace(result, spent=_spent([part for _, part in parts]))


def merge_trial(
    parts: Sequence[tuple[Path, TrialPart]], skill_dirs: Sequence[Path], project: Project, config: TrialConfig
) -> TrialResult:
    """The :class:`TrialResult` of the whole trial from its shards' parts; :class:`InputError` naming the file when
    a shard is missing, given twice, foreign, or does not hold exactly its units."""
    check_parts(parts)
    sources = SkillSources(decoys=config.decoys, supporting=config.supporting, evals=config.evals, read={})
    skills = skills_under_trial(skill_dirs, project, config.design, sources)
    return asyncio.run(_replay(config, skills, parts))
