"""``trial --plan``: how many cases × runs a target lift needs, and what that costs, before anyone pays for it.

The plan reads only what is already paid for: the trial's requests are put to the engine with a
budget of zero new rollouts, so the cache and the journal answer and nothing runs. Those rollouts
are the pilot. Its run noise and case-to-case spread (:func:`aces_ci.stats.pooled_components`: the
spread is kept only when it shows above run noise, so the design does not swing from pilot to pilot),
or with ``--control aa`` the A/A control's run noise (:func:`aces_ci.stats.components_from_aa`,
with the case-to-case spread of the lift taken from the pilot when it has one, else assumed 0 and
said so), feed :func:`aces_ci.stats.plan`; tokens and dollars per rollout are the pilot's means.

Two questions get a design each: detecting the target lift at all (the interval excludes 0),
and, when the target lies above the pass band, earning a ``pass`` verdict (the interval clears
the pass band).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from .. import stats
from ._protocol import SkillPlan, TrialDesign
from ._table import RunTable, paired

MAX_PLANNED_RUNS = 10


@dataclass(frozen=True)
class DesignEstimate:
    """The cheapest design reaching the power for one question, with what it would cost."""

    question: str
    margin: float
    cases: int | None
    """None: no design within the available cases reaches the power (write more cases)."""
    runs: int | None
    rollouts: int | None
    tokens: int | None
    usd: float | None
    power: float | None
    within_available_cases: bool
    grid: tuple[tuple[int, int, int], ...]
    """(runs, cases needed, rollouts) for each runs per condition that has a finite answer."""


NoiseSource = Literal["pilot", "A/A control"]
"""Where a plan's noise figures came from: this trial's cached pilot rollouts, or an A/A control."""


@dataclass(frozen=True)
class SkillDesignPlan:
    """The plan of one skill: where the noise figures came from and the design of each question."""

    skill: str
    source: NoiseSource
    """``pilot`` (cached rollouts of this trial) or ``A/A control``."""
    pilot_cases: int
    pilot_runs: int
    pilot_rollouts: int
    target_lift: float
    available_cases: int
    tokens_per_rollout: float | None
    usd_per_rollout: float | None
    between_case_sd: float
    run_noise_sd: float
    between_case_sd_ci: tuple[float, float] | None
    """95% interval of the case-to-case SD of the lift; None when the pilot could not estimate it."""
    designs: tuple[DesignEstimate, ...]
    assumptions: tuple[str, ...]


class NoPilot(Exception):
    """The cache holds no usable pilot for this skill: nothing to plan from."""


def _components(
    table: RunTable, plan: SkillPlan, design: TrialDesign, metric: str
) -> tuple[stats.VarianceComponents, NoiseSource, stats.PairedScores, list[str]]:
    primary = plan.primary
    pilot = paired(table, primary.treatment, primary.control, metric, design.coupling)
    notes: list[str] = []
    aa = plan.contrast("aa")
    if aa is not None:
        aa_scores = paired(table, aa.treatment, aa.control, metric, design.coupling)
        if int(aa_scores.usable().sum()) >= 2:
            spread = 0.0
            if int(pilot.usable().sum()) >= 2:
                spread = math.sqrt(stats.pooled_components(pilot).between_case)
                notes.append(f"case-to-case spread of the lift from the pilot: SD {spread:.3f}")
            else:
                notes.append("case-to-case spread of the lift assumed 0 (no pilot of the lift itself): optimistic")
            return stats.components_from_aa(aa_scores, spread), "A/A control", aa_scores, notes
    if int(pilot.usable().sum()) < 2:
        raise NoPilot(plan.skill.name)
    return stats.pooled_components(pilot), "pilot", pilot, notes


def plan_skill_design(
    table: RunTable,
    plan: SkillPlan,
    design: TrialDesign,
    *,
    bands: stats.Bands,
    target_lift: float,
    priced: bool,
) -> SkillDesignPlan:
    """The plan of one skill from its cached rollouts (``table``) for the gate's ``bands`` (their metric, α and pass
    band); :class:`NoPilot` when there are none."""
    metric = bands.metric
    components, source, scores, notes = _components(table, plan, design, metric)
    records = list(table.records.values())
    tokens = [r.result.usage.prompt_tokens + r.result.usage.completion_tokens for r in records]
    per_rollout_tokens = sum(tokens) / len(tokens) if tokens else None
    per_rollout_usd = sum(r.result.usage.cost_usd for r in records) / len(records) if records and priced else None
    questions = [("detect the target lift (interval excludes 0)", 0.0)]
    if target_lift > bands.pass_band:
        questions.append((f"earn a pass verdict (interval at or above {bands.pass_band:+.2f})", bands.pass_band))
    designs = []
    assumptions: list[str] = list(notes)
    for question, margin in questions:
        result = stats.plan(
            components,
            target_lift,
            alpha=bands.alpha,
            margin=margin,
            available_cases=len(table.case_ids),
            max_runs=MAX_PLANNED_RUNS,
        )
        best = result.cheapest
        fallback = min(result.grid, key=lambda p: p.rollouts) if result.grid else None
        point = best or fallback
        designs.append(
            DesignEstimate(
                question=question,
                margin=margin,
                cases=None if point is None else point.cases,
                runs=None if point is None else point.runs,
                rollouts=None if point is None else point.rollouts,
                tokens=None
                if point is None or per_rollout_tokens is None
                else round(point.rollouts * per_rollout_tokens),
                usd=None if point is None or per_rollout_usd is None else point.rollouts * per_rollout_usd,
                power=None if point is None else point.power,
                within_available_cases=best is not None,
                grid=tuple((p.runs, p.cases, p.rollouts) for p in result.grid),
            )
        )
        assumptions.extend(a for a in result.assumptions if a not in assumptions)
    run_noise = math.sqrt(max((components.within_with + components.within_control) / 2.0, 0.0))
    return SkillDesignPlan(
        skill=plan.skill.name,
        source=source,
        pilot_cases=int(scores.usable().sum()),
        pilot_runs=scores.scheduled_runs,
        pilot_rollouts=len(records),
        target_lift=target_lift,
        available_cases=len(table.case_ids),
        tokens_per_rollout=per_rollout_tokens,
        usd_per_rollout=per_rollout_usd,
        between_case_sd=math.sqrt(max(components.between_case, 0.0)),
        run_noise_sd=run_noise,
        between_case_sd_ci=None
        if components.between_case_ci is None
        else (math.sqrt(components.between_case_ci[0]), math.sqrt(components.between_case_ci[1])),
        designs=tuple(designs),
        assumptions=tuple(assumptions),
    )
