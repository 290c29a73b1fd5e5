"""The live agent as SkillSV's oracle: every coalition's rendered skill run through one rollout engine.

:class:`LiveScorer` is a :class:`~aces_ci.skillsv.SkillScorer`: for each :class:`ScoreRequest` it
stages the rendered tree as the skill (nothing at all for the bare agent ρ_del(∅)), runs the case
``runs`` times (replicates 0…runs−1) and grades each rollout with the grading seam; the score is
the chosen metric's mean over the replicates — one metric, or ``composite`` / ``outcome``, the mean
of the metrics the plan names for the case (:mod:`aces_ci.skillsv._live_score` says which, and why).
What the graders spend (a judge's calls) is part of the outcome's cost, so ``--budget-usd`` counts
it as the engine's budget does. A whole round of the estimator is one
:meth:`RolloutEngine.run` call, so the engine's concurrency, cache, journal, budget and progress
serve the valuation as one batch after another.

One engine serves the whole valuation (:func:`live_scorer` opens it and closes it): one budget —
``--budget-usd`` and ``--max-rollouts`` stop the valuation cleanly with the values so far, since a
rollout the cap did not allow comes back as ``budget_stop`` —, one journal (a killed valuation
resumes without paying twice), one progress display. The estimator itself is synchronous, so the
scorer owns an event loop and runs each round to completion on it.

The bare agent's condition is guarded (:func:`~aces_ci.agents.baseline_guard`): no copy of the
skill may reach it. Every other coalition is its own condition, named by the digest of its bytes,
so equal trees share rollouts and a cache key never depends on how a coalition was reached.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from ..agents import HarnessSpec, RolloutRequest, SkillSet
from ..engine import RolloutBatch, RolloutEngine, RolloutRecord, StopReason
from ..evals import EvalCase
from ..grading import Grader
from ..models import ModelSpec
from ..skill import RenderedSkill
from ._oracle import Outcome, ScoreRequest

BARE_CONDITION = "skillsv-bare"
"""The condition of ρ_del(∅), the agent without the skill (what the baseline guard checks)."""


@dataclass(frozen=True)
class LivePlan:
    """What every rollout of a valuation shares: the skill, the cases, the agent, the grading."""

    target: RenderedSkill
    """The skill as staged in full; each coalition's tree replaces its files."""
    cases: Mapping[str, EvalCase]
    """The panel's cases by task id (the case's canonical id)."""
    fixtures: Mapping[str, Mapping[str, bytes]]
    """Per case id, the workspace files it needs."""
    harness: HarnessSpec
    model: ModelSpec
    harness_identity: str
    """:meth:`Harness.cache_identity` of the engine's harness."""
    metric: str
    """The score of a case: a metric of the grader's grades (``accuracy`` by default), or a mean of several."""
    runs: int = 1
    over: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Per case id, the metrics its score is the mean of (:func:`~aces_ci.skillsv.scored_over`); a case
    not named here is scored on ``metric`` alone."""
    judge: str | None = None
    """What identifies the judge the grader asks (model and prompt protocol); None without one."""

    def metrics_of(self, case_id: str) -> tuple[str, ...]:
        """The metrics case ``case_id``'s score is the mean of."""
        return self.over.get(case_id, (self.metric,))


def _identity(plan: LivePlan, grader: Grader) -> str:
    """Everything that changes what a score measures; it keys the score store, so a change re-measures."""
    model = plan.model
    parts = {
        "harness": plan.harness_identity,
        "spec": [plan.harness.name, plan.harness.disclosure, plan.harness.max_turns],
        "model": [model.provider, model.model, model.base_url, model.temperature, model.max_tokens],
        "grader": [grader.name, plan.metric],
        "judge": plan.judge,
        "over": {case: list(metrics) for case, metrics in sorted(plan.over.items())},
        "runs": plan.runs,
    }
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]
    return f"live:{model.provider}/{model.model}:{plan.harness.name}:{plan.metric}:{digest}"


