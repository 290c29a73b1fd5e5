"""What the live-tier renderers read: the shape of a trial result and a SkillSV result, as Protocols.

The PR comment's lift tables, power lines, cost table, mermaid charts, low-value units and
estimand statements render from these, never from dicts. They are Protocols, not classes, so the
result models of :mod:`aces_ci.trials` and :mod:`aces_ci.skillsv` (frozen dataclasses) satisfy
them by having these attributes, without importing anything from here. Field names follow the
JSON contracts of issues 7 (``trial``) and 8 (``value``): ``lift.<metric> = {delta, ci: [lo, hi],
n_cases, runs_per_arm, with_mean, without_mean, mde}`` and ``units[] = {id, kind, file, lines,
net_effect, content_value, context_cost, ci, decision}``.

Every number is a plain float on the scale of the metric (scores in [0, 1], lifts in [-1, 1]);
``None`` means "does not apply / could not be scored", never zero.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from ..stats import Bands, VerdictLabel

TRIAL_METRICS = (
    "outcome",
    "composite",
    "accuracy",
    "goal_accuracy",
    "skill_execution",
    "behavior_check",
    "skill_efficiency",
    "security",
)
"""The metrics of a trial, in the order tables list them (the default gated outcome first, the composite beside it)."""


class MetricLift(Protocol):
    """One metric's paired lift: with-condition minus control, with its interval and design."""

    @property
    def delta(self) -> float: ...
    @property
    def ci(self) -> tuple[float, float]:
        """The interval of ``delta`` at the trial's confidence level (lower, upper)."""
        ...

    @property
    def n_cases(self) -> int: ...
    @property
    def runs_per_arm(self) -> int: ...
    @property
    def with_mean(self) -> float: ...
    @property
    def without_mean(self) -> float:
        """The control's mean: without the skill, or the ``--against`` version."""
        ...

    @property
    def mde(self) -> float | None:
        """Minimum detectable lift of this design at 80% power; None when it could not be estimated."""
        ...

    @property
    def se(self) -> float | None:
        """Standard error over cases; None for a distribution-free bound (no spread observed)."""
        ...


class Discordance(Protocol):
    """Paired outcomes per case: the with-condition better, worse, or the same."""

    @property
    def gains(self) -> int: ...
    @property
    def regressions(self) -> int: ...
    @property
    def ties(self) -> int: ...


class ArmCost(Protocol):
    """What one condition of a trial cost, summed over its rollouts."""

    @property
    def arm(self) -> str:
        """``with``, ``without`` or the control's label (``v1.2.0``)."""
        ...

    @property
    def rollouts(self) -> int: ...
    @property
    def input_tokens(self) -> int: ...
    @property
    def output_tokens(self) -> int: ...
    @property
    def cached_tokens(self) -> int: ...
    @property
    def turns(self) -> int:
        """Agent turns over all rollouts."""
        ...

    @property
    def wall_s(self) -> float:
        """Wall time over all rollouts, in seconds."""
        ...

    @property
    def usd(self) -> float | None:
        """Dollars; None when the model has no known price."""
        ...


class Settling(Protocol):
    """How much more evidence would likely settle an underpowered verdict (from :class:`aces_ci.stats.Settle`)."""

    @property
    def cases_needed(self) -> int | None:
        """Cases in all at the same runs per arm; None when no number of cases would."""
        ...

    @property
    def extra_cases(self) -> int | None:
        """More cases at the same runs per arm; None when no number of cases would."""
        ...

    @property
    def extra_runs(self) -> int | None:
        """More runs per case and arm on the same cases; None when no number of runs would."""
        ...

    @property
    def reason(self) -> str: ...
    @property
    def advice(self) -> str:
        """The one sentence that says it (:func:`aces_ci.stats.settle_advice`): what the gate and the CLI print."""
        ...


class CaseView(Protocol):
    """One case of the primary contrast: its prompt, each arm's first answer (cut, redacted) and run scores."""

    @property
    def case(self) -> str: ...
    @property
    def prompt(self) -> str | None: ...
    @property
    def with_answer(self) -> str | None: ...
    @property
    def control_answer(self) -> str | None: ...
    @property
    def with_scores(self) -> Sequence[float | None]: ...
    @property
    def control_scores(self) -> Sequence[float | None]: ...


class SkillTrial(Protocol):
    """One skill's paired trial."""

    @property
    def skill(self) -> str:
        """Skill directory relative to the scanned root (as in the scan result)."""
        ...

    @property
    def name(self) -> str:
        """The skill's name: what a heading calls it when its directory is the root (:func:`skill_title`)."""
        ...

    @property
    def skill_md(self) -> str: ...
    @property
    def contrast(self) -> str:
        """What was compared, in words: ``with vs without the skill``, ``this version vs v1.2.0``."""
        ...

    @property
    def lift(self) -> Mapping[str, MetricLift | None]:
        """Per metric of :data:`TRIAL_METRICS`; None where the metric does not apply."""
        ...

    @property
    def discordance(self) -> Discordance | None: ...
    @property
    def cost(self) -> Sequence[ArmCost]: ...
    @property
    def verdict(self) -> VerdictLabel:
        """The verdict :func:`aces_ci.stats.verdict` read off the gated metric's interval (or a sequential look's):
        the gate and every report print this one, never a verdict of their own."""
        ...

    @property
    def verdict_reason(self) -> str: ...
    @property
    def settle(self) -> Settling | None:
        """For an underpowered verdict, what would settle it (decided with the verdict); None otherwise."""
        ...

    @property
    def estimand(self) -> str:
        """The review's six axes in words: contrast, population, unit/coupling/runs, budget, summary, assumptions."""
        ...

    @property
    def cases(self) -> Sequence[CaseView]:
        """Per case of the primary contrast, on the gated metric: what a reviewer scans, case by case."""
        ...


