"""What a valuation tells an author to do, in one place: the text report, the JSON and ``ci`` read it.

A valuation's product is its decisions, not its numbers: which units to cut (harmful, or doing less
than δ while costing context), which to compress, which to keep, and what more evidence would settle
the rest. :func:`decision_summary` groups the units; :func:`decision_line` says it in one sentence.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from ._model import CompiledSkill
from ._result import Valuation

CROSSING_PATHS = 2000
CROSSING_STEP = 1.25
"""Looks of the simulated continued run: the design scaled by 1.25, 1.25², … (the benchmark's ladder)."""
CROSSING_HORIZON = 64.0
CROSSING_CANDIDATES = 200
Z95 = 1.96


def equivalence_scale(confidence: float) -> float:
    """Each side of a two-sided interval at ``confidence`` times this is a side of the interval the
    equivalence test for ``negligible`` reads (:func:`~._summary.decide`), which tests each side at
    α = 1 − ``confidence``: at 95%, the 90% interval (z 1.645 against 1.96); at adaptive allocation's
    looks, α/3 and 2α/3 a side. With a t on 39 degrees of freedom the exact ratio at 95% is 0.833, so
    the normal's 0.839 errs wide."""
    alpha = 1.0 - confidence
    normal = NormalDist()
    return normal.inv_cdf(1.0 - alpha) / normal.inv_cdf(1.0 - alpha / 2)


CROSSING_SPREAD = (0.1, 0.9)
"""The quantiles of the simulated first deciding looks a forecast's range spans: the middle 80%."""


@dataclass(frozen=True)
class Crossing:
    """By what factor the design must grow before a continued run decides the unit (:func:`crossing`)."""

    factor: float
    """The growth most likely to be within a factor 2 of the deciding look: the point forecast."""
    low: float
    high: float
    """The growths within which the middle 80% of the simulated runs decide (:data:`CROSSING_SPREAD`); ``high``
    is inf when more than a tenth are still open at :data:`CROSSING_HORIZON`. A forecast is one draw of a
    noisy first passage: on the benchmark's games the point was within a factor 2 for 84–93% of units, so
    the report shows this range beside it."""


def crossing(value: float, lo: float, hi: float, margin: float) -> Crossing | None:
    """By what factor the design must grow before a continued run decides the unit, and the range of it.

    A decision is the *first* look at which the interval clears 0 (or its equivalence interval fits
    inside ±δ), not the look at which the expected interval does: a noisy estimate crosses earlier than
    its mean path. The estimate is simulated as a Brownian path from the current value with drift at the
    current value (the running sum S_t = t·v_t gains v per unit of design and noise of the current
    standard error, each side's own), looked at after each growth by :data:`CROSSING_STEP`. (Drawing the
    drift per path from the value's own interval changed no forecast's hit rate on the benchmark and made
    a wide interval look soon decided: a flat prior on the true value.) The first deciding look is spread
    over a wide range (a unit near a margin may decide at the next look or eight looks on), so the point
    is the growth *most likely to be within a factor 2* of the design the decision will add — the point
    forecast the "within ×2" promise asks for — rather than the median. None for an interval of no
    width, or when most paths are still open at :data:`CROSSING_HORIZON`. Seeded: the same interval
    gives the same answer.
    """
    below, above = (value - lo) / Z95, (hi - value) / Z95
    noise = (below + above) / 2
    if noise <= 0:
        return None
    rng = np.random.default_rng(0)
    looks = CROSSING_STEP ** np.arange(1, int(np.log(CROSSING_HORIZON) / np.log(CROSSING_STEP)) + 1)
    times = np.concatenate([[1.0], looks])
    steps = np.diff(times)
    paths = value + np.cumsum(
        value * steps + noise * np.sqrt(steps) * rng.standard_normal((CROSSING_PATHS, len(steps))), axis=1
    )
    estimate = paths / looks
    spread = Z95 / np.sqrt(looks)
    low, high = estimate - below * spread, estimate + above * spread
    scale = equivalence_scale(0.95)  # the equivalence interval's sides, from the 95% ones
    inside = (estimate - scale * below * spread > -margin) & (estimate + scale * above * spread < margin)
    decided = (low > 0) | (high < 0) | inside
    first = np.where(decided.any(axis=1), looks[np.argmax(decided, axis=1)], np.inf)
    if not np.isfinite(np.median(first)):
        return None
    more = first[np.isfinite(first)] - 1.0  # the design added before the deciding look, as a share of it
    candidates = np.geomspace(more.min() / 2, more.max() * 2, CROSSING_CANDIDATES)
    hits = [np.count_nonzero((more >= c / 2) & (more <= 2 * c)) for c in candidates]
    bottom, top = np.quantile(first, CROSSING_SPREAD, method="inverted_cdf")  # no interpolation: inf stays inf
    return Crossing(1.0 + float(candidates[int(np.argmax(hits))]), float(bottom), float(top))


@dataclass(frozen=True)
class DecisionSummary:
    delete: tuple[str, ...]
    negligible: tuple[str, ...]
    compress: tuple[str, ...]
    keep: tuple[str, ...]
    unresolved: tuple[str, ...]
    cut_tokens: int
    """Tokens of context the cut units (delete and negligible) hold."""
    scores_to_decide: int | None
    """Coalition scores more that would decide every unresolved unit the forecast covers (the largest unit's
    need: more chains inform every unit at once); None when nothing is unresolved or no estimate exists."""
    forecast: int = 0
    """Unresolved units with a forecast. The others wait on a decision about units that require them (their
    reason says which), or have no interval to forecast from: more rollouts need not settle them."""
    half_width: float | None = None
    """The median half-width of the units' net-effect intervals, the run's precision: about the smallest
    |net effect| it keeps or deletes (an interval clears 0 once the value is past it — the smallest effect
    the design could detect, per unit); None without intervals."""

    def negligible_within(self, margin: float) -> float | None:
        """About the largest |net effect| this run's precision can call negligible (its equivalence interval,
        :func:`equivalence_scale` of the 95% one, inside ±δ); 0 when none can be, None without intervals."""
        if self.half_width is None:
            return None
        return max(margin - self.half_width * equivalence_scale(0.95), 0.0)

    @property
    def cut(self) -> tuple[str, ...]:
        return self.delete + self.negligible


def decision_summary(game: CompiledSkill, valuation: Valuation) -> DecisionSummary:
    by_decision: dict[str, list[str]] = {"delete": [], "negligible": [], "compress": [], "keep": [], "unresolved": []}
    for unit in valuation.units:
        by_decision[unit.decision].append(unit.unit)
    cut = by_decision["delete"] + by_decision["negligible"]
    needs = [u.scores_to_decide for u in valuation.units if u.decision == "unresolved" and u.scores_to_decide]
    widths = [
        (u.net_effect.ci.hi - u.net_effect.ci.lo) / 2
        for u in valuation.units
        if u.net_effect is not None and u.net_effect.ci is not None and u.net_effect.ci.hi > u.net_effect.ci.lo
    ]
    return DecisionSummary(
        delete=tuple(by_decision["delete"]),
        negligible=tuple(by_decision["negligible"]),
        compress=tuple(by_decision["compress"]),
        keep=tuple(by_decision["keep"]),
        unresolved=tuple(by_decision["unresolved"]),
        cut_tokens=sum(game.player(unit).tokens for unit in cut),
        scores_to_decide=max(needs) if needs else None,
        forecast=len(needs),
        half_width=float(np.median(widths)) if widths else None,
    )


def resolution_line(summary: DecisionSummary, margin: float) -> str | None:
    """``precision: intervals ±0.035 typically — a unit is kept or deleted from |net effect| ≈ 0.035, called
    negligible only within ±0.021``: what the budget can tell apart, so an unresolved unit reads as "too
    close to call at this budget", not "no effect"."""
    width, within = summary.half_width, summary.negligible_within(margin)
    if width is None or within is None:
        return None
    reach = width * equivalence_scale(0.95)
    cut = (
        f"called negligible only within ±{within:.3f}"
        if within > 0
        else f"none called negligible (a 90% interval of ±{reach:.3f} cannot fit in ±{margin:g})"
    )
    return (
        f"precision: intervals ±{width:.3f} typically — a unit is kept or deleted from |net effect| ≈ {width:.3f}, "
        + cut
    )


def _units(count: int) -> str:
    return f"{count} unit{'s' if count != 1 else ''}"


def decision_line(summary: DecisionSummary, margin: float, runs: int = 1) -> str:
    """``cut 3 units (212 tokens: 1 harmful, 2 within ±0.05); compress 1; keep 4; 5 unresolved (~2,100 more
    rollouts would decide them)``: the forecast's scores times ``runs``, the rollouts a score is the mean of —
    what ``--max-rollouts`` is set in. Unresolved units without a forecast are not promised to the rollouts:
    ``5 unresolved (~2,100 more rollouts would decide 3 of them; 2 without a forecast, see why)``."""
    parts = []
    if summary.cut:
        kinds = []
        if summary.delete:
            kinds.append(f"{len(summary.delete)} harmful")
        if summary.negligible:
            kinds.append(f"{len(summary.negligible)} within ±{margin:g}")
        parts.append(f"cut {_units(len(summary.cut))} ({summary.cut_tokens:,} tokens: {', '.join(kinds)})")
    else:
        parts.append("cut nothing")
    if summary.compress:
        parts.append(f"compress {len(summary.compress)}")
    parts.append(f"keep {len(summary.keep)}")
    if summary.unresolved:
        parts.append(f"{len(summary.unresolved)} unresolved{_unresolved_need(summary, runs)}")
    return "; ".join(parts)


def _unresolved_need(summary: DecisionSummary, runs: int) -> str:
    """`` (~2,100 more rollouts would decide them)``, or which of them the forecast covers."""
    unforecast = len(summary.unresolved) - summary.forecast
    if not summary.scores_to_decide:
        return " (none with a forecast, see why)" if unforecast else ""
    more = f"~{summary.scores_to_decide * runs:,} more rollouts would decide"
    if not unforecast:
        return f" ({more} them)"
    return f" ({more} {summary.forecast} of them; {unforecast} without a forecast, see why)"