class LiveScorer:
    """Scores rendered skills on cases by running the agent; see the module docstring."""

    def __init__(
        self,
        engine: RolloutEngine,
        plan: LivePlan,
        grader: Grader,
        run: Callable[[Awaitable[RolloutBatch]], RolloutBatch],
    ) -> None:
        self.engine = engine
        self.plan = plan
        self.grader = grader
        self._run = run
        self._identity = _identity(plan, grader)
        self.rounds = 0
        self.label = f"skillsv:{plan.target.name}:{self._identity}"
        """The journal's batch label prefix of this valuation's rollouts: how a resumed run finds what it paid."""
        self.reused = 0
        """Rollouts this run took from the rollout cache or the journal instead of paying for them."""

    @property
    def identity(self) -> str:
        return self._identity

    def _rollouts(self, request: ScoreRequest, case: EvalCase) -> list[RolloutRequest]:
        plan = self.plan
        staged = (plan.target.with_files(request.files),) if request.files else ()
        condition = BARE_CONDITION if not request.files else request.condition
        return [
            RolloutRequest(
                case=case,
                skills=SkillSet(skills=staged, target=plan.target.name),
                condition=condition,
                harness=plan.harness,
                model=plan.model,
                seed=request.seed,
                replicate=replicate,
                fixtures=dict(plan.fixtures.get(case.id, {})),
            )
            for replicate in range(plan.runs)
        ]

    def score(self, requests: Sequence[ScoreRequest]) -> list[Outcome]:
        outcomes: list[Outcome | None] = [None] * len(requests)
        planned: list[tuple[int, list[RolloutRequest]]] = []
        for position, request in enumerate(requests):
            case = self.plan.cases.get(request.task.id)
            if case is None:
                outcomes[position] = Outcome(None, 0, error=f"case {request.task.id!r} has no prompt", fatal=True)
                continue
            planned.append((position, self._rollouts(request, case)))
        if planned:
            self.rounds += 1
            everything = [rollout for _, rollouts in planned for rollout in rollouts]
            batch = self._run(self.engine.run(everything, grader=self.grader, batch=f"{self.label}:{self.rounds}"))
            self.reused += sum(1 for record in batch.records if record.source in ("cache", "journal"))
            records: dict[RolloutRequest, RolloutRecord] = {record.request: record for record in batch.records}
            unrun = {entry.request: entry.reason for entry in batch.not_run}
            for position, rollouts in planned:
                outcomes[position] = self._outcome(rollouts, records, unrun)
        return [outcome if outcome is not None else Outcome(None, 0, error="not scored") for outcome in outcomes]

    def earlier_sessions(self) -> int:
        """Rollouts earlier sessions of this valuation paid for, as the journal recorded them at open."""
        return self.engine.journaled(f"{self.label}:")

    def _outcome(
        self,
        rollouts: Sequence[RolloutRequest],
        records: Mapping[RolloutRequest, RolloutRecord],
        unrun: Mapping[RolloutRequest, StopReason],
    ) -> Outcome:
        paid = [records[r] for r in rollouts if r in records and records[r].source == "run"]
        spent = len(paid)
        graded = [records[r].grades for r in rollouts if r in records]
        cost = sum(record.result.usage.cost_usd for record in paid)
        cost += sum(grades.usage.cost_usd for grades in graded if grades is not None)
        for cap in (unrun[r] for r in rollouts if r in unrun):
            if cap == "circuit_breaker":  # an outage, not a budget: the valuation stops as on an oracle error
                error = f"case {rollouts[0].case.id} not run: {self.engine.breaker.describe()}"
                return Outcome(None, spent, cost, error=error)
            error = f"the run's {cap} cap left case {rollouts[0].case.id} unrun"
            return Outcome(None, spent, cost, error=error, budget_stop=True, cap=cap)
        values: list[float] = []
        for rollout in rollouts:
            record = records.get(rollout)
            if record is None:
                return Outcome(None, spent, cost, error=f"case {rollout.case.id}: no rollout came back")
            if record.result.status != "completed":
                detail = record.result.error or record.result.end_reason
                return Outcome(None, spent, cost, error=f"case {rollout.case.id}: the rollout failed: {detail}")
            metrics = self.plan.metrics_of(rollout.case.id)
            scored: list[float] = []
            for metric in metrics:
                grade = record.grades.get(metric) if record.grades is not None else None
                if grade is None or grade.value is None:
                    status = grade.status if grade is not None else "not graded"
                    reason = grade.reason if grade is not None and grade.reason else status
                    fatal = grade is not None and grade.status == "not_applicable"
                    return Outcome(None, spent, cost, error=f"case {rollout.case.id}: {metric}: {reason}", fatal=fatal)
                scored.append(grade.value)
            if not scored:
                return Outcome(None, spent, cost, error=f"case {rollout.case.id}: no metric to score", fatal=True)
            values.append(sum(scored) / len(scored))
        return Outcome(sum(values) / len(values), spent, cost)


@contextmanager
def live_scorer(
    engine: RolloutEngine, plan: LivePlan, grader: Grader, *, close: Callable[[], Awaitable[None]] | None = None
) -> Iterator[LiveScorer]:
    """Open ``engine`` for the valuation on an event loop of its own; close it (then ``close()``) at the end."""
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(engine.__aenter__())
        try:
            yield LiveScorer(engine, plan, grader, loop.run_until_complete)
        finally:
            loop.run_until_complete(engine.__aexit__(None, None, None))
    finally:
        try:
            if close is not None:
                loop.run_until_complete(close())
        finally:
            loop.close()
