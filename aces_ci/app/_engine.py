"""The one engine of a trial: cache, journal, budget, progress, the paired schedule and the trial's guard."""

from __future__ import annotations

import sys

from ..agents import ModelClients, create_harness
from ..config import RunConfig
from ..engine import Budget, RolloutCache, RolloutEngine, auto_progress, paired_schedule
from ..trials import SkillUnderTrial, trial_guard


def condition_order(skills: list[SkillUnderTrial]) -> list[str]:
    """Every condition label, each skill's primary pair first: the order conditions of a (case, run) launch in."""
    order: dict[str, None] = {}
    for skill in skills:
        order.update((label, None) for label in (skill.plan.primary.treatment, skill.plan.primary.control))
    for skill in skills:
        order.update((label, None) for label in skill.plan.conditions)
    return list(order)


def open_engine(
    options: RunConfig, skills: list[SkillUnderTrial], clients: ModelClients, budget: Budget
) -> RolloutEngine:
    """The command's one engine: its cache, journal, budget, progress, paired schedule and the trial's guard."""
    return RolloutEngine(
        create_harness(options.harness, clients=clients),
        concurrency=options.concurrency,
        cache=RolloutCache(options.cache_dir) if options.cache_dir is not None else None,
        journal=options.journal,
        budget=budget,
        progress=auto_progress(sys.stderr),
        schedule=paired_schedule(condition_order(skills)),
        guard=trial_guard(
            {s.plan.skill.name: s.plan.conditions for s in skills}, {s.plan.skill.name: s.plan.skill for s in skills}
        ),
        keep_workspaces=options.keep_workspaces,
    )
