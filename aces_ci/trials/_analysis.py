"""One skill's trial, from its rollouts to its result: every contrast's lifts, the verdict, and what they mean.

Every number comes from :mod:`aces_ci.stats` (the case-clustered interval and the naive one
beside it, MDE, discordance, degradation shares, trigger strata, cost, the verdict and what would
settle it); this module only decides which scores each statistic sees:

* the **primary contrast** carries the verdict, on the gated metric (aces.yml ``gate.metric``,
  default outcome: accuracy and goal accuracy), read off its interval with the gate's bands;
* the **routing premium** is, per case, the isolation lift minus the group lift, with the same
  case-clustered t-interval over cases;
* the **metadata-only split** reports presence value θ_m (stub − control) and content lift Λ
  (with − stub), each with its interval; they add up to the total lift on the same cases;
* the **A/A control** reports its "lift" (the noise floor) and the run noise it shows.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .. import stats
from ..engine import RolloutRecord
from ..redact import redact_text, safe_prefix
from ._protocol import Contrast, SkillPlan, TrialDesign
from ._result import (
    ArmCostResult,
    CappedLift,
    CaseRow,
    ContrastResult,
    DegradationResult,
    DiscordanceResult,
    LiftPerDollarResult,
    MetricLiftResult,
    NoiseFloor,
    PresenceSplit,
    RoutingPremium,
    SequentialLook,
    SettleResult,
    SkillTrialResult,
    StressLevel,
)
from ._table import TRIAL_METRICS, RunTable, paired, rollout_cost, score_rows, trigger_rows, unscored_reasons
from ._transcript import transcript_of
from ._triage import triage_cases


@dataclass(frozen=True)
class AnalysisSettings:
    """Everything besides the rollouts that a skill's analysis needs."""

    design: TrialDesign
    bands: stats.Bands
    """The gate's bands, carried as given: the gated metric, α and the bands the verdict is read with."""
    priced: bool
    """False when the model's price is unknown: dollars are then reported as None, never as 0."""
    harness: str
    model: str


def _metric_lift(metric: str, lift: stats.PairedLift) -> MetricLiftResult | None:
    if lift.delta is None or lift.ci is None or lift.with_mean is None or lift.control_mean is None:
        return None
    return MetricLiftResult(
        metric=metric,
        delta=lift.delta,
        ci=lift.ci,
        n_cases=lift.n_cases,
        runs_per_arm=lift.runs_per_arm,
        with_mean=lift.with_mean,
        without_mean=lift.control_mean,
        mde=lift.mde,
        n_cases_excluded=lift.n_cases_excluded,
        small_n=lift.small_n,
        method=lift.method,
        se=lift.se,
        naive_ci=lift.naive.ci,
        unscorable_with=lift.runs_with.unscorable,
        unscorable_control=lift.runs_control.unscorable,
        notes=lift.notes,
        run_sd_with=math.sqrt(lift.variance.within_with) if lift.variance.identified else None,
        run_sd_control=math.sqrt(lift.variance.within_control) if lift.variance.identified else None,
    )


def _describe(contrast: Contrast, plan: SkillPlan, design: TrialDesign) -> str:
    name = plan.skill.name
    control = f"{name} at {design.against}" if design.against is not None else f"without {name}"
    among = f", among {contrast.visible_decoys} decoy skill(s)" if contrast.visible_decoys else ""
    return {
        "primary": f"with {name} vs {control}{among}",
        "isolation": f"with {name} vs {control}, with no decoys",
        "aa": f"with {name} twice (A/A control: any lift is noise){among}",
        "presence": f"only the name and description of {name} vs {control}{among}",
        "content": f"the full {name} vs only its name and description{among}",
        "stress": f"with vs without {name}, {contrast.visible_decoys} decoy skill(s) visible",
    }[contrast.kind]


def metrics_of(table: RunTable) -> tuple[str, ...]:
    """The metrics a lift is reported for: the contract's eight, then any other graded metric (BYOG)."""
    return (*TRIAL_METRICS, *(m for m in table.metrics() if m not in TRIAL_METRICS))


