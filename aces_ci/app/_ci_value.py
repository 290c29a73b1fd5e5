"""SkillSV inside ``aces-ci ci``: the units of a release's changed skills (or ``mode: value``'s) valued live.

Each skill that has an eval dataset is valued exactly as ``aces-ci value SKILL_DIR`` values it
(:func:`aces_ci.app.value`, the verb's defaults, ``ci``'s run flags), with a
held-out share of its cases (``--value-holdout``, default ¼) for the pruning test, so the
comment can draw the pruning curve.

**The budget split.** A release's trials gate it; SkillSV only explains. So the trials run
first and take what they need of the run's budget (``--budget-usd``, ``--max-rollouts``, or
aces.yml ``run:``); SkillSV gets what they left, lowered further by ``--value-budget-usd`` when
set, and each skill's valuation gets what the ones before it left. A skill reached when nothing
is left is not valued, and the run says so (a note in the comment and a ``skipped`` JUnit case
naming the budget); a valuation the budget stops part-way reports the chains it completed, with
their wider intervals, and says it stopped.

What reaches the reader: per skill the report room's view (low-value units with line links,
the pruning chart; every name from the repository root, as the trials', which ``ci`` shows from
the scanned root), the closure check as a gate criterion (a warning at most:
:func:`~aces_ci.gate.closure_criteria`), a warning annotation on each unit whose decision is
*delete* at its file and line, and one JSON value report per skill in ``<reports>/value/``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..agents import render_skill_dir
from ..atomic import write_output
from ..config import CiConfig, Project, ValueConfig, ValueFlags, resolve_value
from ..engine import Budget
from ..errors import InputError
from ..evals import Dataset
from ..gate import GateCriterion, closure_criteria
from ..github import Annotation
from ..redact import environment_secrets, redact_text
from ..report import SourceLinks, json_bytes, skill_title
from ..skillsv import SkillValueView, ValueReport, skill_value, value_json
from ._value import value

VALUE_REPORTS = "value"
"""The folder of per-skill value reports inside ``--reports``."""
_STOPS = {
    "max_evaluations": "its evaluation cap",
    "budget_usd": "the dollar budget",
    "max_rollouts": "the rollout budget",
    "max_wall": "the wall-time limit (--max-wall)",
    "oracle_error": "an oracle failure",
}


@dataclass(frozen=True)
class ValueBudget:
    """What SkillSV may still spend: None is "no cap"."""

    usd: float | None
    rollouts: int | None

    @classmethod
    def share(cls, left: Budget, value_usd: float | None) -> ValueBudget:
        """What the trials ``left`` of the run's budget, lowered to ``value_usd`` when that is set."""
        usd = left.max_usd
        if value_usd is not None:
            usd = value_usd if usd is None else min(usd, value_usd)
        return cls(usd, left.max_rollouts)

    @property
    def spent(self) -> bool:
        return (self.usd is not None and self.usd <= 0) or (self.rollouts is not None and self.rollouts <= 0)

    def after(self, report: ValueReport) -> ValueBudget:
        """What is left once ``report`` (its valuation and its pruning test) is paid for."""
        cost, pruning = report.valuation.cost, report.pruning_cost
        usd = cost.cost_usd + (pruning.cost_usd if pruning is not None else 0.0)
        rollouts = cost.rollouts + (pruning.rollouts if pruning is not None else 0)
        return ValueBudget(
            None if self.usd is None else max(self.usd - usd, 0.0),
            None if self.rollouts is None else max(self.rollouts - rollouts, 0),
        )

    def describe(self) -> str:
        parts = ([f"${self.usd:.4f}"] if self.usd is not None else []) + (
            [f"{self.rollouts} rollouts"] if self.rollouts is not None else []
        )
        return " and ".join(parts) or "no cap"


@dataclass(frozen=True)
class ValueOutcome:
    """What SkillSV measured in this run, for the comment, the gate, the annotations and the outputs."""

    values: tuple[SkillValueView, ...] = ()
    criteria: tuple[GateCriterion, ...] = ()
    notes: tuple[str, ...] = ()
    report_dir: Path | None = None
    written: Mapping[Path, str] = field(default_factory=dict)
    """Each report this run wrote, with the repository-relative folder of the skill it values."""


def _criterion(skill: str, status: str, message: str, kind: str) -> GateCriterion:
    skill_md = f"{skill}/SKILL.md" if skill not in ("", ".") else "SKILL.md"
    return GateCriterion("skillsv.value", skill, status, message, (), skill_md, 1, kind)  # type: ignore[arg-type]


def no_dataset(skill: str, found: str) -> GateCriterion:
    """A warning for a skill SkillSV cannot value: it has no cases to score coalitions on (``found`` says what the
    dataset loader read for it)."""
    return _criterion(skill, "warn", f"{found}: its units were not valued", "NoDataset")


def cannot_value(skill: str, error: InputError) -> GateCriterion:
    """A warning for a skill SkillSV was given but could not value (its dataset or its game has a problem)."""
    return _criterion(skill, "warn", f"SkillSV could not value this skill: {error}", "NoValue")


def oracle_failed(skill: str, chains: int, planned: int, error: str | None) -> GateCriterion:
    """An ``error`` for a valuation its oracle stopped: in ``ci`` the live agent's rollouts (or their grading)
    failed, an outage, never "no unit is clearly low-value". Its scores and rollouts are cached: a rerun resumes."""
    message = (
        f"infrastructure error: SkillSV's oracle failed after {chains}/{planned} chains "
        f"({error or 'no reason given'}); the unit values are incomplete. To retry, rerun the job: scored "
        "coalitions and completed rollouts are cached and not paid again"
    )
    return _criterion(skill, "error", message, "InfrastructureError")


