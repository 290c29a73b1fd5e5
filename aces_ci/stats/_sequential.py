"""Sequential stopping: add runs (or cases) one batch at a time until the verdict is settled.

**Design.** A group-sequential rule with at most K looks. By default a look happens at each
replicate level: look k when every case has been scheduled k runs per condition, up to
K = ``max_runs``. With ``case_looks`` (e.g. ``(10, 20, 30)``) cases are added instead, and look k
happens when the trial holds exactly ``case_looks[k-1]`` cases. Each look computes the ordinary
case-clustered interval (``_lift.py``) at level α_k = α · 2k / (K(K + 1)) and stops as soon as
that interval gives ``pass``, ``fail`` or ``neutral``. At the last look it stops whatever the
interval says (``underpowered`` included).

**Error rate.** By the union bound, the chance that *any* look's interval misses the truth is at
most Σ α_k = α, so the chance of a wrong decision (``pass`` for a skill whose lift is below the
pass band, ``fail`` for one above the fail band, ``neutral`` for one outside the bands) is no
larger than the fixed design's bound at α — whatever the data-dependent stopping. The price is a
wider interval at each look; it is paid back on clear-cut skills, which stop at the first look
with a fraction of the rollouts. ``benchmarks/stats_validity.py`` measures both: agreement with
the fixed design, error rates and rollouts saved.

**Stateless.** ``sequential_decision`` is a pure function of the scores so far: the look number is
read off the data (the runs scheduled per case, or the number of cases), so calling it twice on
the same data gives the same answer and cannot spend α twice. The caller must look only at whole
batches: every case given its k-th run in both conditions (unscorable ones as NaN), or exactly
the declared number of cases. Added cases must be drawn the way the first ones were (the next
cases of the dataset, in an order fixed before the trial), never chosen after seeing results.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Literal

from ._bands import Bands
from ._data import PairedScores
from ._lift import PairedLift, paired_lift
from ._verdict import Verdict, verdict


@dataclass(frozen=True)
class SequentialSettings:
    """The sequential rule's parameters: the looks, overall error α, the gate's bands.

    ``max_runs`` bounds the replicate looks; a non-empty ``case_looks`` (strictly increasing case
    counts) switches to adding cases, with one look per entry.
    """

    max_runs: int = 3
    alpha: float = 0.05
    bands: Bands = field(default_factory=Bands)
    case_looks: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.max_runs < 1:
            raise ValueError(f"max_runs must be at least 1, got {self.max_runs}")
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must lie strictly between 0 and 1, got {self.alpha}")
        looks = self.case_looks
        if looks and (looks[0] < 1 or any(b <= a for a, b in itertools.pairwise(looks))):
            raise ValueError(f"case_looks must be strictly increasing positive case counts, got {looks}")

    @property
    def max_looks(self) -> int:
        """K: the number of looks the design may take."""
        return len(self.case_looks) or self.max_runs

    def alpha_at(self, look: int) -> float:
        """The level of look ``look``'s interval: α_k = α · 2k / (K(K + 1)), which sums to α over K looks.

        Spending grows with the look: early looks exist only to stop clear-cut skills, which clear
        even a strict interval, while undecided skills end at the last look, which then gets the
        largest share of α and comes closest to the fixed design's interval.
        """
        k = self.max_looks
        return self.alpha * 2.0 * look / (k * (k + 1))


@dataclass(frozen=True)
class SequentialDecision:
    """``continue`` (run the next batch) or ``decided`` with a verdict.

    ``look`` is the look just examined (1-based) of ``max_looks``, ``lift`` its interval at
    ``alpha_look``, ``verdict`` the verdict at this look (also given when continuing, for progress
    displays) and ``next_batch`` what to run before the next look (None once decided).
    """

    state: Literal["continue", "decided"]
    look: int
    max_looks: int
    alpha_look: float
    lift: PairedLift
    verdict: Verdict
    reason: str
    next_batch: str | None


def sequential_decision(
    scores: PairedScores, settings: SequentialSettings = SequentialSettings()
) -> SequentialDecision:
    """Decide whether to stop after the batches in ``scores`` (see the module docstring)."""
    look = _look(scores, settings)
    alpha = settings.alpha_at(look)
    lift = paired_lift(scores, alpha)
    v = verdict(lift, settings.bands)
    k = settings.max_looks
    if v.label != "underpowered":
        return SequentialDecision("decided", look, k, alpha, lift, v, v.reason, None)
    if look == k:
        return SequentialDecision("decided", look, k, alpha, lift, v, f"last look ({look} of {k}): {v.reason}", None)
    if settings.case_looks:
        batch = f"add cases up to {settings.case_looks[look]} in total, with the same runs per case"
    else:
        batch = f"schedule run {look + 1} of every case in both conditions"
    return SequentialDecision("continue", look, k, alpha, lift, v, f"look {look} of {k}: {v.reason}", batch)


def _look(scores: PairedScores, settings: SequentialSettings) -> int:
    if settings.case_looks:
        n = scores.n_cases_total
        if n not in settings.case_looks:
            raise ValueError(
                f"the trial holds {n} cases, but looks are declared at {list(settings.case_looks)} cases; "
                "the design's error rate holds only at its declared looks"
            )
        return settings.case_looks.index(n) + 1
    look = scores.scheduled_runs
    if look < 1:
        raise ValueError("no run has been scheduled yet: run one replicate level before the first look")
    if look > settings.max_runs:
        raise ValueError(
            f"{look} runs per case exceed the sequential design's max_runs = {settings.max_runs}; "
            "the design's error rate holds only up to its last look"
        )
    return look