def contrast_result(
    table: RunTable, contrast: Contrast, plan: SkillPlan, settings: AnalysisSettings
) -> tuple[ContrastResult, dict[str, stats.PairedLift]]:
    """Every metric's lift of ``contrast``; the raw :class:`~aces_ci.stats.PairedLift` beside each, for the verdict."""
    coupling = settings.design.coupling
    lifts: dict[str, MetricLiftResult | None] = {}
    raw: dict[str, stats.PairedLift] = {}
    missing: dict[str, str] = {}
    for metric in metrics_of(table):
        lift = stats.paired_lift(
            paired(table, contrast.treatment, contrast.control, metric, coupling), settings.bands.alpha
        )
        raw[metric] = lift
        lifts[metric] = _metric_lift(metric, lift)
        if lifts[metric] is None:
            reasons = unscored_reasons(table, contrast.treatment, contrast.control, metric)
            missing[metric] = next(iter(reasons), "no case was scored in both conditions")
    result = ContrastResult(
        contrast.kind,
        contrast.treatment,
        contrast.control,
        _describe(contrast, plan, settings.design),
        contrast.visible_decoys,
        lifts,
        missing,
    )
    return result, raw


def _aligned_differences(scores: stats.PairedScores) -> np.ndarray:
    """Per case (all of them, in order), mean with − mean control; NaN where a condition has no score."""
    out = np.full(scores.n_cases_total, np.nan)
    out[scores.usable()] = stats.case_differences(scores)
    return out


def _routing_premium(table: RunTable, plan: SkillPlan, settings: AnalysisSettings) -> RoutingPremium | None:
    group, isolation = plan.primary, plan.contrast("isolation")
    if isolation is None:
        return None
    coupling, metric = settings.design.coupling, settings.bands.metric
    d_iso = _aligned_differences(paired(table, isolation.treatment, isolation.control, metric, coupling))
    d_group = _aligned_differences(paired(table, group.treatment, group.control, metric, coupling))
    both = ~np.isnan(d_iso) & ~np.isnan(d_group)
    premium = d_iso[both] - d_group[both]
    if premium.size == 0:
        return None
    ci, method, _, _ = stats.t_interval(premium, settings.bands.alpha)
    return RoutingPremium(
        delta=float(np.mean(premium)),
        ci=ci,
        n_cases=int(premium.size),
        isolation=float(np.mean(d_iso[both])),
        group=float(np.mean(d_group[both])),
        visible_decoys=group.visible_decoys,
        method=f"per case, isolation lift minus group lift; {method}",
    )


def _presence(contrasts: Sequence[ContrastResult], metric: str) -> PresenceSplit | None:
    by_kind = {c.kind: c.lift.get(metric) for c in contrasts}
    primary, presence, content = by_kind.get("primary"), by_kind.get("presence"), by_kind.get("content")
    if primary is None or presence is None or content is None:
        return None
    residual = primary.delta - presence.delta - content.delta
    note = None
    if abs(residual) > 1e-9:
        note = (
            f"the parts miss the total by {residual:+.3f}: the {metric.replace('_', ' ')} of each pair is taken over "
            "what both of its rollouts have (the metrics graded on both, efficiency as a ratio to that partner), "
            "so the three contrasts do not measure one quantity; per-rollout metrics (accuracy, goal accuracy, "
            "behaviour check, security) split exactly"
        )
    return PresenceSplit(primary.delta, presence.delta, content.delta, presence.ci, content.ci, metric, note)


def _noise_floor(table: RunTable, plan: SkillPlan, settings: AnalysisSettings) -> NoiseFloor | None:
    aa = plan.contrast("aa")
    if aa is None:
        return None
    scores = paired(table, aa.treatment, aa.control, settings.bands.metric, settings.design.coupling)
    lift = stats.paired_lift(scores, settings.bands.alpha)
    if lift.delta is None or lift.ci is None:
        return None
    try:
        components = stats.components_from_aa(scores)
        noise: float | None = math.sqrt((components.within_with + components.within_control) / 2.0)
    except ValueError:
        noise = None
    if scores.scheduled_runs < 2:
        noise = None
    label = stats.verdict_label(lift.ci, settings.bands)
    return NoiseFloor(lift.delta, lift.ci, lift.n_cases, lift.runs_per_arm, noise, label)


