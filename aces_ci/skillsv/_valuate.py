"""One valuation end to end: estimate (or enumerate), decide, aggregate, and run the pruning test.

This is what ``aces-ci value`` calls once it has a compiled skill, a task panel and an oracle. The
oracle is any :class:`~aces_ci.skillsv.CoalitionOracle`; the command builds a
:class:`~aces_ci.skillsv.RenderingOracle` over the scorer the user chose.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from ..frozen import frozen
from ._adaptive import adaptive_valuation
from ._budget import Plan, fit_to_budget
from ._estimate import Estimator, EstimatorSettings, Meter
from ._exact_run import exact_valuation
from ._interaction import with_interaction
from ._model import CompiledSkill
from ._oracle import CoalitionOracle, Task
from ._pruning import CurveMethod, PruningCurve, closure_loo, pruning_curves, random_ranking, rank
from ._result import Valuation, ValueEstimator
from ._structure import GameStructure, bits
from ._summary import DEFAULT_RULES, DecisionRules, summarize
from ._tasks import split_panels


@dataclass(frozen=True)
class ScoreSettings:
    """What the oracle's score of a coalition on a case is, as the report states it (the estimand's V)."""

    metric: str | None = None
    """The grading seam's metric, ``composite`` or ``outcome`` (the live oracle); None: the oracle's own number."""
    definition: str = "the oracle's own number for the rendered skill on the case"
    judge: str | None = None
    """The judge model grading the rollouts (``provider/model``); None without one."""
    runs: int = 1
    """Rollouts a score is the mean of (``run.runs``): what turns the forecast's "more scores" into the
    rollouts a budget is set in."""


@dataclass(frozen=True)
class ValueSettings:
    estimator: EstimatorSettings = field(default_factory=EstimatorSettings)
    score: ScoreSettings = field(default_factory=ScoreSettings)
    exact: bool = False
    holdout: float = 0.0
    """Share of cases held out for the pruning test; 0 skips it."""
    rules: DecisionRules = DEFAULT_RULES
    bootstrap: int = 1000
    values_from: ValueEstimator = "interaction"
    """aces.yml ``value.estimator``: net effects from the interaction model (checked against held-out
    chains, :mod:`._interaction`) or from the chains alone."""
    adaptive: bool = False
    """aces.yml ``value.adaptive``: look at half the budget, pay the rest only while a unit is open
    (:mod:`._adaptive`); it applies with a score budget and the interaction model."""


@dataclass(frozen=True)
class HeldOut:
    """The pruning test on panel B, with the baselines' rankings."""

    tasks: int
    curves: tuple[PruningCurve, ...]
    closure_loo: Mapping[str, float]
    full: float
    """V(N) on panel B (the start of every curve)."""
    trigger_only: float
    """V({m}) on panel B (the end of every curve)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "closure_loo", frozen(self.closure_loo))

    @property
    def content_lift(self) -> float:
        return self.full - self.trigger_only


@dataclass(frozen=True)
class Sessions:
    """What a live valuation's rollouts cost across sessions (a killed run resumed pays only what is missing)."""

    earlier: int
    """Rollouts earlier sessions of this valuation paid for, from its journal (0 without one)."""
    reused: int
    """Rollouts this run took from the rollout cache or the journal instead of paying for them."""


@dataclass(frozen=True)
class ValueReport:
    game: CompiledSkill
    valuation: Valuation
    oracle: str
    settings: ValueSettings
    attribution_tasks: int
    held_out: HeldOut | None
    pruning_cost: Meter | None
    sessions: Sessions | None = None
    """The live agent's accounting across sessions; None for an oracle with no journal (a Python oracle)."""
    fitted: tuple[str, ...] = ()
    """How the design was sized down to the budget (:func:`~aces_ci.skillsv.fit_to_budget`); empty if it was not."""
    second_look_scores: int = 0
    """Scores adaptive allocation paid after its first look (0: every unit was decided there, or the fixed
    design ran)."""
    decided_first: int | None = None
    """Units adaptive allocation decided at its first look; None when it took no looks."""

    @property
    def closure_is_check(self) -> bool:
        """Whether Σφ/Λ tests anything: only where truncation can break it. Without it the chains' values add up
        to the content lift by construction, and a ratio of 1.00 would be an identity shown as a check."""
        return self.settings.estimator.tolerance is not None and self.valuation.method == "estimate"

    @property
    def paid_now(self) -> int:
        """Rollouts this run paid for: the valuation's and the pruning test's."""
        return self.valuation.cost.rollouts + (self.pruning_cost.rollouts if self.pruning_cost is not None else 0)

    @property
    def paid(self) -> int:
        """Rollouts paid for in every session: this run's and, from the journal, the earlier sessions'."""
        return self.paid_now + (self.sessions.earlier if self.sessions is not None else 0)


