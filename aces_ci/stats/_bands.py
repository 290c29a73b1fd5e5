"""How a lift becomes a verdict: the gate's bands, read once from aces.yml ``gate:`` and carried to the result.

This module imports nothing heavy (no numpy, no scipy), so the configuration a scan reads can hold
the bands without loading the statistics: ``aces-ci scan`` stays fast.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

VerdictLabel = Literal["pass", "fail", "neutral", "underpowered"]
GateStatus = Literal["pass", "warn", "fail"]


@dataclass(frozen=True)
class Bands:
    """The gate over a lift: the metric it reads, its bands, α, and what an underpowered verdict does.

    Pass when the interval lies at or above ``pass_band``, fail when at or below ``fail_band``
    (defaults +0.05 and −0.10, as in SkillEvaluator). This one value goes from aces.yml (or the
    flags) through the trial to its result and the gate, so every reader judges with the same bands.
    """

    pass_band: float = 0.05
    fail_band: float = -0.10
    metric: str = "outcome"
    """The gated metric: ``outcome`` (did the agent get the task right) unless aces.yml says otherwise;
    the composite also averages skill efficiency, which charges a preloaded skill for its own tokens."""
    alpha: float = 0.05
    """The fixed design's interval is at level 1 − α (a sequential trial spends α over its looks)."""
    underpowered_fails: bool = False
    """aces.yml ``gate.underpowered: fail``: an interval that straddles a band fails the gate instead of warning."""

    def __post_init__(self) -> None:
        if not (math.isfinite(self.pass_band) and math.isfinite(self.fail_band)):
            raise ValueError(f"bands must be finite numbers, got fail {self.fail_band} and pass {self.pass_band}")
        if not -1.0 <= self.fail_band < self.pass_band <= 1.0:
            raise ValueError(f"the fail band ({self.fail_band:g}) must be below the pass band ({self.pass_band:g})")
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must lie strictly between 0 and 1, got {self.alpha:g}")

    @property
    def confidence(self) -> float:
        """The fixed design's interval level, 1 − α."""
        return 1.0 - self.alpha

    def status(self, label: VerdictLabel) -> GateStatus:
        """What a verdict does to the gate: pass and neutral pass, fail fails, underpowered warns (or fails, under
        ``underpowered_fails``). The trial's exit code, its JUnit and the cross-tier gate all read this."""
        if label == "underpowered":
            return "fail" if self.underpowered_fails else "warn"
        return "fail" if label == "fail" else "pass"


def verdict_label(ci: tuple[float, float] | None, bands: Bands = Bands()) -> VerdictLabel:
    """The pure interval rule (no interval → underpowered), never the point estimate."""
    if ci is None:
        return "underpowered"
    lo, hi = ci
    if lo >= bands.pass_band:
        return "pass"
    if hi <= bands.fail_band:
        return "fail"
    if bands.fail_band < lo and hi < bands.pass_band:
        return "neutral"
    return "underpowered"
