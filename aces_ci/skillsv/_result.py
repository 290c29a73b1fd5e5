"""The valuation's result model: per-unit values with intervals, anchors, closure, cost.

Every number that supports a claim comes with its interval and how many samples stand behind it;
a value computed from no chain at all is None, never a zero that reads like a measurement.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from ..frozen import frozen
from ._estimate import Pooling, ValuationStop

Decision = Literal["keep", "compress", "delete", "negligible", "unresolved"]
"""What an author does with a unit (:func:`~aces_ci.skillsv.decide` says when each applies)."""
CUT_DECISIONS: tuple[Decision, ...] = ("delete", "negligible")
"""Decisions that say to remove the unit: it hurts, or it does nothing worth its context."""
Method = Literal["estimate", "exact"]
ValueEstimator = Literal["chain", "interaction"]
"""aces.yml ``value.estimator``: net effects from the chains, or from the interaction model."""


@dataclass(frozen=True)
class Interval:
    lo: float
    hi: float

    def excludes_zero(self) -> bool:
        return self.lo > 0 or self.hi < 0


@dataclass(frozen=True)
class Estimate:
    """A value, its 95% interval (None for exact values: no sampling error) and its sample size."""

    value: float
    ci: Interval | None
    n: int
    """Chains (unit values) or tasks (anchors) behind it."""


@dataclass(frozen=True)
class UnitValue:
    unit: str
    net_effect: Estimate | None
    """φ under ρ_del: what removing the unit changes, content and length together."""
    content_value: Estimate | None
    """φ under ρ_pad: its contribution with the document's footprint held fixed."""
    context_cost: Estimate | None
    """content value − net effect, paired chain by chain."""
    zeroed_by_truncation: int
    """Chains in which a truncation gave this unit marginal zero."""
    decision: Decision
    reason: str
    scores_to_decide: int | None = None
    """For an ``unresolved`` unit: about how many more coalition scores the run would need before its
    interval decides (from its current spread, at the run's scores per chain); None otherwise."""
    scores_range: tuple[int, int | None] | None = None
    """Beside ``scores_to_decide``: the more scores within which the middle 80% of simulated continued runs
    decide the unit (None for the upper end: beyond 63 times this run's); None when not simulated."""


@dataclass(frozen=True)
class PairEffect:
    """Two units' interaction as the interaction model measured it: the score the pair adds when both are
    in, beyond their two effects (positive: they work together; negative: either does much of the other's
    work)."""

    units: tuple[str, str]
    effect: Estimate


@dataclass(frozen=True)
class GroupValue:
    """A section or folder: the sum of its units' net effects (not separately estimated)."""

    label: str
    file: str
    line: int
    units: tuple[str, ...]
    net_effect: Estimate | None


@dataclass(frozen=True)
class Requirement:
    """A unit other units require, with everything deleting it removes (itself and its dependents), and
    the sum of their net effects: what deleting it would do to the score, the test of keeping a unit
    for its dependents' sake (:func:`~._summary.respect_dependencies`)."""

    unit: str
    removed: tuple[str, ...]
    """The unit first, then the units that require it, directly or through others."""
    net_effect: Estimate | None


@dataclass(frozen=True)
class CaseScore:
    """One case's anchors: what the agent scores on it bare, with the trigger only, and with the whole skill.

    A unit can only be credited on a case the whole skill changes: where the full skill scores as the
    bare agent does (both fail, say), every unit's value there is 0 — "worthless" there means "the model
    cannot do this case anyway", which this row tells apart.
    """

    case: str
    empty: float | None
    trigger_only: float | None
    full: float | None


@dataclass(frozen=True)
class Cost:
    rollouts: int
    """Rollouts the oracle reports as paid by this run (0 for everything served by its cache)."""
    evaluations: int
    """Coalition scores sent to the oracle after the in-run coalition cache."""
    requested: int
    """Coalition scores the algorithm used, repeats included (what a run without the cache would pay)."""
    full_audit: int
    """2 (or 1) operators × K × (n + 1) prefixes × M tasks: every prefix of every order on every task."""
    cost_usd: float
    served: int = 0
    """Coalition scores the oracle served from its caches (score store, rollout cache): paid by an earlier run."""


@dataclass(frozen=True)
class Valuation:
    """The answer of ``aces-ci value``."""

    method: Method
    units: tuple[UnitValue, ...]
    groups: tuple[GroupValue, ...]
    trigger_value: Estimate | None
    anchors: Mapping[str, Estimate | None]
    """``empty`` V(∅), ``trigger_only`` V({m}), ``full`` V(N) (ρ_del; V_pad(N) is the same skill)."""
    content_lift: Estimate | None
    """Λ = V(N) − V({m})."""
    sum_values: Estimate | None
    """Σ net effects: the estimator's total, to compare with Λ."""
    closure_ratio: Estimate | None
    chains: int
    chains_planned: int
    truncation_rate: float | None
    """γ: share of intermediate prefixes evaluated before truncation."""
    cost: Cost
    stopped_by: ValuationStop | None
    error: str | None
    margin: float
    """δ: a net effect inside ±δ is negligible (aces.yml ``value.margin``)."""
    pooling: Pooling | None = None
    """How chains became unit values (:mod:`._pooled`); None for exact values."""
    cases: tuple[CaseScore, ...] = ()
    """Per case of the attribution panel that was scored with the full skill, its anchors (ρ_del)."""
    left_out: int = 0
    """Chains left out because a score they needed failed twice (a rollout's timeout or infrastructure error)."""
    failure: str | None = None
    """The latest such failure (or a failure a retry recovered from), as the oracle said it."""
    estimator: ValueEstimator = "chain"
    """Where the net effects come from: the chains (``pooling`` says how) or the interaction model
    fitted on every scored coalition (:mod:`._interaction`)."""
    fallback: tuple[str, ...] = ()
    """Interaction model: units whose held-out check failed, valued by the model-corrected chains instead."""
    interactions: tuple[PairEffect, ...] = ()
    """Interaction model on half-coalitions: the pairs whose interaction a Bonferroni test over the pairs
    tested puts away from 0 (:func:`~._interaction._named_pairs`), strongest first."""
    requirements: tuple[Requirement, ...] = ()
    """Each unit others require, with what deleting it removes and their summed net effect: a unit is
    kept for its dependents only when deleting it with them is shown to cost score."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "anchors", frozen(self.anchors))

    @property
    def measured(self) -> bool:
        """Whether any unit value was measured: an exact enumeration, or at least one completed chain.

        A run stopped before its first chain finished may still hold panel anchors (V(N), Λ); those say
        nothing about any unit, so such a run reports no values and no conclusions.
        """
        return self.method == "exact" or self.chains > 0