def removal_values(structure: GameStructure, valuation: Valuation) -> dict[str, float | None]:
    """What removing each unit costs: the net effects of the unit and of every unit that requires it.

    The pruning walk removes a unit with its dependents, so a prerequisite whose own value is ~0
    (its value went to the units that need it) is only as expendable as those units together.
    """
    net = {u.unit: (u.net_effect.value if u.net_effect is not None else None) for u in valuation.units}
    out: dict[str, float | None] = {}
    for unit in net:
        removed = [structure.players[i] for i in bits(structure.closure_of_dependents(structure.index[unit]))]
        values = [net.get(player) for player in removed if player in net]
        out[unit] = None if any(v is None for v in values) else sum(v for v in values if v is not None)
    return out


def plan_valuation(game: CompiledSkill, tasks: Sequence[Task], settings: ValueSettings) -> Plan | None:
    """The estimator's design fitted to the budget and the scores it asks for; None for exact enumeration."""
    if settings.exact:
        return None
    panel_a, _ = split_panels(tasks, settings.holdout, settings.estimator.seed)
    return fit_to_budget(GameStructure.of(game), panel_a, settings.estimator)


def valuate(
    game: CompiledSkill,
    tasks: Sequence[Task],
    oracle: CoalitionOracle,
    settings: ValueSettings,
    plan: Plan | None = None,
) -> ValueReport:
    """Value ``game``'s units on ``tasks``, on ``plan``'s design (:func:`plan_valuation` when not given)."""
    structure = GameStructure.of(game)
    seed = settings.estimator.seed
    plan = plan if plan is not None else plan_valuation(game, tasks, settings)
    if plan is not None:
        settings = replace(settings, estimator=plan.settings)
    panel_a, panel_b = split_panels(tasks, settings.holdout, seed)
    estimator = settings.estimator
    second_look, decided_first = 0, None
    if settings.exact:
        valuation = exact_valuation(
            structure,
            oracle,
            panel_a,
            operators=estimator.operators,
            distribution=estimator.distribution,
            seed=seed,
            groups=game.groups,
            rules=settings.rules,
        )
    elif settings.adaptive and settings.values_from == "interaction" and estimator.budget_scores is not None:
        adaptive = adaptive_valuation(
            structure, panel_a, oracle, estimator, settings.rules, groups=game.groups, bootstrap=settings.bootstrap
        )
        valuation, second_look = adaptive.valuation, adaptive.second_look_scores
        decided_first = None if adaptive.decided_first is None else len(adaptive.decided_first)
    else:
        run = Estimator(structure, panel_a, oracle, estimator).estimate()
        valuation = summarize(run, game.groups, settings.rules, settings.bootstrap)
        if settings.values_from == "interaction":
            valuation = with_interaction(run, valuation, settings.rules)
    held_out = None
    meter = None
    if panel_b and valuation.stopped_by is None:
        meter = Meter()
        loo = closure_loo(structure, oracle, panel_a, seed, meter)
        rankings: dict[CurveMethod, list[str]] = {
            "skillsv": rank(removal_values(structure, valuation), seed),
            "closure_loo": rank(dict(loo), seed),
            "random": random_ranking([u.unit for u in valuation.units], seed),
        }
        curves = pruning_curves(structure, oracle, panel_b, rankings=rankings, seed=seed, meter=meter)
        held_out = HeldOut(len(panel_b), tuple(curves), loo, curves[0].scores[0], curves[0].scores[-1])
    fitted = plan.notes if plan is not None else ()
    return ValueReport(
        game,
        valuation,
        oracle.identity,
        settings,
        len(panel_a),
        held_out,
        meter,
        fitted=fitted,
        second_look_scores=second_look,
        decided_first=decided_first,
    )
