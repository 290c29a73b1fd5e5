"""What each condition cost, what the lift cost, and an ex-ante budget cap for efficiency claims.

A skill adds tokens (its body in context, the calls it prompts); its total effect includes that
spending, which is why the lift is reported as is. A claim that the skill is *efficient* is a
different question (review §3.4): it needs either the lift per extra dollar, or the lift under
an ex-ante cap applied to both conditions alike. :func:`cap_scores` implements the cap with one
stated allocation rule: every rollout gets the same cap, and a rollout whose spending exceeded it
scores 0 — it would not have finished within the budget. Realised spending is a post-treatment
outcome, so the cap is fixed before the trial and never tuned to the data.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ._data import PairedScores


@dataclass(frozen=True)
class RolloutCost:
    """What one rollout spent. ``dollars`` is None when the model's price is unknown.

    ``tokens_in`` counts every prompt token, cached ones included (the ATIF and
    ``aces_ci.models.Usage`` convention); ``tokens_cached`` is the cached part of it.
    """

    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int = 0
    calls: int = 0
    latency_s: float = 0.0
    dollars: float | None = None


@dataclass(frozen=True)
class ConditionCost:
    """Totals and per-rollout figures of one condition.

    ``dollars`` is the total over priced rollouts and ``dollars_per_rollout`` their mean; both are
    None when no rollout was priced; ``unpriced`` counts rollouts without a price.
    """

    condition: str
    rollouts: int
    tokens_in: int
    tokens_out: int
    tokens_cached: int
    calls: int
    dollars: float | None
    unpriced: int
    tokens_in_per_rollout: float | None
    tokens_out_per_rollout: float | None
    calls_per_rollout: float | None
    dollars_per_rollout: float | None
    latency_mean_s: float | None
    latency_median_s: float | None
    latency_p90_s: float | None


def cost_summary(condition: str, costs: Sequence[RolloutCost]) -> ConditionCost:
    """Sum and average one condition's rollout costs."""
    n = len(costs)
    lat = np.array([c.latency_s for c in costs], dtype=np.float64)
    priced = [c.dollars for c in costs if c.dollars is not None]
    tin = sum(c.tokens_in for c in costs)
    tout = sum(c.tokens_out for c in costs)
    calls = sum(c.calls for c in costs)
    return ConditionCost(
        condition=condition,
        rollouts=n,
        tokens_in=tin,
        tokens_out=tout,
        tokens_cached=sum(c.tokens_cached for c in costs),
        calls=calls,
        dollars=float(sum(priced)) if priced else None,
        unpriced=n - len(priced),
        tokens_in_per_rollout=tin / n if n else None,
        tokens_out_per_rollout=tout / n if n else None,
        calls_per_rollout=calls / n if n else None,
        dollars_per_rollout=float(np.mean(priced)) if priced else None,
        latency_mean_s=float(lat.mean()) if n else None,
        latency_median_s=float(np.median(lat)) if n else None,
        latency_p90_s=float(np.quantile(lat, 0.9)) if n else None,
    )


@dataclass(frozen=True)
class LiftPerDollar:
    """Lift bought per extra dollar per rollout; None (with ``note``) when that ratio means nothing."""

    lift: float | None
    extra_dollars_per_rollout: float | None
    lift_per_extra_dollar: float | None
    note: str


def _tokens_per_rollout(cost: ConditionCost) -> float | None:
    if cost.tokens_in_per_rollout is None or cost.tokens_out_per_rollout is None:
        return None
    return cost.tokens_in_per_rollout + cost.tokens_out_per_rollout


def _token_cost(with_cost: ConditionCost, control_cost: ConditionCost) -> str:
    """Both arms' tokens per rollout (input + output) and their ratio: the cost when dollars say nothing."""
    w, c = _tokens_per_rollout(with_cost), _tokens_per_rollout(control_cost)
    if w is None or c is None:
        return "a condition has no rollout to count its tokens on"
    ratio = f" ({w / c:.2f}× as many)" if c > 0 else ""
    return f"{with_cost.condition} {w:,.0f} tokens per rollout vs {control_cost.condition} {c:,.0f}{ratio}"