def _mean_wall(table: RunTable, condition: str) -> float | None:
    runs = table.runs_of(condition)
    return sum(r.result.duration_s for r in runs) / len(runs) if runs else None


def _stress(
    table: RunTable, plan: SkillPlan, contrasts: Sequence[ContrastResult], metric: str
) -> tuple[StressLevel, ...]:
    levels = []
    for contrast in (c for c in contrasts if c.kind == "stress"):
        levels.append(
            StressLevel(
                contrast.visible_decoys,
                contrast.lift.get(metric),
                _mean_wall(table, contrast.treatment),
                _mean_wall(table, contrast.control),
            )
        )
    return tuple(levels)


def _costs(table: RunTable, plan: SkillPlan, priced: bool) -> dict[str, stats.ConditionCost]:
    return {
        label: stats.cost_summary(label, [rollout_cost(record, priced) for record in table.runs_of(label)])
        for label in plan.conditions
    }


def _arm_cost(cost: stats.ConditionCost, wall_s: float) -> ArmCostResult:
    return ArmCostResult(
        arm=cost.condition,
        rollouts=cost.rollouts,
        input_tokens=cost.tokens_in,
        output_tokens=cost.tokens_out,
        cached_tokens=cost.tokens_cached,
        calls=cost.calls,
        turns=cost.calls,
        wall_s=wall_s,
        usd=None if cost.unpriced else cost.dollars if cost.dollars is not None else 0.0,
        latency_median_s=cost.latency_median_s,
    )


SHOWN_CHARS = 120
"""How much of a prompt or an answer the per-case table quotes."""


def _shown(text: str | None) -> str | None:
    if text is None:
        return None
    flat = " ".join(redact_text(text).split())
    cut = safe_prefix(flat, SHOWN_CHARS)
    return cut + ("…" if len(cut) < len(flat) else "")


def _case_row(
    table: RunTable,
    case: str,
    treatment: str,
    control: str,
    scores: tuple[list[float | None], ...],
    *,
    triggered: list[bool | None] | None,
) -> CaseRow:
    """The case's run scores, whether each with-run loaded the skill, its prompt and each condition's first answer
    (cut and redacted) and first run's transcript, for the per-case table and the report's side-by-side view."""
    runs = range(table.replicates)
    treated = [r for i in runs if (r := table.get(case, treatment, i)) is not None]
    controls = [r for i in runs if (r := table.get(case, control, i)) is not None]
    every = treated + controls

    def answer(records: list[RolloutRecord]) -> str | None:
        return next((_shown(r.result.final_answer) for r in records if r.result.final_answer is not None), None)

    return CaseRow(
        case,
        tuple(scores[0]),
        tuple(scores[1]),
        prompt=_shown(every[0].request.case.prompt) if every else None,
        with_answer=answer(treated),
        control_answer=answer(controls),
        with_transcript=transcript_of(treated[0].result) if treated else None,
        control_transcript=transcript_of(controls[0].result) if controls else None,
        with_triggered=None if triggered is None else tuple(triggered),
    )


def _settle(verdict: stats.Verdict) -> SettleResult | None:
    s = verdict.settle
    if s is None:
        return None
    rollouts = s.cases_rollouts if s.cases_rollouts is not None else s.runs_rollouts
    return SettleResult(
        s.target, s.cases_needed, s.extra_cases, s.runs_needed, s.extra_runs, rollouts, s.reason, s.advice
    )


def _capped(table: RunTable, treatment: str, control: str, settings: AnalysisSettings) -> CappedLift | None:
    """The gated lift with every rollout over the design's ex-ante cap scored 0, in both conditions alike."""
    cap = settings.design.budget_cap
    if cap is None:
        return None
    metric, coupling = settings.bands.metric, settings.design.coupling

    def costs(condition: str) -> list[list[stats.RolloutCost | None]]:
        return [
            [
                rollout_cost(record, settings.priced) if (record := table.get(case, condition, r)) is not None else None
                for r in range(table.replicates)
            ]
            for case in table.case_ids
        ]

    capped = stats.cap_scores(
        paired(table, treatment, control, metric, coupling), costs(treatment), costs(control), cap
    )
    return CappedLift(
        cap.tokens,
        cap.dollars,
        _metric_lift(metric, stats.paired_lift(capped.scores, settings.bands.alpha)),
        capped.capped_with,
        capped.capped_control,
        capped.rule,
    )


