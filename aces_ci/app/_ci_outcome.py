"""What a paid path of ``aces-ci ci`` hands on, and the rules that turn its trial into gate criteria.

:class:`PaidOutcome` is what a release, a labelled pull request, a rerun, ``mode: value`` or ``mode: compress``
measured, for the gate, the comment, the reports and the outputs; the functions here read a
:class:`~aces_ci.trials.TrialResult` into the gate's criteria (a skill whose rollouts infrastructure lost is an
``error``, :func:`gated_lifts`) and the headline lift the outputs quote. :class:`Trialable` splits the skills
to measure into those with an eval dataset and those without (a warning each, never a silent pass). The run
itself, which events measure what and what is stored, is :mod:`aces_ci.app._ci_paid`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..config import Project
from ..errors import InputError
from ..evals import Dataset, NoCases
from ..gate import GateCriterion, InfraLoss, lift_criteria
from ..github import ChangeSet, SkillChange
from ..skillsv import SkillValueView
from ..stats import Bands
from ..trials import TrialResult, TriggerTrial
from ._ci_value import ValueOutcome
from ._inputs import load_cases


@dataclass(frozen=True)
class PaidOutcome:
    """What a paid path measured, for the gate, the comment, the reports and the outputs."""

    changes: ChangeSet
    criteria: tuple[GateCriterion, ...]
    trials: TrialResult | None
    trials_title: str = "Paired trials"
    more_trials: tuple[tuple[str, TrialResult], ...] = ()
    history: tuple[SkillChange, ...] = ()
    trend: str = ""
    """A rerun's trend over the last stored reruns (Markdown of :func:`aces_ci.github.trend_section`)."""
    values: tuple[SkillValueView, ...] = ()
    """SkillSV's view of each valued skill (a release's or ``mode: value``'s)."""
    notes: tuple[str, ...] = ()
    reports: Mapping[str, Path | None] = field(default_factory=dict)
    skill_reports: Mapping[Path, str] = field(default_factory=dict)
    """Each SkillSV or compress report this run wrote, with the repository-relative folder of its skill: what
    the HTML report links the report's file:line under, and the valuations a release keeps."""
    triggers: TriggerTrial | None = None
    """The trigger trial of the changed skills with ``evals/eval_queries.json``: gated when aces.yml sets
    ``trial.min_recall`` (a ``recall`` criterion per skill), informative otherwise."""

    def valued(self, value: ValueOutcome) -> PaidOutcome:
        """This outcome with SkillSV's results added (its criteria, notes and report folder)."""
        reports = dict(self.reports) | {"value": value.report_dir}
        skill_reports = dict(self.skill_reports) | dict(value.written)
        return dataclasses.replace(
            self,
            criteria=(*self.criteria, *value.criteria),
            values=value.values,
            notes=(*self.notes, *value.notes),
            reports=reports,
            skill_reports=skill_reports,
        )

    @property
    def lift(self) -> tuple[float, float, float] | None:
        """The lift the step outputs carry: see :func:`headline_lift`."""
        return headline_lift(self.trials) if self.trials is not None else None

    @property
    def lift_contrast(self) -> str | None:
        """What :attr:`lift` compares, in the words the comment's headline uses: see :func:`headline_contrast`."""
        return headline_contrast(self.trials) if self.trials is not None else None


def headline_contrast(result: TrialResult) -> str | None:
    """The contrast and metric behind :func:`headline_lift`, chosen by the same rule."""
    measured = [skill for skill in result.skills if skill.lift.get(result.gate_metric) is not None]
    if not measured:
        return None
    if len(measured) == 1:
        return f"{result.gate_metric}, {measured[0].contrast}, {measured[0].skill}"
    repo = result.repository
    if repo is not None and repo.delta is not None and repo.ci is not None:
        return f"{result.gate_metric}, repository mean over {repo.n_skills} skills"
    worst = min(measured, key=lambda skill: skill.lift[result.gate_metric].ci[1])  # type: ignore[union-attr]
    return f"{result.gate_metric}, {worst.contrast}, {worst.skill} (the lowest interval)"


