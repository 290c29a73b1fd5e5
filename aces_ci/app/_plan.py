"""``aces-ci trial --plan``: size a design from what is already paid for, and run nothing.

The trial's requests go to the engine with a budget of zero new rollouts, so only the cache and
the journal answer (:mod:`aces_ci.trials._plan` explains the statistics). A skill without a
usable pilot stops the command with advice on how to get one (exit 2): planning from nothing
would be a guess presented as a figure. The caller prints the plans
(:func:`aces_ci.report.render_plan_text`).
"""

from __future__ import annotations

import asyncio

from ..agents import ModelClients
from ..config import RunConfig, TrialConfig
from ..engine import Budget, RolloutRecord
from ..errors import InputError
from ..models import ConcurrencyLimiter, ModelSpec
from ..trials import (
    NoPilot,
    RunTable,
    SkillDesignPlan,
    SkillUnderTrial,
    TrialDesign,
    plan_skill_design,
    requests_for,
    trial_grader,
)
from ._engine import open_engine
from ._judge import open_judge, priced


async def _cached(
    options: RunConfig, design: TrialDesign, skills: list[SkillUnderTrial], judge_spec: ModelSpec | None
) -> list[RolloutRecord]:
    limiter = ConcurrencyLimiter(options.concurrency)
    clients = ModelClients(prices=options.prices, seed=options.seed, limiter=limiter)
    judge = open_judge(judge_spec, options, limiter)
    grader = trial_grader(judge, {s.plan.skill.name: s.grader for s in skills})
    try:
        async with open_engine(options, skills, clients, Budget(max_rollouts=0)) as engine:
            requests = [
                request
                for skill in skills
                for request in requests_for(
                    skill.plan,
                    skill.cases,
                    skill.fixtures,
                    design,
                    harness=options.harness,
                    model=options.model,
                    replicates=range(design.runs),
                )
            ]
            batch = await engine.run(requests, grader=grader, batch="trial-plan")
            return list(batch.records)
    finally:
        await clients.aclose()
        if judge is not None:
            await judge.aclose()


def plan_designs(config: TrialConfig, skills: list[SkillUnderTrial]) -> list[SkillDesignPlan]:
    """Each skill's design sized from its pilot (what the cache and the journal hold); InputError without one."""
    design, gate = config.design, config.gate
    records = asyncio.run(_cached(config.run, design, skills, config.judge))
    plans: list[SkillDesignPlan] = []
    for skill in skills:
        name = skill.plan.skill.name
        table = RunTable.of(
            [case.id for case in skill.cases], (r for r in records if r.request.skills.target == name), design.runs
        )
        try:
            plans.append(
                plan_skill_design(
                    table,
                    skill.plan,
                    design,
                    bands=gate,
                    target_lift=config.target_lift,
                    priced=priced(config.run, config.judge),
                )
            )
        except NoPilot:
            raise InputError(
                f"no pilot for {skill.path}: the cache and the journal hold fewer than 2 cases scored in both "
                "conditions. Run a small pilot first (e.g. `aces-ci trial SKILL_DIR --runs 2` on a few cases with "
                "--evals), or an A/A control with --control aa, then plan again with the same cache",
                path=skill.path,
                field="--plan",
            ) from None
    return plans