def _estimand(
    plan: SkillPlan, settings: AnalysisSettings, lift: stats.PairedLift, eval_source: str
) -> stats.EstimandStatement:
    """The six axes of the gated lift; with an ex-ante cap, the budget axis also says what the capped lift is."""
    statement = _statement(plan, settings, lift, eval_source, capped=False)
    if settings.design.budget_cap is None:
        return statement
    capped = _statement(plan, settings, lift, eval_source, capped=True).budget
    return dataclasses.replace(statement, budget=f"{statement.budget} The capped lift reported beside it: {capped}")


def _statement(
    plan: SkillPlan, settings: AnalysisSettings, lift: stats.PairedLift, eval_source: str, *, capped: bool
) -> stats.EstimandStatement:
    design = settings.design
    cap = design.budget_cap if capped else None
    return stats.estimand_statement(
        stats.ProtocolFacts(
            skill=plan.skill.name,
            contrast="against-ref" if design.against is not None else "with-without",
            metric=settings.bands.metric,
            eval_source=eval_source,
            n_cases=lift.n_cases,
            runs_per_arm=lift.runs_per_arm,
            coupling=design.coupling,
            mode=design.mode,
            decoys=plan.primary.visible_decoys,
            control_ref=design.against,
            harness=settings.harness,
            model=settings.model,
            alpha=settings.bands.alpha,
            trigger_event="the skill under test was loaded in the with-condition run",
            budget_cap_dollars=cap.dollars if cap is not None else None,
            budget_cap_tokens=cap.tokens if cap is not None else None,
        )
    )


@dataclass(frozen=True)
class SkillInputs:
    """What a skill's analysis is given besides its rollouts."""

    plan: SkillPlan
    path: str
    """Skill directory relative to the repository root."""
    eval_source: str
    against: str | None = None
    not_run: int = 0
    notes: tuple[str, ...] = ()
    against_commit: str | None = None
    commit: str | None = None