def headline_lift(result: TrialResult) -> tuple[float, float, float] | None:
    """One gated lift for the step outputs: the skill's when one was trialled; with several, the
    repository-level lift when it could be estimated, else the skill whose interval sits lowest
    (the one that decides the gate)."""
    lifts = [lift for skill in result.skills if (lift := skill.lift.get(result.gate_metric)) is not None]
    if not lifts:
        return None
    if len(lifts) == 1:
        return lifts[0].delta, lifts[0].ci[0], lifts[0].ci[1]
    repo = result.repository
    if repo is not None and repo.delta is not None and repo.ci is not None:
        return repo.delta, repo.ci[0], repo.ci[1]
    worst = min(lifts, key=lambda lift: lift.ci[1])
    return worst.delta, worst.ci[0], worst.ci[1]


def infra_losses(result: TrialResult) -> dict[str, InfraLoss]:
    """Per skill, the rollouts infrastructure cost its trial: errors, failed grading, and the rollouts the circuit
    breaker left unrun (a budget stop's are not lost: the budget was the user's choice)."""
    breaker = result.stopped_by == "circuit_breaker"
    return {
        s.skill: InfraLoss(
            s.rollouts + s.not_run, s.infra_errors + s.grader_errors, s.not_run if breaker else 0, s.first_error
        )
        for s in result.skills
    }


def gated_lifts(result: TrialResult) -> list[GateCriterion]:
    """:func:`~aces_ci.gate.lift_criteria` with the infrastructure losses of ``result``: an outage is never a pass."""
    return lift_criteria(result, infra_losses(result))


def outage(criteria: Sequence[GateCriterion]) -> bool:
    """A measurement of these criteria could not be made (an ``error``): more paid work on the same API would pay
    for the same outage, and nothing of the run is stored."""
    return any(criterion.status == "error" for criterion in criteria)


@dataclass(frozen=True)
class Trialable:
    """The changed skills as the trial verb reads them: those with cases, and those that have none."""

    paths: tuple[Path, ...]
    datasets: Mapping[Path, Dataset]
    """By resolved skill directory, for the trials (a task command runs once)."""
    without: tuple[tuple[str, NoCases], ...]
    """Each skill that no source gives a case, with what was read for it."""
    broken: tuple[tuple[str, InputError], ...] = ()
    """Each skill whose dataset has a problem (a trial stops on the first; a valuation warns for each)."""

    def missing(self, criterion: Callable[[str, str], GateCriterion]) -> tuple[GateCriterion, ...]:
        """One warning per skill without cases: ``criterion(skill, what the loader found)``."""
        return tuple(criterion(skill, _found(error)) for skill, error in self.without)


def _found(error: NoCases) -> str:
    """What the dataset loader found for a skill without cases, as a warning names it."""
    if not error.sources:
        return "no eval dataset (evals/evals.json or evals/EVAL.md; `aces-ci init` scaffolds one)"
    return f"no eval case in {' or '.join(error.sources)} (`aces-ci init` scaffolds a dataset)"


def with_dataset(skills: Sequence[str], top: Path, project: Project) -> Trialable:
    """Split ``skills`` (repository-relative) with the trial verb's own loader: evals.json in any dialect,
    evals/EVAL.md and aces.yml's task command. A skill no source gives a case is left out with a warning;
    a skill whose dataset has any other problem is kept aside in :attr:`Trialable.broken`."""
    paths, datasets, without, broken = [], {}, [], []
    for skill in skills:
        path = top / skill if skill not in ("", ".") else top
        try:
            dataset = load_cases(path, project.root, None, project.config.evals)
        except NoCases as error:
            without.append((skill, error))
            continue
        except InputError as error:
            broken.append((skill, error))
            continue
        paths.append(path)
        datasets[path.resolve()] = dataset
    return Trialable(tuple(paths), datasets, tuple(without), tuple(broken))


def no_lift(bands: Bands) -> Callable[[str, str], GateCriterion]:
    """The warning of a changed skill whose lift cannot be measured: never a silent pass."""

    def criterion(skill: str, found: str) -> GateCriterion:
        return GateCriterion(
            f"lift.{bands.metric}",
            skill,
            "warn",
            f"{found}: this skill's lift was not measured, so nothing gates it",
            (),
            f"{skill}/SKILL.md" if skill not in ("", ".") else "SKILL.md",
            1,
            "NoLift",
        )

    return criterion
