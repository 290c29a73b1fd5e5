"""A valuation as the application runs it: from a resolved :class:`~aces_ci.config.ValueConfig` to a report.

``aces-ci value`` and ``aces-ci ci`` (a release's changed skills, ``mode: value``) call the same
:func:`value`: one valuation path, so a release's values are the ones ``aces-ci value`` gives on
the same settings, and share its score store. The oracle is the live agent
(:mod:`._value_live`) or a Python function; every score is kept in a store under the cache root
as it arrives, so a killed valuation loses nothing and an unchanged rerun pays for nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path

from ..config import Project, ValueConfig
from ..errors import ConfigError, InputError
from ..evals import Dataset, find_datasets
from ..skillsv import (
    CompiledSkill,
    EvaluationStore,
    LiveScorer,
    Plan,
    PythonScorer,
    RenderingOracle,
    ScoreSettings,
    Sessions,
    SkillScorer,
    Task,
    TooLargeForExact,
    UniformIntractable,
    ValueReport,
    ValueSettings,
    compile_skill,
    load_tasks,
    plan_valuation,
    valuate,
)
from ._value_live import STORE_DIR, LivePanel, live_panel, live_session

MAX_EXACT_UNITS = 15
"""Players exact mode enumerates (the trigger and 14 execution units, the paper's scale for exact checks)."""


@dataclass(frozen=True)
class ValuePlan:
    """What a valuation will do, before anything is spent: the game, its design (None: exact) and the settings."""

    game: CompiledSkill
    plan: Plan | None
    settings: ValueSettings
    runs: int
    """Rollouts per coalition score."""


def _evals_file(evals: Path | None, skill_dir: Path) -> Path:
    if evals is not None:
        return evals
    found = find_datasets(skill_dir)
    if not found:
        raise InputError("no --evals given and the skill has no evals/evals.json", path=str(skill_dir))
    return found[0]


def _planned(game: CompiledSkill, tasks: list[Task], settings: ValueSettings) -> Plan | None:
    try:
        return plan_valuation(game, tasks, settings)
    except (TooLargeForExact, UniformIntractable) as exc:
        raise ConfigError(str(exc), field="--exact" if isinstance(exc, TooLargeForExact) else "--orders") from None


def _prepared(
    skill_dir: Path, project: Project, config: ValueConfig, read: Dataset | None
) -> tuple[list[Task], ValuePlan, LivePanel | None]:
    """The cases, the plan and (live) the panel: everything before a score is paid; ConfigError/InputError."""
    game = compile_skill(skill_dir)
    panel = None
    if config.oracle == "live":
        panel = live_panel(skill_dir, project, config.evals, config.metric, config.judge, read=read)
    tasks = list(panel.tasks) if panel is not None else load_tasks(_evals_file(config.evals, skill_dir))
    if config.exact and len(game.players) > MAX_EXACT_UNITS:
        raise ConfigError(
            f"--exact enumerates every feasible coalition; this skill has {len(game.players)} units "
            f"(at most {MAX_EXACT_UNITS})",
            field="--exact",
        )
    settings = ValueSettings(
        estimator=config.estimator,
        score=dataclasses.replace(panel.score if panel is not None else ScoreSettings(), runs=config.runs_per_score),
        exact=config.exact,
        holdout=config.holdout,
        rules=config.rules,
        values_from=config.values_from,
        adaptive=config.adaptive,
    )
    return tasks, ValuePlan(game, _planned(game, tasks, settings), settings, config.runs_per_score), panel


def value_plan(skill_dir: Path, project: Project, config: ValueConfig) -> ValuePlan:
    """The design and what it will cost for the skill in ``skill_dir`` (resolved); nothing is spent."""
    _, plan, _ = _prepared(skill_dir, project, config, None)
    return plan


def _scorer(config: ValueConfig, panel: LivePanel | None, skill_dir: Path) -> AbstractContextManager[SkillScorer]:
    if panel is None or config.run is None:  # a Python oracle: no panel, no agent
        return nullcontext(PythonScorer(config.oracle_spec))
    return live_session(config.run, skill_dir, config.cache_root, panel)


def value(
    skill_dir: Path,
    project: Project,
    config: ValueConfig,
    *,
    read: Dataset | None = None,
    on_plan: Callable[[ValuePlan], None] | None = None,
) -> ValueReport:
    """Compile and value the skill in ``skill_dir`` (resolved) as ``config`` says.

    ``read`` is the skill's dataset when the caller already loaded it (``ci``: a task command runs once);
    ``on_plan`` gets the plan (design and cost) before anything is paid. ConfigError/InputError before
    anything is paid.
    """
    tasks, planned, panel = _prepared(skill_dir, project, config, read)
    if on_plan is not None:
        on_plan(planned)
    root = config.cache_root
    store = EvaluationStore(root / STORE_DIR) if root is not None else None
    try:
        with _scorer(config, panel, skill_dir) as scorer:
            oracle = RenderingOracle(planned.game, scorer, store)
            report = valuate(planned.game, tasks, oracle, planned.settings, planned.plan)
            if isinstance(scorer, LiveScorer):  # its journal knows what earlier sessions of this valuation paid
                report = dataclasses.replace(report, sessions=Sessions(scorer.earlier_sessions(), scorer.reused))
    except (TooLargeForExact, UniformIntractable) as exc:
        raise ConfigError(str(exc), field="--exact" if isinstance(exc, TooLargeForExact) else "--orders") from None
    finally:
        if store is not None:
            store.close()
    return report
