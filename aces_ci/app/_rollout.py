"""A rollout batch as the application runs it: one skill's cases, in one or both arms, on a live agent.

The smallest live experiment (``aces-ci rollout``): no lift, no verdict — each rollout's outcome,
for :func:`aces_ci.report.render_rollout_text` to show. Arm ``with`` is the engine's condition
``with`` (the skill staged), ``without`` the condition ``without`` (it is not, and the baseline
guard proves no copy is); run *i* is replicate *i*; the score is the ``expected_output`` metric
of :class:`~aces_ci.grading.ExpectedOutputGrader`. Every input problem (no dataset, an unknown case
id, a skill that cannot be staged) is an :class:`~aces_ci.errors.InputError` before a rollout runs.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from ..agents import ModelClients, RolloutRequest, SkillSet, baseline_guard, create_harness, render_skill_dir
from ..config import Project, RunConfig
from ..engine import RolloutBatch, RolloutCache, RolloutEngine, auto_progress, paired_schedule
from ..errors import InputError
from ..evals import EvalCase, load_evals, load_fixtures
from ..grading import ExpectedOutputGrader
from ..models import ConcurrencyLimiter
from ..skill import RenderedSkill

Arm = Literal["with", "without"]
ARMS: tuple[Arm, ...] = ("with", "without")
"""The arms, each the engine condition of the same name, ``with`` launched first in each pair."""


def rollout_cases(skill_dir: Path, repo_root: Path, case_ids: Sequence[str] | None) -> list[EvalCase]:
    """The cases ``case_ids`` names (None: every case), in that order, once each; InputError for an unknown id."""
    evals = load_evals(skill_dir, repo_root)
    if evals is None:
        raise InputError("the skill has no evaluation dataset (evals/evals.json)", path=str(skill_dir / "evals"))
    if not evals.parsed or not evals.cases:
        first = evals.problems[0] if evals.problems else None
        detail = f": {first.message}" if first else ""
        raise InputError(f"no usable eval cases{detail}", path=evals.rel, line=first.line if first else None)
    if case_ids is None:
        return list(evals.cases)
    by_id = {case.id: case for case in evals.cases}
    unknown = [case_id for case_id in case_ids if case_id not in by_id]
    if unknown:
        known = ", ".join(sorted(by_id)[:20])
        raise InputError(f"no case with id {', '.join(map(repr, unknown))}; cases: {known}", path=evals.rel)
    return [by_id[case_id] for case_id in dict.fromkeys(case_ids)]


def build_requests(
    target: RenderedSkill,
    cases: Sequence[EvalCase],
    fixtures: dict[str, dict[str, bytes]],
    arms: Sequence[Arm],
    options: RunConfig,
) -> list[RolloutRequest]:
    """Case × run × arm, the arms of each (case, run) adjacent; ``without`` stages no skill."""
    skill_sets = {
        "with": SkillSet(skills=(target,), target=target.name),
        "without": SkillSet(skills=(), target=target.name),
    }
    return [
        RolloutRequest(
            case=case,
            skills=skill_sets[arm],
            condition=arm,
            harness=options.harness,
            model=options.model,
            seed=options.seed,
            replicate=run_index,
            fixtures=fixtures[case.id],
        )
        for case in cases
        for run_index in range(options.runs)
        for arm in arms
    ]


async def _execute(requests: list[RolloutRequest], target: RenderedSkill, options: RunConfig) -> RolloutBatch:
    # Model calls in flight never exceed rollouts in flight: the endpoint cap follows --concurrency.
    clients = ModelClients(prices=options.prices, seed=options.seed, limiter=ConcurrencyLimiter(options.concurrency))
    try:
        if options.harness.name == "builtin":
            clients.get(options.model)  # a missing key or an unknown provider is a config error: say so now
        engine = RolloutEngine(
            create_harness(options.harness, clients=clients),
            concurrency=options.concurrency,
            cache=RolloutCache(options.cache_dir) if options.cache_dir is not None else None,
            journal=options.journal,
            budget=options.budget,
            progress=auto_progress(sys.stderr),
            schedule=paired_schedule(ARMS),
            guard=baseline_guard([target]),
            keep_workspaces=options.keep_workspaces,
        )
        async with engine:
            return await engine.run(requests, grader=ExpectedOutputGrader())
    finally:
        await clients.aclose()


def rollout(
    skill_dir: Path,
    project: Project,
    options: RunConfig,
    *,
    case_ids: Sequence[str] | None = None,
    arms: Sequence[Arm] = ("with",),
) -> RolloutBatch:
    """Run the cases ``case_ids`` names (None: all) of the skill in ``skill_dir`` in ``arms``, ``options.runs``
    times each, and return the batch: every record, what a budget stop or the breaker left unrun, what it cost."""
    skill_dir = skill_dir.resolve()
    target = render_skill_dir(skill_dir)
    cases = rollout_cases(skill_dir, project.root, case_ids)
    fixtures = {case.id: load_fixtures(skill_dir, case) for case in cases}
    requests = build_requests(target, cases, fixtures, arms, options)
    return asyncio.run(_execute(requests, target, options))
