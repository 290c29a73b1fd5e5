"""A valuation as the report room reads it, and a skill's compile summary in one line.

:mod:`aces_ci.report` renders SkillSV results (the PR comment's low-value units and pruning
chart, the gate's closure check) from Protocols (``SkillValue``, ``UnitValue``, ``PruningCurve``)
whose shape differs from the valuation's own model where the two serve different readers: the
report wants a unit's file relative to the *scanned root* (so it can link the line), a net effect
that is always a number, and a pruning curve over counts of units removed; the valuation keeps
files relative to the skill, ``None`` for a value no chain measured, and removal as a share.
:func:`skill_value` builds the report's view; it lists only the units that have a net effect
(the trigger and any unit a budget stop left unmeasured have none), and gives no view at all
when no chain completed (panel anchors alone say nothing about any unit) or the content lift was not
measured, rather than a zero or an empty table that would read like a finding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ._decisions import decision_summary
from ._model import CompiledSkill, UnitKind
from ._pruning import CurveMethod
from ._result import Decision, Estimate
from ._valuate import ValueReport


@dataclass(frozen=True)
class UnitView:
    id: str
    kind: UnitKind
    file: str
    """Relative to the scanned root."""
    lines: tuple[int, int]
    tokens: int
    preview: str
    net_effect: float
    ci: tuple[float, float]
    content_value: float | None
    context_cost: float | None
    decision: Decision
    rollouts_to_decide: int | None = None
    """For an ``unresolved`` unit: about how many more rollouts would decide it (the forecast's scores times the
    rollouts a score is the mean of); None otherwise or when no forecast exists."""
    rollouts_range: tuple[int, int | None] | None = None
    """The middle 80% of the forecast's simulated continued runs, in rollouts (None above: past what it simulated)."""
    reason: str = ""
    """Why the unit got its decision, in words (a unit held for what requires it says what deleting them would do)."""


@dataclass(frozen=True)
class PairView:
    """Two units the interaction model is sure interact (a Bonferroni test over every pair it tested)."""

    units: tuple[str, str]
    effect: float
    """What the pair adds when both are in, beyond their two effects, shrunk toward 0 by the sparse fit."""
    ci: tuple[float, float]


@dataclass(frozen=True)
class PrecisionView:
    """What the run's precision can tell apart (:func:`~aces_ci.skillsv.resolution_line`)."""

    half_width: float
    """Median half-width of the units' 95% intervals: about the smallest |net effect| kept or deleted."""
    negligible_within: float
    """About the largest |net effect| the equivalence test can call negligible (0: none can be)."""
    margin: float
    """δ of the decisions."""


@dataclass(frozen=True)
class CurveView:
    method: CurveMethod
    removed: tuple[int, ...]
    """Execution units removed at each point, from 0."""
    score: tuple[float, ...]
    auc: float


@dataclass(frozen=True)
class SkillValueView:
    skill: str
    """The skill's directory relative to the scanned root (``.`` for the root itself)."""
    name: str
    """The skill's name (the frontmatter's, else its folder's): what a heading calls a skill at the root."""
    units: tuple[UnitView, ...]
    content_lift: float
    closure_ratio: float | None
    closure_ci: tuple[float, float] | None
    pruning: tuple[CurveView, ...]
    order_distribution: str
    closure_is_check: bool = False
    """Whether Σφ/Λ tests anything: only where truncation can break it (without it the chains' values add up to
    the content lift by construction, and a ratio of 1.00 would be an identity shown as a check)."""
    precision: PrecisionView | None = None
    interactions: tuple[PairView, ...] = ()


def _interval(estimate: Estimate) -> tuple[float, float]:
    return (estimate.ci.lo, estimate.ci.hi) if estimate.ci is not None else (estimate.value, estimate.value)


def _joined(skill: str, file: str) -> str:
    return file if skill in ("", ".") else f"{skill.rstrip('/')}/{file}"


def skill_value(report: ValueReport, skill: str) -> SkillValueView | None:
    """The report's view of ``report``; ``skill`` is the skill's directory relative to the scanned root."""
    valuation = report.valuation
    lift = valuation.content_lift
    if not valuation.measured or lift is None or not math.isfinite(lift.value):
        return None
    game = report.game
    runs = report.settings.score.runs
    units = []
    for unit in valuation.units:
        if unit.net_effect is None:
            continue
        player = game.player(unit.unit)
        units.append(
            UnitView(
                id=unit.unit,
                kind=player.kind,
                file=_joined(skill, player.file),
                lines=player.lines,
                tokens=player.tokens,
                preview=player.preview,
                net_effect=unit.net_effect.value,
                ci=_interval(unit.net_effect),
                content_value=None if unit.content_value is None else unit.content_value.value,
                context_cost=None if unit.context_cost is None else unit.context_cost.value,
                decision=unit.decision,
                reason=unit.reason,
                rollouts_to_decide=None if unit.scores_to_decide is None else unit.scores_to_decide * runs,
                rollouts_range=None
                if unit.scores_range is None
                else (
                    unit.scores_range[0] * runs,
                    None if unit.scores_range[1] is None else unit.scores_range[1] * runs,
                ),
            )
        )
    curves: list[CurveView] = []
    if report.held_out is not None:
        execution = len(game.players) - 1
        for curve in report.held_out.curves:
            removed = tuple(round(share * execution) for share in curve.removed)
            curves.append(CurveView(curve.method, removed, tuple(curve.scores), curve.auc))
    closure = valuation.closure_ratio
    summary = decision_summary(game, valuation)
    within = summary.negligible_within(valuation.margin)
    precision = (
        None
        if summary.half_width is None or within is None
        else PrecisionView(summary.half_width, within, valuation.margin)
    )
    return SkillValueView(
        skill=skill,
        name=game.name,
        units=tuple(units),
        content_lift=lift.value,
        closure_ratio=None if closure is None else closure.value,
        closure_ci=None if closure is None or closure.ci is None else (closure.ci.lo, closure.ci.hi),
        pruning=tuple(curves),
        order_distribution=report.settings.estimator.distribution,
        closure_is_check=report.closure_is_check,
        precision=precision,
        interactions=tuple(
            PairView(pair.units, pair.effect.value, _interval(pair.effect)) for pair in valuation.interactions
        ),
    )


def compile_summary(game: CompiledSkill) -> str:
    """``14 units (11 body, 2 resource, …), 9 edges, 1,204 tokens, 0 contractions``: what ``ci`` notes per skill."""
    kinds = [unit.kind for unit in game.players]
    fallbacks = sum(1 for unit in game.players if unit.fallback)
    parts = [f"{kinds.count('body')} body"]
    if kinds.count("protected"):
        parts.append(f"{kinds.count('protected')} protected" + (f" ({fallbacks} fallback)" if fallbacks else ""))
    parts.extend([f"{kinds.count('resource')} resource", "1 trigger"])
    content_edges = sum(1 for edge in game.edges if edge.rule != "R6")
    tokens = sum(unit.tokens for unit in game.players)
    return (
        f"{len(game.players)} units ({', '.join(parts)}), {content_edges} dependency edges, {tokens:,} tokens, "
        f"{len(game.contractions)} contractions, {len(game.repairs)} hierarchy repairs"
    )
