"""Sequential stopping: add runs to every case, one replicate level at a time, until the verdict is settled.

**Design.** A group-sequential rule with at most K = ``max_runs`` looks. Look k happens when
every case has been scheduled k runs per condition; it computes the ordinary case-clustered
interval (``_lift.py``) at level α_k = α · 2k / (K(K + 1)) and stops as soon as that interval
gives ``pass``, ``fail`` or ``neutral``. At the last look it stops whatever the interval says (``underpowered``
included).

**Error rate.** By the union bound, the chance that *any* look's interval misses the truth is at
most Σ α_k = α, so the chance of a wrong decision (``pass`` for a skill whose lift is below the
pass band, ``fail`` for one above the fail band, ``neutral`` for one outside the bands) is no
larger than the fixed design's bound at α — whatever the data-dependent stopping. The price is a
wider interval at each look; it is paid back on clear-cut skills, which stop at the first look
with a fraction of the rollouts. ``benchmarks/stats_validity.py`` measures both: agreement with
the fixed design, error rates and rollouts saved.

**Stateless.** ``sequential_decision`` is a pure function of the scores so far: the look number is
the number of runs scheduled per case (the width of the score matrices), so calling it twice on
the same data gives the same answer and cannot spend α twice. The caller must look only at whole
replicate levels (every case given its k-th run in both conditions, unscorable ones as NaN).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ._data import PairedScores
from ._lift import PairedLift, paired_lift
from ._verdict import Bands, Verdict, verdict


@dataclass(frozen=True)
class SequentialSettings:
    """The sequential rule's parameters: up to ``max_runs`` looks, overall error α, the gate's bands."""

    max_runs: int = 3
    alpha: float = 0.05
    bands: Bands = field(default_factory=Bands)

    def __post_init__(self) -> None:
        if self.max_runs < 1:
            raise ValueError(f"max_runs must be at least 1, got {self.max_runs}")
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must lie strictly between 0 and 1, got {self.alpha}")

    def alpha_at(self, look: int) -> float:
        """The level of look ``look``'s interval: α_k = α · 2k / (K(K + 1)), which sums to α over K looks.

        Spending grows with the look: early looks exist only to stop clear-cut skills, which clear
        even a strict interval, while undecided skills end at the last look, which then gets the
        largest share of α and comes closest to the fixed design's interval.
        """
        k = self.max_runs
        return self.alpha * 2.0 * look / (k * (k + 1))


@dataclass(frozen=True)
class SequentialDecision:
    """``continue`` (schedule one more run per case and condition) or ``decided`` with a verdict.

    ``look`` is the replicate level just examined, ``lift`` its interval at ``alpha_look``, and
    ``verdict`` the verdict at this look (also given when continuing, for progress displays).
    """

    state: Literal["continue", "decided"]
    look: int
    max_looks: int
    alpha_look: float
    lift: PairedLift
    verdict: Verdict
    reason: str


def sequential_decision(
    scores: PairedScores, settings: SequentialSettings = SequentialSettings()
) -> SequentialDecision:
    """Decide whether to stop after the replicate levels in ``scores`` (see the module docstring)."""
    look = scores.scheduled_runs
    if look < 1:
        raise ValueError("no run has been scheduled yet: run one replicate level before the first look")
    if look > settings.max_runs:
        raise ValueError(
            f"{look} runs per case exceed the sequential design's max_runs = {settings.max_runs}; "
            "the design's error rate holds only up to its last look"
        )
    alpha = settings.alpha_at(look)
    lift = paired_lift(scores, alpha)
    v = verdict(lift, settings.bands)
    if v.label != "underpowered":
        return SequentialDecision("decided", look, settings.max_runs, alpha, lift, v, v.reason)
    if look == settings.max_runs:
        reason = f"last look ({look} of {settings.max_runs}): {v.reason}"
        return SequentialDecision("decided", look, settings.max_runs, alpha, lift, v, reason)
    reason = f"look {look} of {settings.max_runs}: {v.reason}; schedule run {look + 1} for every case"
    return SequentialDecision("continue", look, settings.max_runs, alpha, lift, v, reason)
