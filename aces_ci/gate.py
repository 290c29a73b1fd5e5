"""The gate's policy across tiers: from result models to a verdict and an exit code.

Pure functions of result models, no I/O: the same result always gives the same verdict, so a
report re-rendered from saved JSON agrees with the run that produced it. Each tier computes its
own per-skill verdict with its result (the scan's in :mod:`aces_ci.scan`); this module is where
the verdicts of the tiers meet the exit-code contract of DESIGN.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from .errors import EXIT_GATE_FAILED, EXIT_PASS, EXIT_RUNTIME_ERROR
from .report import MetricLift, SkillTrial, SkillValue, TrialReport
from .scan import ScanResult, skill_checks
from .stats import Bands

if TYPE_CHECKING:  # a scan's gate must not import the trials' numpy
    from .trials import TriggerTrial


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
GateVerdict = Literal["pass", "warn", "fail", "error"]

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


def scan_criteria(result: ScanResult) -> list[GateCriterion]:
    """Two criteria per skill, ``scan.errors`` and ``scan.score``: the checks the scan's own verdict is read off
    (:func:`aces_ci.scan.skill_checks`), each its own JUnit testcase; decided there, never here."""
    criteria = []
    for report in result.skills:
        for check in skill_checks(report.findings, report.score, result.min_score):
            where = check.location
            criteria.append(
                GateCriterion(
                    check.name,
                    report.skill,
                    "pass" if check.passed else "fail",
                    check.message,
                    check.figures,
                    where.path if where else report.skill_md,
                    (where.line if where else None) or 1,
                    check.failure_type,
                )
            )
    return criteria


def describe_lift(metric: str, lift: MetricLift, confidence: float) -> str:
    """One lift's figures in words: what a criterion's message quotes."""
    low, high = lift.ci
    return (
        f"{metric} lift {lift.delta:+.3f}, {round(confidence * 100)}% interval [{low:+.3f}, {high:+.3f}], "
        f"{lift.n_cases} cases × {lift.runs_per_arm} runs per arm"
    )


def lift_criterion(trial: SkillTrial, bands: Bands, confidence: float) -> GateCriterion:
    """The gate's criterion ``lift.<metric>`` for one skill, from the verdict its trial reached.

    The trial decided the verdict and its settle plan once (:func:`aces_ci.stats.verdict`); this
    maps it to a status, never judging the interval again, so the gate, the CLI and the comment
    say one thing. A missing metric warns (nothing to gate on); ``gate.underpowered: fail`` turns
    an underpowered warning into a failure.
    """
    name = f"lift.{bands.metric}"
    band_props = (("pass_band", f"{bands.pass_band:g}"), ("fail_band", f"{bands.fail_band:g}"))
    lift = trial.lift.get(bands.metric)
    if lift is None:
        return GateCriterion(
            name,
            trial.skill,
            "warn",
            f"no {bands.metric} lift for this skill: the metric does not apply to its cases, "
            "so the release is not gated on it",
            band_props,
            trial.skill_md,
            1,
            "NoLift",
        )
    settle = trial.settle
    low, high = lift.ci
    properties = (
        ("metric", bands.metric),
        ("verdict", trial.verdict),
        ("delta", f"{lift.delta:.6g}"),
        ("ci_low", f"{low:.6g}"),
        ("ci_high", f"{high:.6g}"),
        ("confidence", f"{confidence:g}"),
        ("n_cases", str(lift.n_cases)),
        ("runs_per_arm", str(lift.runs_per_arm)),
        ("mde", "" if lift.mde is None else f"{lift.mde:.6g}"),
        *band_props,
        *((("cases_needed", str(settle.cases_needed)),) if settle is not None and settle.cases_needed else ()),
    )
    # the reason states the interval, its level and the cases: the figures before it are the estimate and the runs
    message = f"{trial.verdict}: {bands.metric} lift {lift.delta:+.3f} ({lift.runs_per_arm} runs per arm): "
    message += trial.verdict_reason
    if settle is not None:
        message += f"; to settle it: {settle.advice or settle.reason}"
    status = bands.status(trial.verdict)
    failure_type = "NegativeSkillLift" if trial.verdict == "fail" else "SkillLift"
    return GateCriterion(name, trial.skill, status, message, properties, trial.skill_md, 1, failure_type)


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


def infra_criterion(trial: SkillTrial, metric: str, loss: InfraLoss, confidence: float) -> GateCriterion | None:
    """The ``error`` criterion of a skill whose lift cannot gate because infrastructure lost its rollouts.

    ``error`` when no pair was measured (no ``metric`` lift is left after the losses) or more than
    :data:`MAX_INFRA_SHARE` of the design was lost; None when the measurement stands (no loss, or
    a small one: the lift criterion's figures then gate as usual). A lift computed from what ran is
    still stated, marked as not gating.
    """
    lift = trial.lift.get(metric)
    if loss.lost == 0 or (lift is not None and loss.share <= MAX_INFRA_SHARE):
        return None
    what = (
        f"the {metric} lift from what ran ({describe_lift(metric, lift, confidence)}) does not gate: more than "
        f"{MAX_INFRA_SHARE:.0%} of the design was lost"
        if lift is not None
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
        *((("delta", f"{lift.delta:.6g}"),) if lift is not None else ()),
    )
    return GateCriterion(
        f"lift.{metric}", trial.skill, "error", message, properties, trial.skill_md, 1, "InfrastructureError"
    )


def lift_criteria(report: TrialReport, losses: Mapping[str, InfraLoss] | None = None) -> list[GateCriterion]:
    """One ``lift.<metric>`` criterion per skill of a trial: ``error`` for a skill whose ``losses`` (by skill
    directory) keep it from gating (:func:`infra_criterion`), else the verdict its trial reached, under the
    bands the trial read it with (``report.bands``)."""
    bands, confidence = report.bands, report.confidence
    criteria = []
    for trial in report.skills:
        loss = (losses or {}).get(trial.skill)
        error = None if loss is None else infra_criterion(trial, bands.metric, loss, confidence)
        criteria.append(error or lift_criterion(trial, bands, confidence))
    return criteria


def recall_criteria(trial: TriggerTrial) -> list[GateCriterion]:
    """One ``recall`` criterion per skill of a trigger trial gated on a floor (``trial.min_recall``); none
    without one. ``fail`` when the recall's interval lies below the floor, ``underpowered`` warns (fails
    under ``gate.underpowered: fail``), a skill with no should-trigger query warns that nothing gated it."""
    floor = trial.min_recall
    if floor is None:
        return []
    criteria = []
    for skill in trial.skills:
        recall, verdict = skill.recall, skill.verdict or "unmeasured"
        properties: tuple[tuple[str, str], ...] = (("min_recall", f"{floor:g}"), ("verdict", verdict))
        if recall.value is None or verdict == "unmeasured":
            message = f"no should-trigger query in evals/eval_queries.json: recall not gated (floor {floor:g})"
            status: CriterionStatus = "warn"
        else:
            low, high = recall.interval or (recall.value, recall.value)
            properties += (
                ("recall", f"{recall.value:.6g}"),
                ("ci_low", f"{low:.6g}"),
                ("ci_high", f"{high:.6g}"),
                ("n_queries", str(recall.n)),
                ("runs", str(trial.runs)),
            )
            message = (
                f"{verdict}: recall {recall.value:.2f}, interval [{low:.2f}, {high:.2f}] against the floor {floor:g}, "
                f"{recall.n} queries × {trial.runs} runs on the {trial.host} listing"
            )
            status = "fail" if trial.failing(skill) else "warn" if verdict == "underpowered" else "pass"
        failure_type = "LowRecall" if status == "fail" else "Recall"
        criteria.append(GateCriterion("recall", skill.skill, status, message, properties, None, None, failure_type))
    return criteria


def closure_criteria(values: Iterable[SkillValue], tolerance: float = DEFAULT_CLOSURE_TOLERANCE) -> list[GateCriterion]:
    """SkillSV's closure check per skill, a warning (never a failure) when Σφ/Λ is clearly off 1.

    The values are trusted to explain the content lift only when they add up to it; the check
    fails when the ratio's interval lies entirely outside 1 ± ``tolerance`` (or the point does,
    when there is no interval). A content lift too small to divide by is skipped, not guessed. A valuation
    without truncation gets no criterion at all: its chains' values add up to the content lift by
    construction (``closure_is_check``), so a pass would be an identity shown as a check (issue 23).
    """
    criteria = []
    low_ok, high_ok = 1 - tolerance, 1 + tolerance
    for value in values:
        if not value.closure_is_check:  # Σφ adds up to Λ by construction: a criterion that cannot fail says nothing
            continue
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