def analyse_skill(
    table: RunTable,
    inputs: SkillInputs,
    settings: AnalysisSettings,
    sequential: Sequence[SequentialLook] = (),
) -> SkillTrialResult:
    """The result of one skill's trial from its rollouts (see the module docstring)."""
    plan, metric = inputs.plan, settings.bands.metric
    coupling = settings.design.coupling
    contrasts: list[ContrastResult] = []
    primary_raw: dict[str, stats.PairedLift] = {}
    for contrast in plan.contrasts:
        result, raw = contrast_result(table, contrast, plan, settings)
        contrasts.append(result)
        if contrast.kind == "primary":
            primary_raw = raw
    primary = contrasts[0]
    scores = paired(table, primary.treatment, primary.control, metric, coupling)
    gate_lift = primary_raw.get(metric) or stats.paired_lift(scores, settings.bands.alpha)
    # One call gives the label, its reason and its settle plan, at the level the verdict is read at: the
    # fixed design's 1 − α, or a sequential trial's last look's (α spent over the looks, as the look decided).
    judged = stats.paired_lift(scores, sequential[-1].alpha) if sequential else gate_lift
    verdict = stats.verdict(judged, settings.bands, available_cases=len(table.case_ids))
    reason = verdict.reason
    if sequential:
        reason = f"sequential trial, look {sequential[-1].look} of {sequential[-1].max_looks}: {reason}"
    usable = gate_lift.n_cases > 0
    discordance = stats.paired_discordance(scores) if usable else None
    degradation = stats.degradation_shares(scores) if usable and scores.scheduled_runs >= 2 else None
    targeted = plan.conditions[primary.treatment].target is not None
    flags = trigger_rows(table, primary.treatment, plan.skill.name) if targeted else None
    trigger = stats.trigger_strata(scores, flags) if flags is not None and usable else None
    costs = _costs(table, plan, settings.priced)
    walls = {label_: sum(r.result.duration_s for r in table.runs_of(label_)) for label_ in plan.conditions}
    per_dollar = stats.lift_per_dollar(gate_lift.delta, costs[primary.treatment], costs[primary.control])
    estimand = _estimand(plan, settings, gate_lift, inputs.eval_source)
    sentences = list(estimand.sentences)
    if gate_lift.small_n and usable:
        sentences.append(
            f"Small sample: {gate_lift.n_cases} case(s) (fewer than {stats.SMALL_N}); in simulation such intervals "
            "cover the truth less often than their stated level, so read them as rough."
        )
    with_rows, control_rows = score_rows(table, primary.treatment, primary.control, metric)
    negative = gate_lift.delta is not None and gate_lift.delta < 0
    records = list(table.records.values())
    return SkillTrialResult(
        skill=inputs.path,
        name=plan.skill.name,
        skill_md=f"{inputs.path}/SKILL.md" if inputs.path not in ("", ".") else "SKILL.md",
        contrast=primary.description,
        verdict=verdict.label,
        verdict_reason=reason,
        gate_metric=metric,
        settle=_settle(verdict),
        lift=primary.lift,
        not_applicable=primary.not_applicable,
        discordance=None
        if discordance is None
        else DiscordanceResult(
            discordance.gains, discordance.regressions, discordance.ties, discordance.n_cases, discordance.label
        ),
        degradation=None
        if degradation is None or degradation.confidently_degraded is None or degradation.possibly_degraded is None
        else DegradationResult(
            degradation.confidently_degraded,
            degradation.possibly_degraded,
            degradation.confidently_count,
            degradation.possibly_count,
            degradation.n_cases,
            degradation.margin,
            degradation.meaning,
        ),
        trigger=trigger,
        cost=tuple(_arm_cost(cost, walls[label_]) for label_, cost in costs.items()),
        lift_per_dollar=LiftPerDollarResult(
            per_dollar.lift, per_dollar.extra_dollars_per_rollout, per_dollar.lift_per_extra_dollar, per_dollar.note
        ),
        estimand=" ".join(sentences),
        estimand_axes=dict(
            zip(
                ("contrast", "population", "unit", "budget", "summary", "identification"),
                estimand.sentences,
                strict=True,
            )
        ),
        eval_source=inputs.eval_source,
        n_cases=len(table.case_ids),
        contrasts=tuple(contrasts),
        routing_premium=_routing_premium(table, plan, settings),
        presence=_presence(contrasts, metric),
        noise_floor=_noise_floor(table, plan, settings),
        stress=_stress(table, plan, contrasts, metric),
        triage=triage_cases(table, primary.treatment, primary.control, metric, plan.skill.name) if negative else (),
        sequential=tuple(sequential),
        cases=tuple(
            _case_row(
                table, case, primary.treatment, primary.control, (w, c), triggered=None if flags is None else flags[i]
            )
            for i, (case, w, c) in enumerate(zip(table.case_ids, with_rows, control_rows, strict=True))
        ),
        capped=_capped(table, primary.treatment, primary.control, settings),
        against=inputs.against,
        against_commit=inputs.against_commit,
        commit=inputs.commit,
        rollouts=len(records),
        not_run=inputs.not_run,
        infra_errors=sum(1 for r in records if r.result.status == "infra_error"),
        grader_errors=sum(1 for r in records if r.grades is not None and r.grades.errors),
        first_error=_first_error(records),
        notes=(*plan.notes, *inputs.notes),
    )


def _first_error(records: Sequence[RolloutRecord]) -> str | None:
    """The first infrastructure error's end reason and message (redacted by the engine), else the first grading
    failure's: what a report names when it says the run could not be measured."""
    for record in records:
        if record.result.status == "infra_error":
            return f"{record.result.end_reason}: {record.result.error or 'no message'}"
    for record in records:
        for grade in record.grades.errors if record.grades is not None else ():
            return f"grading {grade.metric}: {grade.reason or grade.status}"
    return None
