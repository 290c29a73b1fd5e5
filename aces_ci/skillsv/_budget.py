"""What a valuation will cost before it spends anything, and a design sized to the budget it has.

:func:`planned_scores` counts the distinct coalition scores an untruncated run asks for: it draws the
very orders and windows :class:`~aces_ci.skillsv.Estimator` will draw (same seed), so the count is
exact, not a formula — before the persistent cache, which serves some of them for free.

:func:`fit_to_budget` makes a small budget return values instead of nothing. Without truncation the
window size buys nothing measurable at equal rollouts (BENCHMARKS.md, round two: shares within seed
noise for b = 1…8), so the panel anchors go first (the chains' windows give the anchors), then the
window shrinks; then K, to no fewer than :data:`MIN_ORDERS` (two
antithetic pairs: the fewest a chain bootstrap can resample); then ρ_pad is dropped (the net effect,
which every keep / cut decision reads, needs only ρ_del). Each step is said in the notes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ._estimate import Estimator, EstimatorSettings
from ._oracle import CoalitionOracle, CoalitionRequest, Outcome, Task
from ._structure import GameStructure

MIN_ORDERS = 4
"""The fewest chains a fitted design keeps: two antithetic pairs."""


class _Counter:
    """An oracle that scores nothing: the plan is drawn, never paid for."""

    identity = "plan"

    def evaluate(self, requests: Sequence[CoalitionRequest]) -> list[Outcome]:
        return [Outcome(0.0, rollouts=0) for _ in requests]


@dataclass(frozen=True)
class Plan:
    settings: EstimatorSettings
    scores: int
    """Distinct coalition scores the run asks for (each one rollout per run of the case)."""
    notes: tuple[str, ...]
    """How the design was changed to fit the budget, in words; empty when it was not."""


def planned_scores(structure: GameStructure, tasks: Sequence[Task], settings: EstimatorSettings) -> int:
    """Distinct coalition scores an untruncated run with ``settings`` asks for (anchors included)."""
    free = replace(settings, tolerance=None, max_evaluations=None, max_usd=None)
    counter: CoalitionOracle = _Counter()
    run = Estimator(structure, tasks, counter, free).estimate()
    return run.meter.evaluated


def fit_to_budget(structure: GameStructure, tasks: Sequence[Task], settings: EstimatorSettings) -> Plan:
    """``settings`` shrunk until its planned scores fit ``settings.budget_scores`` (see the module docstring)."""
    scores = planned_scores(structure, tasks, settings)
    budget = settings.budget_scores
    if budget is None or scores <= budget:
        return Plan(settings, scores, ())
    fitted = settings
    if settings.panel_anchors:
        fitted = replace(fitted, panel_anchors=False)
        scores = planned_scores(structure, tasks, fitted)
    window = min(settings.window, len(tasks))
    while window > 1 and scores > budget:
        window = max(1, window // 2)
        fitted = replace(fitted, window=window)
        scores = planned_scores(structure, tasks, fitted)
    orders = fitted.orders
    while orders > MIN_ORDERS and scores > budget:
        orders = max(MIN_ORDERS, orders - 2)
        fitted = replace(fitted, orders=orders)
        scores = planned_scores(structure, tasks, fitted)
    if scores > budget and "pad" in fitted.operators:
        fitted = replace(fitted, operators=("del",))
        scores = planned_scores(structure, tasks, fitted)
    notes = []
    if fitted.panel_anchors != settings.panel_anchors:
        notes.append("anchors from the chains' windows, not the whole panel")
    if fitted.window != settings.window:
        notes.append(f"window {settings.window} → {fitted.window} cases")
    if fitted.orders != settings.orders:
        notes.append(f"K {settings.orders} → {fitted.orders} orders")
    if fitted.operators != settings.operators:
        notes.append("ρ_pad dropped (net effects only: no content value, context cost or compress decision)")
    if scores > budget:
        notes.append(f"still {scores:,} scores: the budget will stop it part-way")
    return Plan(fitted, scores, tuple(notes))
