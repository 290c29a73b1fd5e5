"""Run a trial on an open engine: every skill's requests, graded, then analysed into one :class:`TrialResult`.

A fixed design is one engine call holding every skill's requests (the engine reuses whatever the
cache or the journal already holds, so an identical rerun makes no model call). A sequential
design (``--sequential``) calls the engine once per replicate level instead: after each level,
:func:`aces_ci.stats.sequential_decision` reads the gated metric's scores so far and the skills it
has decided leave the trial, while the undecided get their next replicate, up to the design's
runs. One engine serves every call, so one budget, journal and progress display span the trial;
a budget stop ends the trial where it is and the result reports what ran.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from .. import __version__, stats
from ..agents import HarnessSpec, RolloutRequest
from ..engine import RolloutBatch, RolloutEngine, RolloutRecord
from ..evals import EvalCase, GraderSpec
from ..grading import Grader
from ..models import ModelSpec
from ._analysis import AnalysisSettings, SkillInputs, analyse_skill
from ._protocol import SkillPlan, TrialDesign, requests_for
from ._result import RepositoryLift, SequentialLook, SkillTrialResult, Spent, TrialResult
from ._table import RunTable, paired
from ._transcript import fit_transcripts


@dataclass(frozen=True)
class SkillUnderTrial:
    """One skill ready to run: its plan, cases and fixtures, and how the report names it."""

    plan: SkillPlan
    cases: tuple[EvalCase, ...]
    fixtures: Mapping[str, Mapping[str, bytes]]
    path: str
    """Skill directory relative to the repository root."""
    eval_source: str
    """The dataset file(s) the cases came from, as the report names them."""
    against: str | None = None
    notes: tuple[str, ...] = ()
    grader: GraderSpec | None = None
    """The product's own grader for this skill's cases (BYOG: the dataset's or aces.yml ``evals.grader``)."""
    against_commit: str | None = None
    """The full commit ``--against`` resolved to."""
    commit: str | None = None
    """The working tree's commit (:func:`~aces_ci.trials.working_commit`); None outside git."""


@dataclass(frozen=True)
class RunSetup:
    """The agent every rollout runs on, and whether its model has a known price."""

    harness: HarnessSpec
    model: ModelSpec
    priced: bool
    """False when the agent's or the judge's price is unknown: dollars are then None, never 0."""
    judge: ModelSpec | None = None
    """The judge model that graded what no rule can; None: those metrics are null with their reason."""


class TrialRunner:
    """Runs the trials of several skills on one open :class:`~aces_ci.engine.RolloutEngine`."""

    def __init__(
        self, engine: RolloutEngine, design: TrialDesign, bands: stats.Bands, setup: RunSetup, grader: Grader
    ) -> None:
        self.engine = engine
        self.design = design
        self.bands = bands
        self.setup = setup
        self.grader = grader
        self.settings = AnalysisSettings(
            design=design,
            bands=bands,
            priced=setup.priced,
            harness=setup.harness.name,
            model=setup.model.model,
        )
        self._records: dict[str, list[RolloutRecord]] = {}
        self._not_run: dict[str, int] = {}
        self._batches: list[RolloutBatch] = []

    def _requests(self, skill: SkillUnderTrial, replicates: Sequence[int]) -> list[RolloutRequest]:
        return requests_for(
            skill.plan,
            skill.cases,
            skill.fixtures,
            self.design,
            harness=self.setup.harness,
            model=self.setup.model,
            replicates=replicates,
        )

    async def _run(self, skills: Sequence[SkillUnderTrial], replicates: Sequence[int], batch: str) -> None:
        requests = [request for skill in skills for request in self._requests(skill, replicates)]
        result = await self.engine.run(requests, grader=self.grader, batch=batch)
        self._batches.append(result)
        for record in result.records:
            self._records.setdefault(record.request.skills.target, []).append(record)
        for missing in result.not_run:
            name = missing.request.skills.target
            self._not_run[name] = self._not_run.get(name, 0) + 1

    def design_requests(self, skills: Sequence[SkillUnderTrial]) -> list[RolloutRequest]:
        """Every request of the fixed design: what one shard runs a part of, and what a merge replays."""
        return [request for skill in skills for request in self._requests(skill, range(self.design.runs))]

    async def run_part(self, skills: Sequence[SkillUnderTrial], units: frozenset[tuple[str, str]]) -> RolloutBatch:
        """Run one shard's (skill, case) units of the fixed design, graded; no analysis (the merge job does it)."""
        if self.design.sequential:
            raise ValueError("a sequential trial is not sharded")  # the command refuses it first, with the reason
        requests = [r for r in self.design_requests(skills) if (r.skills.target, r.case.id) in units]
        result = await self.engine.run(requests, grader=self.grader, batch="trial")
        self._batches.append(result)
        return result

    def spent(self) -> Spent:
        """What this runner's engine calls paid so far."""
        return self._spent()

    def _table(self, skill: SkillUnderTrial, replicates: int) -> RunTable:
        return RunTable.of([case.id for case in skill.cases], self._records.get(skill.plan.skill.name, ()), replicates)

    async def run(self, skills: Sequence[SkillUnderTrial]) -> TrialResult:
        looks: dict[str, list[SequentialLook]] = {s.plan.skill.name: [] for s in skills}
        reached: dict[str, int] = {}
        if not self.design.sequential:
            await self._run(skills, range(self.design.runs), "trial")
            reached = {s.plan.skill.name: self.design.runs for s in skills}
        else:
            await self._sequential(skills, looks, reached)
        results = [
            analyse_skill(
                self._table(skill, reached[skill.plan.skill.name]),
                SkillInputs(
                    skill.plan,
                    skill.path,
                    skill.eval_source,
                    skill.against,
                    self._not_run.get(skill.plan.skill.name, 0),
                    skill.notes,
                    skill.against_commit,
                    skill.commit,
                ),
                self.settings,
                looks[skill.plan.skill.name],
            )
            for skill in skills
        ]
        return self._result(skills, results, reached)

    async def _sequential(
        self, skills: Sequence[SkillUnderTrial], looks: dict[str, list[SequentialLook]], reached: dict[str, int]
    ) -> None:
        rule = stats.SequentialSettings(max_runs=self.design.runs, alpha=self.bands.alpha, bands=self.bands)
        open_skills = list(skills)
        for level in range(1, self.design.runs + 1):
            if not open_skills or self.engine.stopped_by is not None:
                break
            await self._run(open_skills, [level - 1], f"trial-look-{level}")
            still_open = []
            for skill in open_skills:
                name = skill.plan.skill.name
                reached[name] = level
                primary = skill.plan.primary
                scores = paired(
                    self._table(skill, level),
                    primary.treatment,
                    primary.control,
                    self.bands.metric,
                    self.design.coupling,
                )
                decision = stats.sequential_decision(scores, rule)
                looks[name].append(
                    SequentialLook(
                        decision.look,
                        decision.max_looks,
                        decision.alpha_look,
                        decision.lift.ci,
                        decision.verdict.label,
                        decision.state == "decided",
                        decision.reason,
                    )
                )
                if decision.state == "continue":
                    still_open.append(skill)
            open_skills = still_open
        for skill in skills:
            reached.setdefault(skill.plan.skill.name, 1)

    def _repository(self, skills: Sequence[SkillUnderTrial], reached: Mapping[str, int]) -> RepositoryLift | None:
        if len(skills) < 2:
            return None
        differences = []
        for skill in skills:
            primary = skill.plan.primary
            table = self._table(skill, reached[skill.plan.skill.name])
            scores = paired(table, primary.treatment, primary.control, self.bands.metric, self.design.coupling)
            differences.append(stats.case_differences(scores))
        repo = stats.skill_level_bootstrap(differences, self.bands.alpha, seed=self.design.seed)
        return RepositoryLift(repo.delta, repo.ci, repo.n_skills, repo.n_cases, repo.method, repo.estimand_text)

    def _spent(self) -> Spent:
        run_keys: set[str] = set()
        reused = 0
        input_tokens = output_tokens = 0
        usd = 0.0
        for batch in self._batches:
            for record in batch.records:
                if record.source == "run":
                    run_keys.add(record.result.key)
                else:
                    reused += 1
            usage, grading = batch.usage, batch.grading_usage
            input_tokens += usage.prompt_tokens + grading.prompt_tokens
            output_tokens += usage.completion_tokens + grading.completion_tokens
            usd += usage.cost_usd + grading.cost_usd
        return Spent(len(run_keys), reused, input_tokens, output_tokens, usd if self.setup.priced else None)

    def _result(
        self, skills: Sequence[SkillUnderTrial], results: Sequence[SkillTrialResult], reached: Mapping[str, int]
    ) -> TrialResult:
        stopped_batch = next((b for b in self._batches if b.stopped_by is not None), None)
        stopped = stopped_batch.stopped_by if stopped_batch is not None else None
        notes = []
        if stopped_batch is not None and stopped == "circuit_breaker":
            missing = sum(self._not_run.values())
            notes.append(
                f"{stopped_batch.breaker}: {missing} rollout(s) of the design were not run because of it. Rerun "
                "once the model API answers: completed rollouts come from the cache and the journal"
            )
        elif stopped is not None:
            missing = sum(self._not_run.values())
            notes.append(
                f"budget stop ({stopped} reached): {missing} rollout(s) of the design did not run; every figure "
                "below uses the rollouts that did"
            )
        return TrialResult(
            skills=fit_transcripts(results),
            bands=self.bands,
            provider=self.setup.model.provider,
            model=self.setup.model.model,
            harness=self.setup.harness.name,
            harness_version=self.engine.harness.version(),
            disclosure=self.setup.harness.disclosure,
            judge=None if self.setup.judge is None else f"{self.setup.judge.provider}/{self.setup.judge.model}",
            runs=self.design.runs,
            seed=self.design.seed,
            coupling=self.design.coupling,
            mode=self.design.mode,
            sequential=self.design.sequential,
            spent=self._spent(),
            tool_version=__version__,
            generated_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            stopped_by=stopped,
            repository=self._repository(skills, reached),
            notes=tuple(notes),
        )