def delete_annotations(views: Sequence[SkillValueView], links: SourceLinks) -> list[Annotation]:
    """A warning on each unit SkillSV says to delete, at its lines (``views`` name files from the scanned root)."""
    out = []
    for view in views:
        for unit in view.units:
            if unit.decision != "delete":
                continue
            lo, hi = unit.ci
            message = (
                f"SkillSV: unit {unit.id} ({unit.preview[:80]}) has net effect {unit.net_effect:+.3f}, 95% interval "
                f"[{lo:+.3f}, {hi:+.3f}]: the skill scores no worse without it, and it costs {unit.tokens} tokens "
                "of context (a delete candidate)"
            )
            title = f"skillsv.delete ({skill_title(view.skill, view.name)})"
            out.append(Annotation("warning", message, links.path(unit.file), unit.lines[0], title))
    return out


class ValueRun:
    """Values skills one after another within one :class:`ValueBudget`."""

    def __init__(
        self,
        config: CiConfig,
        project: Project,
        top: Path,
        cache_dir: Path | None,
        read: Mapping[Path, Dataset] | None = None,
    ) -> None:
        self.config, self.project, self.top, self.cache_dir = config, project, top, cache_dir
        self.read = read or {}
        """Datasets ci already read to choose its skills (by resolved folder): a task command is not run again."""

    def _config(self, skill_dir: Path, budget: ValueBudget) -> ValueConfig:
        """The valuation's config: ``aces-ci value``'s defaults, ci's run flags, the trials' rollout cache, the
        valuation's own journal beside its score store (never the trials'), and what is left of the budget."""
        run = dataclasses.replace(
            self.config.run,
            cache_dir=self.cache_dir,
            journal=None,
            budget_usd=budget.usd,
            max_rollouts=budget.rollouts,
        )
        return resolve_value(self.project.config, ValueFlags(run=run, holdout=self.config.value_holdout), skill_dir)

    def _name(self, path: Path) -> str:
        """The skill's folder relative to the repository, as the trials name it (``ci`` renames it for display)."""
        return path.resolve().relative_to(self.top.resolve()).as_posix() or "."

    def _title(self, path: Path) -> str:
        """What a note calls the skill: its folder, or its name when it sits at the repository root."""
        try:
            name = render_skill_dir(path).name
        except InputError:
            name = path.resolve().name
        return skill_title(self._name(path), name)

    def run(self, paths: Sequence[Path], budget: ValueBudget) -> ValueOutcome:
        """Value each skill folder in ``paths`` (each with a dataset) while ``budget`` lasts."""
        views: list[SkillValueView] = []
        criteria: list[GateCriterion] = []
        notes: list[str] = []
        folder = self.config.reports.folder / VALUE_REPORTS
        written: dict[Path, str] = {}
        for index, path in enumerate(paths):
            skill = self._name(path)
            if budget.spent:
                missed = [self._name(p) for p in paths[index:]]
                shown = [self._title(p) for p in paths[index:]]
                message = (
                    "not valued: the trials and the valuations before it spent the run's budget "
                    "(raise --budget-usd or --max-rollouts, or value it with `aces-ci value` in a step of its own)"
                )
                criteria += [_criterion(name, "skipped", message, "BudgetSpent") for name in missed]
                notes.append(f"SkillSV did not run for {', '.join(shown)}: the run's budget was spent before them.")
                break
            try:
                skill_dir = path.resolve()
                config = self._config(skill_dir, budget)
                report = value(skill_dir, self.project, config, read=self.read.get(skill_dir))
            except InputError as exc:
                criteria.append(cannot_value(skill, exc))
                continue
            budget = budget.after(report)
            target = folder / f"{skill.replace('/', '-') if skill != '.' else 'skill'}.json"
            text = redact_text(json_bytes(value_json(report)).decode(), environment_secrets())
            write_output(target, text.encode(), "SkillSV value report")
            written[target] = skill
            valuation = report.valuation
            if valuation.stopped_by is not None and not valuation.measured:
                stop = _STOPS.get(valuation.stopped_by, valuation.stopped_by)
                notes.append(
                    f"SkillSV of {self._title(path)} stopped at {stop} before any of its {valuation.chains_planned} "
                    f"chains completed ({valuation.cost.evaluations} coalition scores ran): no unit values and no "
                    "conclusions."
                )
            elif valuation.stopped_by is not None:
                stop = _STOPS.get(valuation.stopped_by, valuation.stopped_by)
                notes.append(
                    f"SkillSV of {self._title(path)} stopped at {stop} after {valuation.chains}/"
                    f"{valuation.chains_planned} chains: its values come from the completed chains only, "
                    "with wider intervals."
                )
            if valuation.stopped_by == "oracle_error":
                criteria.append(oracle_failed(skill, valuation.chains, valuation.chains_planned, valuation.error))
                if valuation.chains == 0:  # nothing was measured: no unit table that reads as "all fine"
                    continue
            view = skill_value(report, skill)
            if view is None and not valuation.measured:
                continue
            if view is None:
                notes.append(
                    f"SkillSV of {self._title(path)} measured no content lift, so it has no unit values to show."
                )
                continue
            views.append(view)
        criteria += closure_criteria(views)
        return ValueOutcome(tuple(views), tuple(criteria), tuple(notes), folder if written else None, written)
