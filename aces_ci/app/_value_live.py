"""``aces-ci value`` on the live agent: a trial's dataset and judge, the run settings of ``rollout``, one engine.

The valuation's cases are read exactly as ``aces-ci trial`` reads them
(:func:`~aces_ci.app._inputs.load_cases`): the skill's own dataset (evals.json in any
dialect, ``evals/EVAL.md``, the task command), or the file ``--evals`` names instead, with the
fixtures of each case taken from the skill's ``evals/`` as a trial stages them. So each
coalition's rollout gets the prompt, fixtures and reference a trial gives the case.

A case's score is read off the grading seam's :class:`~aces_ci.grading.AcesMetricsGrader`, the
grader of trials, with the trial's judge (aces.yml ``judge:``, ``--judge-*``, ``--no-judge``:
:func:`~aces_ci.config.resolve_judge`): one metric (``accuracy`` by default; the product's own
grader's metrics when the dataset or aces.yml names one), or ``composite`` / ``outcome``, the
means a coalition's rollout can have (:mod:`aces_ci.skillsv._live_score` defines them and says
why skill efficiency and skill execution are not part of them). The judge's identity (its model
and prompt protocol) is part of the scorer's identity, so a different judge re-scores every
coalition; its answers are cached beside the rollouts and its dollars count against
``--budget-usd`` as the agent's do.

Every setting the run flags and aces.yml give (provider, model, harness, disclosure, runs,
concurrency, budget, journal) is the engine's; the journal defaults to one beside the score
store, so a killed valuation always resumes without paying twice.

Before a rollout is paid for, a case whose score cannot be computed on the chosen metric is
refused (exit 2, naming the case, its file and line, and why): no reference for accuracy, a
``match: judge`` case with no judge configured, a metric that is not a coalition's (skill
efficiency, skill execution), an outcome with neither accuracy nor goal accuracy to grade.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agents import ModelClients, baseline_guard, create_harness, render_skill_dir
from ..config import Project, RunConfig
from ..engine import RolloutCache, RolloutEngine, auto_progress
from ..errors import ConfigError
from ..evals import Dataset, EvalCase, GraderSpec, load_fixtures
from ..grading import JUDGE_PROTOCOL, AcesMetricsGrader
from ..models import ConcurrencyLimiter, ModelSpec
from ..skillsv import (
    BARE_CONDITION,
    MEANS,
    NOT_A_COALITION_SCORE,
    LivePlan,
    LiveScorer,
    ScoreSettings,
    Task,
    live_scorer,
    score_definition,
    scored_over,
)
from ._inputs import load_cases
from ._judge import open_judge

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
    metric: str
    over: Mapping[str, tuple[str, ...]]
    """Per case id, the metrics its score is the mean of (one for a single metric)."""
    owned: GraderSpec | None = None
    """The product's own grader (BYOG) the dataset or aces.yml names."""
    judge: ModelSpec | None = None
    notes: tuple[str, ...] = ()

    @property
    def score(self) -> ScoreSettings:
        """What a case's score is, as the report states it."""
        judge = f"{self.judge.provider}/{self.judge.model}" if self.judge is not None else None
        return ScoreSettings(self.metric, score_definition(self.metric), judge)


def _task(case: EvalCase) -> Task:
    """The estimator's view of a case: its id, its content (which keys every score), its trigger label as stratum."""
    written: dict[str, Any] = {
        name: value for name, value in dataclasses.asdict(case).items() if name not in _NOT_IN_THE_CASE
    }
    stratum = {True: "trigger", False: "no-trigger", None: ""}[case.should_trigger]
    return Task(case.id, written, stratum)


def _metric_choices(grader: AcesMetricsGrader) -> str:
    chosen = [name for name in grader.metrics if name not in NOT_A_COALITION_SCORE]
    return ", ".join([*chosen, *MEANS])


def _check_metric(metric: str, grader: AcesMetricsGrader) -> None:
    """A metric no case can be scored on is refused, with the ones that exist."""
    if metric in NOT_A_COALITION_SCORE and (grader.owned is None or metric not in grader.owned.metrics):
        raise ConfigError(
            f"--metric {metric!r} cannot score a coalition: {NOT_A_COALITION_SCORE[metric]}; "
            f"choose one of {_metric_choices(grader)}",
            field="--metric",
        )
    if metric not in grader.metrics and metric not in MEANS:
        raise ConfigError(
            f"--metric {metric!r} is not graded on this dataset; the metrics are {_metric_choices(grader)}",
            field="--metric",
        )


