"""Hand-made trial and SkillSV results shaped as the report Protocols describe (what `trial`/`value` will produce)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from aces_ci.stats import Bands


@dataclass(frozen=True)
class Lift:
    delta: float
    ci: tuple[float, float]
    n_cases: int = 30
    runs_per_arm: int = 3
    with_mean: float = 0.6
    without_mean: float = 0.4
    mde: float | None = 0.08
    se: float | None = 0.04


@dataclass(frozen=True)
class Discord:
    gains: int
    regressions: int
    ties: int


@dataclass(frozen=True)
class Cost:
    arm: str
    rollouts: int = 90
    input_tokens: int = 120_000
    output_tokens: int = 30_000
    cached_tokens: int = 50_000
    turns: int = 270
    wall_s: float = 450.0
    usd: float | None = 0.42


@dataclass(frozen=True)
class Settle:
    cases_needed: int | None
    extra_cases: int | None
    extra_runs: int | None
    reason: str = "each with 80% power if the true lift holds"
    advice: str = ""


@dataclass(frozen=True)
class CaseRow:
    case: str
    prompt: str | None
    with_answer: str | None
    control_answer: str | None
    with_scores: Sequence[float | None]
    control_scores: Sequence[float | None]


@dataclass(frozen=True)
class Trial:
    skill: str
    lift: Mapping[str, Lift | None]
    skill_md: str = ""
    contrast: str = "with vs without the skill"
    discordance: Discord | None = Discord(12, 3, 15)
    cost: Sequence[Cost] = (Cost("with"), Cost("without", usd=0.30))
    estimand: str = "Mean paired lift over the population of cases the evals stand for; case-clustered interval."
    settle: Settle | None = None
    name: str = "pdf-tools"
    cases: Sequence[CaseRow] = ()
    verdict: str = "pass"
    """The verdict the trial reached on the gated metric (hand-made here: these builders are the renderers' input)."""
    verdict_reason: str = "the 95% interval lies at or above the pass band +0.05"


@dataclass(frozen=True)
class Trials:
    skills: Sequence[Trial]
    confidence: float = 0.95
    bands: Bands = Bands()
    model: str = "claude-haiku-4-5"
    harness: str = "builtin"


@dataclass(frozen=True)
class Unit:
    id: str
    file: str
    lines: tuple[int, int]
    net_effect: float
    ci: tuple[float, float]
    decision: str
    kind: str = "body"
    tokens: int = 40
    preview: str = "- Always | quote <paths>"
    content_value: float | None = 0.01
    context_cost: float | None = -0.02
    rollouts_to_decide: int | None = None
    rollouts_range: tuple[int, int | None] | None = None
    reason: str = ""


@dataclass(frozen=True)
class Pair:
    units: tuple[str, str]
    effect: float
    ci: tuple[float, float]


@dataclass(frozen=True)
class Precision:
    half_width: float
    negligible_within: float
    margin: float = 0.05


@dataclass(frozen=True)
class Curve:
    method: str
    removed: Sequence[int]
    score: Sequence[float]
    auc: float


@dataclass(frozen=True)
class Value:
    skill: str
    units: Sequence[Unit]
    content_lift: float = 0.2
    closure_ratio: float | None = 0.97
    closure_ci: tuple[float, float] | None = (0.85, 1.08)
    pruning: Sequence[Curve] = field(default_factory=tuple)
    order_distribution: str = "layer"
    name: str = "pdf-tools"
    closure_is_check: bool = True
    precision: Precision | None = None
    interactions: Sequence[Pair] = field(default_factory=tuple)


def helpful_trial(skill: str = "skills/pdf-tools") -> Trial:
    return Trial(
        skill,
        {
            "composite": Lift(0.21, (0.12, 0.30)),
            "outcome": Lift(0.18, (0.05, 0.31)),
            "accuracy": Lift(0.25, (0.10, 0.40)),
            "goal_accuracy": Lift(0.11, (-0.02, 0.24)),
            "skill_execution": Lift(0.6, (0.45, 0.75)),
            "behavior_check": None,
            "skill_efficiency": Lift(-0.04, (-0.12, 0.04)),
            "security": Lift(0.0, (0.0, 0.0)),
        },
        skill_md=f"{skill}/SKILL.md",
    )


def harmful_trial(skill: str = "skills/harmful") -> Trial:
    return Trial(
        skill,
        {"composite": Lift(-0.30, (-0.42, -0.18)), "outcome": Lift(-0.25, (-0.4, -0.1))},
        skill_md=f"{skill}/SKILL.md",
        verdict="fail",
        verdict_reason="the 95% interval [-0.400, -0.100] over 30 case(s) lies at or below the fail band -0.10",
    )


def straddling_trial(skill: str = "skills/clean") -> Trial:
    return Trial(
        skill,
        {
            "outcome": Lift(0.04, (-0.06, 0.14), n_cases=10, runs_per_arm=3),
            "composite": Lift(0.04, (-0.06, 0.14), n_cases=10, runs_per_arm=3),
        },
        skill_md=f"{skill}/SKILL.md",
        verdict="underpowered",
        verdict_reason="the 95% interval [-0.060, +0.140] over 10 case(s) straddles the band(s) +0.05: this design "
        "could not tell",
        settle=Settle(
            cases_needed=36,
            extra_cases=26,
            extra_runs=None,
            reason="each with 80% power if the true lift is +0.040",
            advice="36 cases in all (26 more) at the same runs per arm (towards pass, each with 80% power if the true "
            "lift is +0.040)",
        ),
    )


def valuation(skill: str = "skills/pdf-tools") -> Value:
    units = (
        Unit("u3", f"{skill}/SKILL.md", (14, 18), -0.05, (-0.09, -0.01), "delete"),
        Unit("u5", f"{skill}/SKILL.md", (30, 30), 0.01, (-0.02, 0.04), "compress", context_cost=-0.04),
        Unit("u1", f"{skill}/SKILL.md", (6, 9), 0.12, (0.07, 0.17), "keep"),
        Unit(
            "r1",
            f"{skill}/scripts/run.sh",
            (1, 40),
            0.0,
            (-0.03, 0.03),
            "unresolved",
            kind="resource",
            rollouts_to_decide=1800,
            rollouts_range=(900, 4100),
        ),
    )
    curves = (
        Curve("skillsv", [0, 1, 2, 3, 4], [0.62, 0.64, 0.63, 0.58, 0.41], 0.611),
        Curve("closure_loo", [0, 1, 2, 3, 4], [0.62, 0.55, 0.52, 0.47, 0.41], 0.531),
        Curve("random", [0, 1, 2, 3, 4], [0.62, 0.57, 0.50, 0.46, 0.41], 0.522),
    )
    return Value(
        skill,
        units,
        pruning=curves,
        precision=Precision(0.035, 0.021),
        interactions=(Pair(("u3", "u1"), -0.06, (-0.10, -0.02)),),
    )
