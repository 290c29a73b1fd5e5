"""``trial --plan`` as text and JSON (``schemas/trial-plan.schema.json``): cases × runs, rollouts, tokens, dollars."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..atomic import write_output
from ..safe_text import inline
from ._common import plural
from ._write import json_bytes

if TYPE_CHECKING:  # the models are only read here; importing them would load the live tier into a scan
    from ..trials import DesignEstimate, SkillDesignPlan

PLAN_SCHEMA_VERSION = 1


def _design_line(design: DesignEstimate) -> str:
    if design.cases is None or design.runs is None:
        return f"to {design.question}: no design of up to 10 runs per condition reaches 80% power"
    fits = "" if design.within_available_cases else " (more cases than the dataset holds: write more cases)"
    tokens = "" if design.tokens is None else f", about {design.tokens:,} tokens"
    usd = "" if design.usd is None else f", about ${design.usd:.2f}"
    return (
        f"to {design.question}: {design.cases} cases × {plural(design.runs, 'run')} per condition = "
        f"{design.rollouts:,} rollouts{tokens}{usd}, power {design.power:.0%}{fits}"
    )


def _sd_interval(plan: SkillDesignPlan) -> str:
    if plan.between_case_sd_ci is None:
        return ""
    low, high = plan.between_case_sd_ci
    return f" (95% interval {low:.3f} … {high:.3f})"


def render_plan_text(plans: Sequence[SkillDesignPlan], metric: str, confidence: float) -> str:
    """One block per skill: where the noise came from, the noise, and the design of each question."""
    lines = [f"aces-ci trial --plan · {metric} lift · {round(confidence * 100)}% intervals, 80% power", ""]
    for plan in plans:
        lines.append(f"{inline(plan.skill)}: target lift {plan.target_lift:+.3f}")
        lines.append(
            f"  from the {plan.source}: {plural(plan.pilot_cases, 'case')} × {plural(plan.pilot_runs, 'run')} "
            f"({plan.pilot_rollouts} cached rollouts); run-to-run SD {plan.run_noise_sd:.3f}, "
            f"case-to-case SD of the lift {plan.between_case_sd:.3f}{_sd_interval(plan)}; the dataset has "
            f"{plan.available_cases} cases"
        )
        lines.extend(f"  {_design_line(design)}" for design in plan.designs)
        lines.extend(f"  assumes: {assumption}" for assumption in plan.assumptions)
        lines.append("")
    return "\n".join(lines)


def plan_to_dict(plans: Sequence[SkillDesignPlan], metric: str, confidence: float) -> dict[str, Any]:
    return {
        "schema_version": PLAN_SCHEMA_VERSION,
        "metric": metric,
        "confidence": confidence,
        "power": 0.8,
        "skills": [
            {
                "skill": plan.skill,
                "source": plan.source,
                "pilot_cases": plan.pilot_cases,
                "pilot_runs": plan.pilot_runs,
                "pilot_rollouts": plan.pilot_rollouts,
                "target_lift": plan.target_lift,
                "available_cases": plan.available_cases,
                "tokens_per_rollout": plan.tokens_per_rollout,
                "usd_per_rollout": plan.usd_per_rollout,
                "run_noise_sd": plan.run_noise_sd,
                "between_case_sd": plan.between_case_sd,
                "between_case_sd_ci": None if plan.between_case_sd_ci is None else list(plan.between_case_sd_ci),
                "designs": [
                    {
                        "question": d.question,
                        "margin": d.margin,
                        "cases": d.cases,
                        "runs": d.runs,
                        "rollouts": d.rollouts,
                        "tokens": d.tokens,
                        "usd": d.usd,
                        "power": d.power,
                        "within_available_cases": d.within_available_cases,
                        "grid": [{"runs": r, "cases": c, "rollouts": n} for r, c, n in d.grid],
                    }
                    for d in plan.designs
                ],
                "assumptions": list(plan.assumptions),
            }
            for plan in plans
        ],
    }


def write_plan_json(plans: Sequence[SkillDesignPlan], metric: str, confidence: float, path: Path | str) -> None:
    write_output(Path(path), json_bytes(plan_to_dict(plans, metric, confidence)), "JSON plan")
