"""What a valuation will cost before it spends anything, and a design sized to the budget it has.

:func:`planned_scores` counts the distinct coalition scores an untruncated run asks for: it draws the
very orders and windows :class:`~aces_ci.skillsv.Estimator` will draw (same seed), so the count is
exact, not a formula — before the persistent cache, which serves some of them for free.

:func:`fit_to_budget` makes a small budget return values instead of nothing. Without truncation the
window size buys nothing measurable at equal rollouts (BENCHMARKS.md, round two: shares within seed
noise for b = 1…8), so the panel anchors go first (the chains' windows give the anchors), then the
window shrinks; then K, to no fewer than :data:`MIN_ORDERS` (two
antithetic pairs: the fewest a chain bootstrap can resample); then ρ_pad is dropped (the net effect,
which every keep / cut decision reads, needs only ρ_del). Under a sampled design the half-coalitions
give content values and context costs whatever the chains' share, so ρ_pad is dropped there only below
:data:`PAD_ROWS_PER_COLUMN` scores per coefficient. Each step is said in the notes.

With ``sample_share`` (the interaction model's default under a budget the model can be fitted on) the
chains get (1 − share) of the budget — K shrinks first, then the window, the panel anchors stay — and
the sampled half-coalitions fill the rest (:meth:`~aces_ci.skillsv.Estimator._sample_halves`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ._estimate import Estimator, EstimatorSettings
from ._interaction import SPARSE_MIN_ROWS_PER_COLUMN, model_columns
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


def _smaller_window(
    structure: GameStructure, tasks: Sequence[Task], fitted: EstimatorSettings, scores: int, limit: int
) -> tuple[EstimatorSettings, int]:
    window = min(fitted.window, len(tasks))
    while window > 1 and scores > limit:
        window = max(1, window // 2)
        fitted = replace(fitted, window=window)
        scores = planned_scores(structure, tasks, fitted)
    return fitted, scores


def _fewer_orders(
    structure: GameStructure, tasks: Sequence[Task], fitted: EstimatorSettings, scores: int, limit: int
) -> tuple[EstimatorSettings, int]:
    orders = fitted.orders
    while orders > MIN_ORDERS and scores > limit:
        orders = max(MIN_ORDERS, orders - 2)
        fitted = replace(fitted, orders=orders)
        scores = planned_scores(structure, tasks, fitted)
    return fitted, scores


PAD_ROWS_PER_COLUMN = 8
"""Under a sampled design ρ_pad is scored (a third of the half-coalitions) only from this many scores per
coefficient of the pairwise model: below it the κ terms are too noisy to leave the fit, so ρ_pad rows stop
informing net effects. At 60 rollouts per unit (4–6 scores per coefficient) keeping ρ_pad took the right
keep / cut calls from 39% / 70% to 27% / 58% at 16 / 24 units (BENCHMARKS.md, round seven)."""


def _columns(structure: GameStructure, tasks: Sequence[Task]) -> int:
    """Coefficients of the pairwise interaction model on this skill (the trigger is in every coalition)."""
    return model_columns(structure.size - 1, len(tasks))


def _model_fits(structure: GameStructure, tasks: Sequence[Task], budget: int) -> bool:
    """Whether a budget of scores could fit the sparse interaction model on half-coalitions
    (:data:`SPARSE_MIN_ROWS_PER_COLUMN` per coefficient). Below that sampled coalitions would inform
    nothing and starve the chains, whose values then stand (16 units at 60 rollouts per unit: coverage
    0.75 with round five's prefixes and model, 0.99 without; BENCHMARKS.md, round five)."""
    return budget >= SPARSE_MIN_ROWS_PER_COLUMN * _columns(structure, tasks)


_PAD_DROPPED = "ρ_pad dropped (net effects only: no content value, context cost or compress decision)"


def _sampled_note(chain_scores: int) -> str:
    return f"{chain_scores:,} scores on chains, the rest on sampled half-coalitions"


def fit_to_budget(structure: GameStructure, tasks: Sequence[Task], settings: EstimatorSettings) -> Plan:
    """``settings`` shrunk until its planned scores fit ``settings.budget_scores`` (see the module docstring).

    With ``sample_share`` the chains are sized to (1 − share) of the budget and the sampled half-coalitions fill
    the rest. Without a budget the design is the K chains asked for and no half-coalitions (``-K`` means K
    chains); with a budget too small to fit the model, chains alone.
    """
    if settings.budget_scores is None or not _model_fits(structure, tasks, settings.budget_scores):
        settings = replace(settings, sample_share=0.0)
    share = settings.sample_share
    budget = settings.budget_scores
    asked = settings.operators
    if share > 0 and budget is not None and budget < PAD_ROWS_PER_COLUMN * _columns(structure, tasks):
        settings = replace(settings, operators=tuple(op for op in settings.operators if op != "pad"))
    chains_only = replace(settings, sample_share=0.0)
    limit = None if budget is None else int((1.0 - share) * budget)
    scores = planned_scores(structure, tasks, chains_only)
    if limit is None or scores <= limit:
        if share == 0:
            return Plan(settings, scores, ())
        dropped = (_PAD_DROPPED,) if settings.operators != asked else ()
        return Plan(settings, planned_scores(structure, tasks, settings), (*dropped, _sampled_note(scores)))
    fitted = chains_only
    if settings.panel_anchors and share == 0:
        fitted = replace(fitted, panel_anchors=False)
        scores = planned_scores(structure, tasks, fitted)
    steps = (_fewer_orders, _smaller_window) if share > 0 else (_smaller_window, _fewer_orders)
    for step in steps:
        fitted, scores = step(structure, tasks, fitted, scores, limit)
    if scores > limit and "pad" in fitted.operators and share == 0:
        fitted = replace(fitted, operators=("del",))
        scores = planned_scores(structure, tasks, fitted)
    fitted = replace(fitted, sample_share=share)
    if share > 0:
        scores = planned_scores(structure, tasks, fitted)
    notes = []
    if fitted.panel_anchors != settings.panel_anchors:
        notes.append("anchors from the chains' windows, not the whole panel")
    if fitted.window != settings.window:
        notes.append(f"window {settings.window} → {fitted.window} cases")
    if fitted.orders != settings.orders:
        notes.append(f"K {settings.orders} → {fitted.orders} orders")
    if fitted.operators != asked:
        notes.append(_PAD_DROPPED)
    if share > 0:
        notes.append(_sampled_note(planned_scores(structure, tasks, replace(fitted, sample_share=0.0))))
    if budget is not None and scores > budget:
        notes.append(f"still {scores:,} scores: the budget will stop it part-way")
    return Plan(fitted, scores, tuple(notes))
