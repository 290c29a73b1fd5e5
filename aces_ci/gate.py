"""The gate's policy across tiers: from result models to a verdict and an exit code.

Pure functions of result models, no I/O: the same result always gives the same verdict, so a
report re-rendered from saved JSON agrees with the run that produced it. Each tier computes its
own per-skill verdict with its result (the scan's in :mod:`aces_ci.scan`); this module is where
the verdicts of the tiers meet the exit-code contract of DESIGN.md.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from .config import GateSettings
from .errors import EXIT_GATE_FAILED, EXIT_PASS, EXIT_RUNTIME_ERROR, ConfigError
from .report import MetricLift, SkillValue, TrialReport
from .scan import ScanResult, Severity

if TYPE_CHECKING:  # a scan's gate never reads a lift: numpy and scipy load only when one is judged
    from . import stats


def exit_code(result: ScanResult) -> int:
    """0 when the gate passes, 1 when it fails (DESIGN.md's contract)."""
    return EXIT_PASS if result.verdict == "pass" else EXIT_GATE_FAILED


# --- The cross-tier policy: one criterion per thing the gate checks, over scan, trials and SkillSV ---
#
# Every tier's result becomes a list of criteria (name, subject, status, message, figures); the
# decision is the worst status. Reports render the criteria (a JUnit testcase each, a line in the PR
# comment), so what failed the gate, and by how much, is visible where reviewers look.

CriterionStatus = Literal["pass", "warn", "fail", "error", "skipped"]
"""``error``: the measurement could not be made (infrastructure, :func:`infra_criterion`): never a pass."""
LiftVerdict = Literal["pass", "neutral", "underpowered", "fail"]
GateVerdict = Literal["pass", "warn", "fail", "error"]

DEFAULT_PASS_BAND = 0.05
"""ACES's pass band: a lift whose interval lies at or above +0.05 helps."""
DEFAULT_FAIL_BAND = -0.10
"""ACES's fail band: a lift whose interval lies at or below −0.10 harms."""
DEFAULT_LIFT_METRIC = "outcome"
"""The gate reads the outcome (accuracy and goal accuracy): the composite also averages skill efficiency,
which charges a preloaded skill for its own tokens; that cost is reported as a cost line instead."""
DEFAULT_CLOSURE_TOLERANCE = 0.10
"""SkillSV's values should add up to the content lift: closure ratio Σφ/Λ within 1 ± 0.10."""


@dataclass(frozen=True)
class GateCriterion:
    """One thing the gate checked, with the figures behind its status (see :class:`aces_ci.report.Criterion`)."""

    name: str
    subject: str
    """Skill directory relative to the scanned root, or ``repository``."""
    status: CriterionStatus
    message: str
    properties: tuple[tuple[str, str], ...] = ()
    file: str | None = None
    line: int | None = None
    failure_type: str = "GateFailed"


@dataclass(frozen=True)
class GateDecision:
    criteria: tuple[GateCriterion, ...]

    @property
    def verdict(self) -> GateVerdict:
        """``fail`` if any criterion fails, else ``error`` if a measurement could not be made, else ``warn`` if any
        warns, else ``pass``. A measured failure outranks an outage (as in ``aces-ci trial``): a rerun cannot
        make a harmful skill pass, so "gate failed" is the more useful thing to say."""
        statuses = {criterion.status for criterion in self.criteria}
        if "fail" in statuses:
            return "fail"
        if "error" in statuses:
            return "error"
        return "warn" if "warn" in statuses else "pass"

    @property
    def measured(self) -> bool:
        """Every measurement the gate asked for was made: what a run must be to store anything as a result."""
        return not self.with_status("error")

    @property
    def exit_code(self) -> int:
        """A warning passes: a failed criterion fails the job (1), an unmade measurement is a runtime error (3)."""
        return {"fail": EXIT_GATE_FAILED, "error": EXIT_RUNTIME_ERROR}.get(self.verdict, EXIT_PASS)

    def with_status(self, status: CriterionStatus) -> tuple[GateCriterion, ...]:
        return tuple(criterion for criterion in self.criteria if criterion.status == status)


def decide(*groups: Iterable[GateCriterion]) -> GateDecision:
    """The decision over every criterion of every tier that ran."""
    return GateDecision(tuple(criterion for group in groups for criterion in group))


_LISTED_ERRORS = 5
"""How many error findings a criterion's message names before it says "and N more"."""


def scan_criteria(result: ScanResult) -> list[GateCriterion]:
    """Two criteria per skill: no active error finding (``scan.errors``), score >= the minimum (``scan.score``).

    The same policy as :func:`skill_verdict`, spelt out per criterion so each gets its own JUnit testcase.
    """
    criteria = []
    for report in result.skills:
        errors = [f for f in report.active_findings if f.severity == Severity.ERROR]
        first = errors[0] if errors else None
        named = ", ".join(f"{f.rule_id} at {f.location}" for f in errors[:_LISTED_ERRORS])
        more = f" and {len(errors) - _LISTED_ERRORS} more" if len(errors) > _LISTED_ERRORS else ""
        criteria.append(
            GateCriterion(
                "scan.errors",
                report.skill,
                "fail" if errors else "pass",
                f"{len(errors)} error finding(s): {named}{more}" if errors else "no error findings",
                (("errors", str(len(errors))),),
                first.location.path if first else report.skill_md,
                (first.location.line if first else None) or 1,
                "ScanErrors",
            )
        )
        below = report.score.value < result.min_score
        criteria.append(
            GateCriterion(
                "scan.score",
                report.skill,
                "fail" if below else "pass",
                f"structural score {report.score.value} is {'below' if below else 'at least'} the minimum "
                f"{result.min_score}",
                (("score", str(report.score.value)), ("min_score", str(result.min_score))),
                report.skill_md,
                1,
                "ScoreBelowMinimum",
            )
        )
    return criteria


@dataclass(frozen=True)
class LiftBands:
    """Where a lift's interval must lie to pass or fail; configured in aces.yml (``gate:``) or by flags."""

    pass_band: float = DEFAULT_PASS_BAND
    fail_band: float = DEFAULT_FAIL_BAND
    metric: str = DEFAULT_LIFT_METRIC
    """The metric the gate reads (``outcome`` by default, ``composite``, ``accuracy``…)."""
    underpowered_fails: bool = False
    """aces.yml ``gate.underpowered: fail``: an interval that straddles a band fails the gate instead of warning."""

    @classmethod
    def of(cls, settings: GateSettings) -> LiftBands:
        """The bands aces.yml's ``gate:`` section sets: the same ones ``aces-ci trial`` reads its verdicts with."""
        return cls(settings.pass_band, settings.fail_band, settings.metric, settings.underpowered == "fail")

    def __post_init__(self) -> None:
        if not (math.isfinite(self.pass_band) and math.isfinite(self.fail_band)) or self.fail_band >= self.pass_band:
            raise ConfigError(
                f"the fail band ({self.fail_band}) must be below the pass band ({self.pass_band})", field="gate.lift"
            )


@dataclass(frozen=True)
class LiftSummary:
    """One metric's lift as the gate reads it: the estimate, its interval, and the design behind it."""

    metric: str
    delta: float
    ci_low: float
    ci_high: float
    n_cases: int
    runs_per_arm: int
    mde: float | None = None
    confidence: float = 0.95
    se: float | None = None
    """Standard error of the lift over cases; None: read back from the interval's width."""
    distribution_free: bool = False
    """The interval is the distribution-free bound (no spread across cases observed), not a t-interval."""

    @classmethod
    def of(cls, metric: str, lift: MetricLift, confidence: float) -> LiftSummary:
        """From a trial's per-metric lift (:class:`aces_ci.report.MetricLift`)."""
        low, high = lift.ci
        return cls(
            metric,
            lift.delta,
            low,
            high,
            lift.n_cases,
            lift.runs_per_arm,
            lift.mde,
            confidence,
            lift.se,
            distribution_free=lift.se is None,
        )

    def describe(self) -> str:
        level = round(self.confidence * 100)
        return (
            f"{self.metric} lift {self.delta:+.3f}, {level}% interval [{self.ci_low:+.3f}, {self.ci_high:+.3f}], "
            f"{self.n_cases} cases × {self.runs_per_arm} runs per arm"
        )


@dataclass(frozen=True)
class LiftDecision:
    verdict: LiftVerdict
    reason: str
    settle: stats.Settle | None = None
    """For ``underpowered``: what would settle it (:func:`aces_ci.stats.settle_from_interval`, the trial's rule)."""

    @property
    def cases_needed(self) -> int | None:
        """Cases in all (at the same runs per arm) that would likely settle it; None if no design would."""
        return None if self.settle is None else self.settle.cases_needed


def lift_verdict(summary: LiftSummary, bands: LiftBands) -> LiftDecision:
    """ACES's bands applied to the interval, never to the point.

    ``fail`` when the upper bound is at or below the fail band (the skill harms, and the data say
    so); ``pass`` when the lower bound is at or above the pass band; ``neutral`` when the whole
    interval lies between the bands; ``underpowered`` when it straddles a band: this design could
    not tell, and the decision carries the settle plan of :mod:`aces_ci.stats` — the same function
    the trial's own verdict uses, so the gate, the comment and the CLI give one number.
    """
    from . import stats

    low, high = summary.ci_low, summary.ci_high
    if not all(math.isfinite(v) for v in (summary.delta, low, high)) or low > high:
        return LiftDecision("underpowered", f"{summary.metric}: the interval is not usable ({low}, {high})")
    label = stats.verdict_label((low, high), stats.Bands(bands.pass_band, bands.fail_band))
    if label == "fail":
        return LiftDecision("fail", f"upper bound {high:+.3f} is at or below the fail band {bands.fail_band:+.3f}")
    if label == "pass":
        return LiftDecision("pass", f"lower bound {low:+.3f} is at or above the pass band {bands.pass_band:+.3f}")
    if label == "neutral":
        return LiftDecision(
            "neutral",
            f"the interval lies between the fail band {bands.fail_band:+.3f} and the pass band "
            f"{bands.pass_band:+.3f}: no helpful or harmful effect of that size",
        )
    band = bands.fail_band if low <= bands.fail_band < high else bands.pass_band
    settle = stats.settle_from_interval(
        summary.delta,
        (low, high),
        n_cases=summary.n_cases,
        runs=summary.runs_per_arm,
        alpha=1.0 - summary.confidence,
        bands=stats.Bands(bands.pass_band, bands.fail_band),
        se=summary.se,
        distribution_free=summary.distribution_free,
    )
    return LiftDecision("underpowered", f"the interval straddles the band {band:+.3f}: not enough evidence", settle)


_LIFT_STATUS: dict[LiftVerdict, CriterionStatus] = {
    "pass": "pass",
    "neutral": "pass",
    "underpowered": "warn",
    "fail": "fail",
}


def lift_criterion(skill: str, skill_md: str, summary: LiftSummary | None, bands: LiftBands) -> GateCriterion:
    """The gate's criterion ``lift.<metric>`` for one skill; a missing metric warns (nothing to gate on)."""
    name = f"lift.{bands.metric}"
    band_props = (("pass_band", f"{bands.pass_band:g}"), ("fail_band", f"{bands.fail_band:g}"))
    if summary is None:
        return GateCriterion(
            name,
            skill,
            "warn",
            f"no {bands.metric} lift for this skill: the metric does not apply to its cases, "
            "so the release is not gated on it",
            band_props,
            skill_md,
            1,
            "NoLift",
        )
    decision = lift_verdict(summary, bands)
    properties = (
        ("metric", summary.metric),
        ("verdict", decision.verdict),
        ("delta", f"{summary.delta:.6g}"),
        ("ci_low", f"{summary.ci_low:.6g}"),
        ("ci_high", f"{summary.ci_high:.6g}"),
        ("confidence", f"{summary.confidence:g}"),
        ("n_cases", str(summary.n_cases)),
        ("runs_per_arm", str(summary.runs_per_arm)),
        ("mde", "" if summary.mde is None else f"{summary.mde:.6g}"),
        *band_props,
        *((("cases_needed", str(decision.cases_needed)),) if decision.cases_needed is not None else ()),
    )
    failure_type = "NegativeSkillLift" if decision.verdict == "fail" else "SkillLift"
    message = f"{decision.verdict}: {summary.describe()}: {decision.reason}"
    if decision.settle is not None:
        message += f"; to settle it: {decision.settle.advice}"
    status = _LIFT_STATUS[decision.verdict]
    if decision.verdict == "underpowered" and bands.underpowered_fails:
        status = "fail"
    return GateCriterion(name, skill, status, message, properties, skill_md, 1, failure_type)


MAX_INFRA_SHARE = 0.10
"""The share of a skill's rollouts that may be lost to infrastructure before its lift stops gating.

Rollouts lost to an outage are not missing at random (a longer with-skill prompt times out first),
so an interval over what survived can be biased, not just wider. Up to a tenth is tolerated (the
figures say how many); beyond it, or with no measured pair at all, the skill is ``error``."""


@dataclass(frozen=True)
class InfraLoss:
    """What infrastructure cost one skill's trial: the rollouts of its design that gave no measurement."""

    planned: int
    """Rollouts of the design (finished, failed and not run)."""
    failed: int
    """Rollouts that ended as infrastructure errors or whose grading failed."""
    not_run: int
    """Rollouts the circuit breaker left unrun (a budget stop is not a loss: the report says what ran)."""
    first_error: str | None = None
    """The first error's end reason and message, redacted."""

    @property
    def lost(self) -> int:
        return self.failed + self.not_run

    @property
    def share(self) -> float:
        return self.lost / self.planned if self.planned else 1.0


def infra_criterion(
    skill: str, skill_md: str, metric: str, loss: InfraLoss, summary: LiftSummary | None
) -> GateCriterion | None:
    """The ``error`` criterion of a skill whose lift cannot gate because infrastructure lost its rollouts.

    ``error`` when no pair was measured (``summary`` is None after losses) or more than
    :data:`MAX_INFRA_SHARE` of the design was lost; None when the measurement stands (no loss, or
    a small one: the lift criterion's figures then gate as usual). A lift computed from what ran is
    still stated, marked as not gating.
    """
    if loss.lost == 0 or (summary is not None and loss.share <= MAX_INFRA_SHARE):
        return None
    what = (
        f"the {metric} lift from what ran ({summary.describe()}) does not gate: more than "
        f"{MAX_INFRA_SHARE:.0%} of the design was lost"
        if summary is not None
        else f"no {metric} pair was measured, so this skill's lift is unknown"
    )
    message = (
        f"infrastructure error: {loss.lost} of {loss.planned} rollouts lost ({loss.failed} ended as infrastructure "
        f"errors or could not be graded, {loss.not_run} not run because the circuit breaker tripped); first error: "
        f"{loss.first_error or 'not recorded'}; {what}. To retry, rerun the job: completed rollouts come from the "
        "rollout cache and journal and are not paid again"
    )
    properties = (
        ("metric", metric),
        ("planned", str(loss.planned)),
        ("lost", str(loss.lost)),
        ("infra_errors", str(loss.failed)),
        ("not_run", str(loss.not_run)),
        ("max_infra_share", f"{MAX_INFRA_SHARE:g}"),
        *((("delta", f"{summary.delta:.6g}"),) if summary is not None else ()),
    )
    return GateCriterion(f"lift.{metric}", skill, "error", message, properties, skill_md, 1, "InfrastructureError")


def lift_criteria(
    report: TrialReport, bands: LiftBands, losses: Mapping[str, InfraLoss] | None = None
) -> list[GateCriterion]:
    """One ``lift.<metric>`` criterion per skill of a trial: ``error`` for a skill whose ``losses`` (by skill
    directory) keep it from gating (:func:`infra_criterion`), else its lift read against the bands."""
    criteria = []
    for trial in report.skills:
        lift = trial.lift.get(bands.metric)
        summary = None if lift is None else LiftSummary.of(bands.metric, lift, report.confidence)
        loss = (losses or {}).get(trial.skill)
        error = None if loss is None else infra_criterion(trial.skill, trial.skill_md, bands.metric, loss, summary)
        criteria.append(error or lift_criterion(trial.skill, trial.skill_md, summary, bands))
    return criteria


def closure_criteria(values: Iterable[SkillValue], tolerance: float = DEFAULT_CLOSURE_TOLERANCE) -> list[GateCriterion]:
    """SkillSV's closure check per skill, a warning (never a failure) when Σφ/Λ is clearly off 1.

    The values are trusted to explain the content lift only when they add up to it; the check
    fails when the ratio's interval lies entirely outside 1 ± ``tolerance`` (or the point does,
    when there is no interval). A content lift too small to divide by is skipped, not guessed.
    """
    criteria = []
    low_ok, high_ok = 1 - tolerance, 1 + tolerance
    for value in values:
        ratio, ci = value.closure_ratio, value.closure_ci
        skill_md = f"{value.skill}/SKILL.md" if value.skill not in ("", ".") else "SKILL.md"
        base = (("content_lift", f"{value.content_lift:.6g}"), ("tolerance", f"{tolerance:g}"))
        if ratio is None:
            criteria.append(
                GateCriterion(
                    "skillsv.closure",
                    value.skill,
                    "skipped",
                    f"content lift {value.content_lift:+.3f} is too small to check that the unit values add up to it",
                    base,
                    skill_md,
                    1,
                    "ClosureFailed",
                )
            )
            continue
        low, high = ci if ci is not None else (ratio, ratio)
        holds = high >= low_ok and low <= high_ok
        interval = f" (interval [{low:.2f}, {high:.2f}])" if ci is not None else ""
        message = f"closure ratio Σφ/Λ = {ratio:.2f}{interval}" + (
            f" is consistent with 1 ± {tolerance:g}"
            if holds
            else f" is outside 1 ± {tolerance:g}: the unit "
            "values do not add up to the content lift, so read them with care"
        )
        properties = (
            *base,
            ("closure_ratio", f"{ratio:.6g}"),
            ("closure_ci_low", f"{low:.6g}"),
            ("closure_ci_high", f"{high:.6g}"),
        )
        status: CriterionStatus = "pass" if holds else "warn"
        criteria.append(
            GateCriterion("skillsv.closure", value.skill, status, message, properties, skill_md, 1, "ClosureFailed")
        )
    return criteria