class TrialReport(Protocol):
    """A trial over one or more skills."""

    @property
    def skills(self) -> Sequence[SkillTrial]: ...
    @property
    def bands(self) -> Bands:
        """The gated metric, bands and α every skill's verdict was read with."""
        ...

    @property
    def confidence(self) -> float:
        """Level of every interval, e.g. 0.95."""
        ...

    @property
    def model(self) -> str: ...
    @property
    def harness(self) -> str: ...


class UnitValue(Protocol):
    """One unit of a skill (a rule, an example, a script) and what SkillSV found it is worth."""

    @property
    def id(self) -> str: ...
    @property
    def kind(self) -> str:
        """``trigger``, ``body``, ``protected`` or ``resource``."""
        ...

    @property
    def file(self) -> str:
        """Path relative to the scanned root."""
        ...

    @property
    def lines(self) -> tuple[int, int]:
        """1-based inclusive line range in ``file``."""
        ...

    @property
    def tokens(self) -> int: ...
    @property
    def preview(self) -> str: ...
    @property
    def net_effect(self) -> float: ...
    @property
    def ci(self) -> tuple[float, float]:
        """Interval of ``net_effect``."""
        ...

    @property
    def content_value(self) -> float | None: ...
    @property
    def context_cost(self) -> float | None: ...
    @property
    def decision(self) -> str:
        """``keep``, ``compress``, ``delete``, ``negligible`` or ``unresolved``."""
        ...

    @property
    def rollouts_to_decide(self) -> int | None:
        """For an unresolved unit: about how many more rollouts would decide it; None otherwise or unknown."""
        ...

    @property
    def rollouts_range(self) -> tuple[int, int | None] | None:
        """The middle 80% of the forecast's simulated continued runs, in rollouts (None above: past its reach)."""
        ...

    @property
    def reason(self) -> str:
        """Why the unit got its decision, in words (quotes unit ids: untrusted)."""
        ...


class UnitPair(Protocol):
    """Two units the interaction model is sure interact."""

    @property
    def units(self) -> tuple[str, str]: ...
    @property
    def effect(self) -> float:
        """What the pair adds when both are in, beyond their two effects (shrunk toward 0: reads low)."""
        ...

    @property
    def ci(self) -> tuple[float, float]: ...


class ValuePrecision(Protocol):
    """What a valuation's precision can tell apart."""

    @property
    def half_width(self) -> float:
        """Median half-width of the units' 95% intervals: about the smallest |net effect| kept or deleted."""
        ...

    @property
    def negligible_within(self) -> float:
        """About the largest |net effect| the equivalence test can call negligible (0: none can be)."""
        ...

    @property
    def margin(self) -> float: ...


class PruningCurve(Protocol):
    """Held-out score as units are removed in one method's ascending value order."""

    @property
    def method(self) -> str:
        """``skillsv``, ``closure_loo``, ``random``, ``judge`` (the names ``aces-ci value`` writes)."""
        ...

    @property
    def removed(self) -> Sequence[int]:
        """Units removed at each point (starting at 0)."""
        ...

    @property
    def score(self) -> Sequence[float]:
        """Held-out score at each point, same length as ``removed``."""
        ...

    @property
    def auc(self) -> float: ...


class SkillValue(Protocol):
    """One skill's SkillSV valuation."""

    @property
    def skill(self) -> str: ...
    @property
    def name(self) -> str:
        """The skill's name: what a heading calls it when its directory is the root (:func:`skill_title`)."""
        ...

    @property
    def units(self) -> Sequence[UnitValue]: ...
    @property
    def content_lift(self) -> float:
        """Λ = V(N) − V({m})."""
        ...

    @property
    def closure_ratio(self) -> float | None:
        """Σφ / Λ; None when Λ is too small to divide by."""
        ...

    @property
    def closure_ci(self) -> tuple[float, float] | None: ...
    @property
    def pruning(self) -> Sequence[PruningCurve]: ...
    @property
    def order_distribution(self) -> str:
        """``layer`` or ``uniform``: the μ the values are under."""
        ...

    @property
    def closure_is_check(self) -> bool:
        """Whether Σφ/Λ can be off 1 at all (truncation on): otherwise it is an identity, not shown or gated."""
        ...

    @property
    def precision(self) -> ValuePrecision | None: ...
    @property
    def interactions(self) -> Sequence[UnitPair]:
        """Pairs the interaction model names, strongest first (empty under the chains or when none passes)."""
        ...
