"""A trial as the application runs it: from a resolved :class:`~aces_ci.config.TrialConfig` to a result.

``aces-ci trial`` (and its ``--plan`` and ``--triggers``) and ``aces-ci ci``'s paid paths call
these same functions; the commands only parse, resolve the config, call, and print. Every input
problem (a skill, a dataset, a ref, a decoy, a cap that needs a price) is an
:class:`~aces_ci.errors.InputError` or :class:`~aces_ci.errors.ConfigError` raised before a rollout
is paid for.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from ..agents import ModelClients
from ..config import Project, TrialConfig
from ..errors import InputError
from ..evals import Dataset
from ..models import ConcurrencyLimiter
from ..trials import RunSetup, SkillDesignPlan, SkillUnderTrial, TrialResult, TrialRunner, TriggerTrial, trial_grader
from ._engine import open_engine
from ._inputs import SkillSources, skills_under_trial
from ._judge import open_judge, priced
from ._plan import plan_designs
from ._triggers import gated_triggers, measure_triggers


def _skills(
    skill_dirs: Sequence[Path], project: Project, config: TrialConfig, read: Mapping[Path, Dataset]
) -> list[SkillUnderTrial]:
    sources = SkillSources(decoys=config.decoys, supporting=config.supporting, evals=config.evals, read=read)
    return skills_under_trial(skill_dirs, project, config.design, sources)


@asynccontextmanager
async def open_runner(config: TrialConfig, skills: list[SkillUnderTrial]) -> AsyncIterator[TrialRunner]:
    """The trial's runner over its engine, clients and judge, all closed on leaving: what a whole trial and one
    shard of it (:func:`~aces_ci.app.trial_part`) run on, so both are the same design on the same engine."""
    options = config.run
    # Model calls in flight never exceed rollouts in flight: the endpoint cap follows --concurrency.
    limiter = ConcurrencyLimiter(options.concurrency)
    clients = ModelClients(prices=options.prices, seed=options.seed, limiter=limiter)
    judge = open_judge(config.judge, options, limiter)  # a judge that cannot be built is a config error: say so now
    try:
        if options.harness.name == "builtin":
            clients.get(options.model)  # a missing key or an unknown provider is a config error: say so now
        grader = trial_grader(judge, {s.plan.skill.name: s.grader for s in skills})
        async with open_engine(options, skills, clients, options.budget) as engine:
            setup = RunSetup(options.harness, options.model, priced(options, config.judge), config.judge)
            yield TrialRunner(engine, config.design, config.gate, setup, grader)
    finally:
        await clients.aclose()
        if judge is not None:
            await judge.aclose()


async def _run(config: TrialConfig, skills: list[SkillUnderTrial]) -> TrialResult:
    async with open_runner(config, skills) as runner:
        return await runner.run(skills)


def refuse_unpriced_cap(config: TrialConfig) -> None:
    """A dollar cap without the model's price is an input error before anything runs (a shard's too)."""
    cap = config.design.budget_cap
    if cap is not None and cap.dollars is not None and not priced(config.run):
        raise InputError(
            f"--cap-usd needs the model's price, and {config.run.model.model} is not in the price table: add it "
            "under run.prices in aces.yml, or cap tokens with --cap-tokens",
            field="--cap-usd",
        )


def trial(
    skill_dirs: Sequence[Path], project: Project, config: TrialConfig, *, read: Mapping[Path, Dataset] | None = None
) -> TrialResult:
    """Run the paired trials of ``skill_dirs`` and return their result.

    ``project`` is where they live (its root names them in the result; its aces.yml ``evals:`` supplies
    task commands and graders); ``read`` holds datasets the caller already loaded (by resolved skill
    directory), so a task command runs once (``ci`` reads them to choose the skills it can trial).
    """
    refuse_unpriced_cap(config)
    skills = _skills(skill_dirs, project, config, read or {})
    return asyncio.run(_run(config, skills))


def trial_plan(skill_dirs: Sequence[Path], project: Project, config: TrialConfig) -> list[SkillDesignPlan]:
    """Size each skill's design from the pilot already in the cache and the journal; nothing new is run."""
    return plan_designs(config, _skills(skill_dirs, project, config, {}))


def triggers(skill_dirs: Sequence[Path], project: Project, config: TrialConfig) -> TriggerTrial:
    """The trigger trial of ``skill_dirs``: recall per skill (against ``config.design.against`` when set), gated
    against ``config.triggers.min_recall`` when there is one."""
    found = measure_triggers(
        list(skill_dirs),
        project,
        config.run,
        runs=config.design.runs,
        host=config.triggers.host,
        against=config.design.against,
    )
    return gated_triggers(found, config.triggers)