def _scored_over(
    cases: Mapping[str, EvalCase], metric: str, owned: tuple[str, ...], judged: bool, where: Mapping[str, str]
) -> dict[str, tuple[str, ...]]:
    """Per case, the metrics its score is the mean of; ConfigError naming the first case that has none."""
    over: dict[str, tuple[str, ...]] = {}
    for case in cases.values():
        chosen = scored_over(case, metric, judged=judged, owned=owned)
        if not chosen.metrics:
            reasons = "; ".join(f"{name}: {why}" for name, why in chosen.left_out.items())
            hint = (
                "configure a judge (aces.yml judge:, --judge-provider/--judge-model)"
                if not judged and "judge" in reasons
                else "give the case what the metric needs"
            )
            raise ConfigError(
                f"case {case.id!r} cannot be scored on {metric} ({reasons}): {hint}, choose another --metric, "
                "or value with --oracle python:MODULE:FUNC",
                path=where[case.id],
                line=case.line,
            )
        over[case.id] = chosen.metrics
    return over


def live_panel(
    skill_dir: Path,
    project: Project,
    evals: Path | None,
    metric: str,
    judge: ModelSpec | None = None,
    *,
    read: Dataset | None = None,
) -> LivePanel:
    """The cases a trial of the skill would run (``evals``: another dataset file), checked scorable on ``metric``.

    ``judge`` is the judge the valuation will grade with (None: none); ``read`` the skill's own dataset
    when the caller has already loaded it with :func:`load_cases` (``aces-ci ci``: a task command runs
    once). ConfigError/InputError before anything is paid.
    """
    if read is not None and evals is None:
        dataset = read
    else:
        dataset = load_cases(skill_dir, project.root, evals, project.config.evals)
    grader = AcesMetricsGrader(owned=dataset.grader)
    _check_metric(metric, grader)
    cases = {case.id: case for case in dataset.cases}
    fallback = dataset.files[0] if dataset.files else str(skill_dir)
    where = {case_id: source.file for case_id, source in dataset.sources.items()}
    where.update({case_id: fallback for case_id in cases if case_id not in where})
    owned = dataset.grader.metrics if dataset.grader is not None else ()
    over = _scored_over(cases, metric, owned, judge is not None, where)
    return LivePanel(
        tuple(_task(case) for case in dataset.cases), cases, metric, over, dataset.grader, judge, dataset.notes
    )


def _judge_identity(spec: ModelSpec | None) -> str | None:
    """The judge's model and its prompts' protocol version: what its grades depend on besides the rollout."""
    if spec is None:
        return None
    return f"protocol-{JUDGE_PROTOCOL}:{json.dumps(spec.cache_identity(), sort_keys=True, default=str)}"


def live_session(
    options: RunConfig, skill_dir: Path, cache_root: Path | None, panel: LivePanel
) -> AbstractContextManager[LiveScorer]:
    """One engine for the whole valuation, opened by the returned context; ConfigError on bad settings.

    ``cache_root`` holds the rollout cache, the judge's answers and the score store's folder (the
    journal in it); None with ``--no-cache`` (then only an explicit ``--journal`` keeps rollouts
    across a crash). The judge is opened first: one that cannot run stops the valuation here.
    """
    target = render_skill_dir(skill_dir)
    fixtures = {case.id: load_fixtures(skill_dir, case) for case in panel.cases.values()}
    journal = options.journal
    if journal is None and cache_root is not None:
        journal = cache_root / STORE_DIR / JOURNAL_NAME
    limiter = ConcurrencyLimiter(options.concurrency)  # the judge's calls share the agents' cap, as in a trial
    judge = open_judge(panel.judge, options, limiter)
    clients = ModelClients(prices=options.prices, seed=options.seed, limiter=limiter)

    async def close() -> None:
        try:
            await clients.aclose()
        finally:
            if judge is not None:
                await judge.aclose()

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
        over=panel.over,
        judge=_judge_identity(panel.judge),
    )
    grader = AcesMetricsGrader(judge=judge, owned=panel.owned)
    return live_scorer(engine, plan, grader, close=close)
