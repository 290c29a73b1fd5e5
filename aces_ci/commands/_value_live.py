"""``aces-ci value`` on the live agent: the skill's dataset, the run settings of ``rollout``, one engine.

The valuation's cases are the skill's own dataset as a trial reads it (:func:`~aces_ci.evals.load_dataset`:
evals.json in any dialect, ``evals/EVAL.md``, the task command), so each coalition's rollout gets
the same prompt, fixtures and reference as ``rollout`` gives it. A case's score is one metric of
the grading seam's :class:`~aces_ci.grading.AcesMetricsGrader` (``accuracy`` by default; the
product's own grader's metrics when the dataset or aces.yml names one). Every setting the run
flags and aces.yml give (provider, model, harness, disclosure, runs, concurrency, budget,
journal) is the engine's; the journal defaults to one beside the score store, so a killed
valuation always resumes without paying twice.

Cases that cannot be graded on the chosen metric are refused before a rollout is paid for: a
case without ``expected_output`` (accuracy is not applicable to it) or with ``match: judge``
(no judge model is wired into the valuation yet).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agents import ModelClients, baseline_guard, create_harness, render_skill_dir
from ..config import Project
from ..engine import RolloutCache, RolloutEngine, auto_progress
from ..errors import ConfigError
from ..evals import EvalCase, find_datasets, load_dataset, load_fixtures
from ..grading import AcesMetricsGrader
from ..models import ConcurrencyLimiter
from ..skillsv import BARE_CONDITION, LivePlan, LiveScorer, Task, live_scorer
from ._run_options import resolve_run_options

DEFAULT_METRIC = "accuracy"
STORE_DIR = "skillsv"
"""The score store's folder inside the cache root (the rollout cache's entries sit beside it)."""
JOURNAL_NAME = "journal.jsonl"
_NOT_IN_THE_CASE = frozenset({"line", "pointer", "draft"})
"""EvalCase fields that say where a case was written, not what it asks: moving a case re-measures nothing."""


@dataclass(frozen=True)
class LivePanel:
    """The cases the live agent is valued on, as tasks for the estimator and as cases for the engine."""

    tasks: tuple[Task, ...]
    cases: Mapping[str, EvalCase]
    """By task id (the case id)."""
    grader: AcesMetricsGrader
    metric: str
    notes: tuple[str, ...] = ()


def _task(case: EvalCase) -> Task:
    """The estimator's view of a case: its id, its content (which keys every score), its trigger label as stratum."""
    written: dict[str, Any] = {
        name: value for name, value in dataclasses.asdict(case).items() if name not in _NOT_IN_THE_CASE
    }
    stratum = {True: "trigger", False: "no-trigger", None: ""}[case.should_trigger]
    return Task(case.id, written, stratum)


def _refuse_ungradable(cases: Mapping[str, EvalCase], metric: str, where: str) -> None:
    if metric != "accuracy":
        return
    for case in cases.values():
        if not (case.expected_output or "").strip():
            raise ConfigError(
                f"case {case.id!r} has no expected_output, so the live agent's answer to it cannot be graded on "
                "accuracy (give every case one, choose another --metric, or value with --oracle python:MODULE:FUNC)",
                path=where,
                line=case.line,
            )
        if case.match == "judge":
            raise ConfigError(
                f"case {case.id!r} is graded by a judge (match: judge), which aces-ci value does not configure "
                "yet: use a deterministic match mode, or --oracle python:MODULE:FUNC",
                path=where,
                line=case.line,
            )


def live_panel(skill_dir: Path, project: Project, evals: Path | None, metric: str) -> LivePanel:
    """The skill's dataset, checked gradable on ``metric``; ConfigError/InputError before anything is paid."""
    own = find_datasets(skill_dir)
    if evals is not None and (not own or evals.resolve() != own[0].resolve()):
        raise ConfigError(
            "the live agent is valued on the skill's own dataset (evals/evals.json, evals/EVAL.md, the task "
            "command), exactly as `rollout` runs it; --evals FILE with another panel needs --oracle python:MODULE:FUNC",
            field="--evals",
        )
    settings = project.config.evals
    dataset = load_dataset(skill_dir, project.root, tasks=settings.tasks, grader=settings.grader)
    grader = AcesMetricsGrader(owned=dataset.grader)
    if metric not in grader.metrics:
        raise ConfigError(
            f"--metric {metric!r} is not graded on this dataset; the metrics are {', '.join(grader.metrics)}",
            field="--metric",
        )
    cases = {case.id: case for case in dataset.cases}
    _refuse_ungradable(cases, metric, dataset.files[0] if dataset.files else str(skill_dir))
    return LivePanel(tuple(_task(case) for case in dataset.cases), cases, grader, metric, dataset.notes)


def live_session(
    args: argparse.Namespace, skill_dir: Path, project: Project, cache_root: Path | None, panel: LivePanel
) -> AbstractContextManager[LiveScorer]:
    """One engine for the whole valuation, opened by the returned context; ConfigError on bad settings.

    ``cache_root`` holds the rollout cache and the score store's folder (the journal in it); None
    with ``--no-cache`` (then only an explicit ``--journal`` keeps rollouts across a crash).
    """
    options = resolve_run_options(args, project.config)
    target = render_skill_dir(skill_dir)
    fixtures = {case.id: load_fixtures(skill_dir, case) for case in panel.cases.values()}
    journal = options.journal
    if journal is None and cache_root is not None:
        journal = cache_root / STORE_DIR / JOURNAL_NAME
    clients = ModelClients(prices=options.prices, seed=options.seed, limiter=ConcurrencyLimiter(options.concurrency))
    if options.harness.name == "builtin":
        clients.get(options.model)  # a missing key or an unknown provider is a config error: say so before any work
    harness = create_harness(options.harness, clients=clients)
    engine = RolloutEngine(
        harness,
        concurrency=options.concurrency,
        cache=RolloutCache(cache_root) if cache_root is not None else None,
        journal=journal,
        budget=options.budget,
        progress=auto_progress(sys.stderr),
        guard=baseline_guard([target], (BARE_CONDITION,)),
        keep_workspaces=options.keep_workspaces,
    )
    plan = LivePlan(
        target=target,
        cases=panel.cases,
        fixtures=fixtures,
        harness=options.harness,
        model=options.model,
        harness_identity=harness.cache_identity(),
        metric=panel.metric,
        runs=options.runs,
    )
    return live_scorer(engine, plan, panel.grader, close=clients.aclose)
