"""A trial result's JSON seen through the report Protocols, so the page reuses the comment's headline.

:func:`~aces_ci.report._ci_sections.headline_parts` and ``cost_ratio`` word the headline and the
cost line of the PR comment and the terminal; reading them from these views, built from the JSON
alone, makes the page say exactly what the comment says, number for number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...stats import VerdictLabel
from .._live_model import TRIAL_METRICS


@dataclass(frozen=True)
class LiftView:
    delta: float
    ci: tuple[float, float]
    n_cases: int
    runs_per_arm: int
    with_mean: float
    without_mean: float
    mde: float | None
    se: float | None


@dataclass(frozen=True)
class DiscordanceView:
    gains: int
    regressions: int
    ties: int


@dataclass(frozen=True)
class CostView:
    arm: str
    rollouts: int
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    turns: int
    wall_s: float
    usd: float | None


@dataclass(frozen=True)
class SettleView:
    cases_needed: int | None
    extra_cases: int | None
    extra_runs: int | None
    reason: str
    advice: str


@dataclass(frozen=True)
class CaseView:
    case: str
    prompt: str | None
    with_answer: str | None
    control_answer: str | None
    with_scores: Sequence[float | None]
    control_scores: Sequence[float | None]


@dataclass(frozen=True)
class SkillTrialView:
    skill: str
    name: str
    skill_md: str
    contrast: str
    lift: Mapping[str, LiftView | None]
    discordance: DiscordanceView | None
    cost: Sequence[CostView]
    verdict: VerdictLabel
    verdict_reason: str
    settle: SettleView | None
    estimand: str
    cases: Sequence[CaseView]


def lift_view(raw: dict[str, Any] | None) -> LiftView | None:
    if raw is None:
        return None
    low, high = raw["ci"]
    return LiftView(
        raw["delta"],
        (low, high),
        raw["n_cases"],
        raw["runs_per_arm"],
        raw["with_mean"],
        raw["without_mean"],
        raw.get("mde"),
        raw.get("se"),
    )


def cost_views(raw: dict[str, Any]) -> list[CostView]:
    fields = ("arm", "rollouts", "input_tokens", "output_tokens", "cached_tokens", "turns", "wall_s", "usd")
    return [CostView(*(arm[f] for f in fields)) for arm in raw["cost"]["arms"]]


def skill_view(raw: dict[str, Any]) -> SkillTrialView:
    """One ``skills[]`` entry of a validated trial result as a :class:`~aces_ci.report.SkillTrial`."""
    disc, settle = raw.get("discordance"), raw.get("settle")
    return SkillTrialView(
        skill=raw["skill"],
        name=raw["name"],
        skill_md=raw["skill_md"],
        contrast=raw["contrast"],
        lift={metric: lift_view(raw["lift"].get(metric)) for metric in TRIAL_METRICS},
        discordance=None if disc is None else DiscordanceView(disc["gains"], disc["regressions"], disc["ties"]),
        cost=cost_views(raw),
        verdict=raw["verdict"],
        verdict_reason=raw["verdict_reason"],
        settle=None
        if settle is None
        else SettleView(
            settle["cases_needed"],
            settle["extra_cases"],
            settle["extra_runs"],
            settle["reason"],
            settle.get("advice", ""),
        ),
        estimand=raw["estimand"],
        cases=[
            CaseView(
                c["case"],
                c.get("prompt"),
                c.get("with_answer"),
                c.get("control_answer"),
                c["with_scores"],
                c["control_scores"],
            )
            for c in raw["cases"]
        ],
    )