def lift_per_dollar(lift: float | None, with_cost: ConditionCost, control_cost: ConditionCost) -> LiftPerDollar:
    """Lift divided by the extra dollars per rollout of the with-condition.

    Without a price, or on a model that costs nothing (the embedded local model), dollars cannot
    say what the skill costs: the note states it in tokens instead, both arms per rollout and their
    ratio. A with-condition that cost no more dollars is never said to have cost nothing extra when
    it used more tokens (cached tokens are cheaper, so dollars may fall while tokens grow).
    """
    if lift is None:
        return LiftPerDollar(None, None, None, "no lift to divide")
    tokens = _token_cost(with_cost, control_cost)
    w, c = with_cost.dollars_per_rollout, control_cost.dollars_per_rollout
    if w is None or c is None:
        return LiftPerDollar(lift, None, None, f"not defined, the model is unpriced; its cost in tokens: {tokens}")
    extra = w - c
    if w == 0.0 and c == 0.0:
        return LiftPerDollar(
            lift, extra, None, f"not defined, the model costs $0 per rollout; its cost in tokens: {tokens}"
        )
    if extra <= 0.0:
        more = (_tokens_per_rollout(with_cost) or 0.0) > (_tokens_per_rollout(control_cost) or 0.0)
        dollars = f"${w:.4f} vs ${c:.4f} per rollout"
        if more:
            return LiftPerDollar(
                lift,
                extra,
                None,
                f"not defined, the with-condition cost no more dollars ({dollars}) but more tokens: {tokens}",
            )
        return LiftPerDollar(
            lift,
            extra,
            None,
            f"not defined, the with-condition cost no more ({dollars}; {tokens}): its lift came at no extra cost",
        )
    return LiftPerDollar(lift, extra, lift / extra, "lift per extra dollar spent per rollout")


@dataclass(frozen=True)
class BudgetCap:
    """An ex-ante cap per rollout, in dollars and/or tokens (input + output), the same for both conditions."""

    dollars: float | None = None
    tokens: int | None = None

    def __post_init__(self) -> None:
        if self.dollars is None and self.tokens is None:
            raise ValueError("a budget cap needs dollars or tokens")
        if (self.dollars is not None and self.dollars <= 0) or (self.tokens is not None and self.tokens <= 0):
            raise ValueError("a budget cap must be positive")

    def exceeded(self, cost: RolloutCost) -> bool:
        """True when the rollout spent more than the cap allows."""
        over_tokens = self.tokens is not None and cost.tokens_in + cost.tokens_out > self.tokens
        over_dollars = self.dollars is not None and cost.dollars is not None and cost.dollars > self.dollars
        return bool(over_tokens or over_dollars)


def per_rollout_cap(total_dollars: float, rollouts: int) -> BudgetCap:
    """Split a total budget evenly over the planned rollouts of both conditions (the allocation rule)."""
    if rollouts < 1 or total_dollars <= 0 or not math.isfinite(total_dollars):
        raise ValueError("a total budget must be positive and cover at least one rollout")
    return BudgetCap(dollars=total_dollars / rollouts)


@dataclass(frozen=True)
class CappedScores:
    """The trial's scores with over-budget rollouts scored 0, and how many were."""

    scores: PairedScores
    capped_with: int
    capped_control: int
    cap: BudgetCap
    rule: str = "each rollout has the same ex-ante cap in both conditions; a rollout that exceeded it scores 0"


def cap_scores(
    scores: PairedScores,
    with_costs: Sequence[Sequence[RolloutCost | None]],
    control_costs: Sequence[Sequence[RolloutCost | None]],
    cap: BudgetCap,
) -> CappedScores:
    """Apply ``cap`` to both conditions: a scored rollout over the cap becomes 0 (unscorable ones stay NaN)."""
    w, nw = _capped(scores.with_scores, with_costs, cap, "with")
    c, nc = _capped(scores.control_scores, control_costs, cap, "control")
    w.setflags(write=False)
    c.setflags(write=False)
    return CappedScores(PairedScores(w, c, scores.coupling, scores.case_ids), nw, nc, cap)


def _capped(
    m: np.ndarray, costs: Sequence[Sequence[RolloutCost | None]], cap: BudgetCap, label: str
) -> tuple[np.ndarray, int]:
    if len(costs) != m.shape[0]:
        raise ValueError(f"{label} costs for {len(costs)} cases, scores for {m.shape[0]}")
    out = np.array(m)
    capped = 0
    for i, row in enumerate(costs):
        if len(row) > m.shape[1]:
            raise ValueError(f"{label} costs, case {i}: {len(row)} costs for {m.shape[1]} runs")
        for r, cost in enumerate(row):
            if cost is not None and not np.isnan(out[i, r]) and cap.exceeded(cost):
                out[i, r] = 0.0
                capped += 1
    return out, capped
