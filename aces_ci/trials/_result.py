"""The trial's result model: frozen data every report renders from (``schemas/trial-result.schema.json``).

:class:`TrialResult` satisfies :class:`aces_ci.report.TrialReport` (and its parts the other live
Protocols) by attribute names, so the PR comment, the gate's lift criteria and the trial's own
reports read one model. Every number is a plain float on the metric's scale (scores in [0, 1],
lifts in [−1, 1]); ``None`` means "does not apply / could not be scored", never zero, and the
reason sits beside it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from ..agents import Disclosure, HarnessName
from ..engine import StopReason
from ..frozen import frozen
from ..models import Provider
from ..stats import Bands, Coupling, TriggerStrata, VerdictLabel
from ._protocol import ContrastKind, Mode

TriageClass = Literal["no_score", "steered"]


@dataclass(frozen=True)
class MetricLiftResult:
    """One metric's lift of one contrast (satisfies :class:`aces_ci.report.MetricLift`)."""

    metric: str
    delta: float
    ci: tuple[float, float]
    n_cases: int
    runs_per_arm: int
    with_mean: float
    without_mean: float
    """The control's mean (without the skill, the ``--against`` version, the A/A copy…)."""
    mde: float | None
    n_cases_excluded: int
    small_n: bool
    """Fewer than 10 cases: simulated coverage of such intervals falls short of nominal."""
    method: str
    se: float | None
    naive_ci: tuple[float, float] | None
    """The pooled-runs interval that treats runs as independent pairs: for comparison only."""
    unscorable_with: int
    unscorable_control: int
    notes: tuple[str, ...] = ()
    run_sd_with: float | None = None
    """Run-to-run SD of one run's score around its case mean, with the skill; None with one run per case."""
    run_sd_control: float | None = None


@dataclass(frozen=True)
class ContrastResult:
    """Every metric's lift of one with-minus-control comparison."""

    kind: ContrastKind
    treatment: str
    control: str
    description: str
    visible_decoys: int
    lift: Mapping[str, MetricLiftResult | None]
    not_applicable: Mapping[str, str]
    """Metric → why it has no lift here."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "lift", frozen(self.lift))
        object.__setattr__(self, "not_applicable", frozen(self.not_applicable))


@dataclass(frozen=True)
class DiscordanceResult:
    gains: int
    regressions: int
    ties: int
    n_cases: int
    label: str
    """Says what the counts are: discordance under this protocol, not harm."""


@dataclass(frozen=True)
class DegradationResult:
    confidently_degraded: float
    possibly_degraded: float
    confidently_count: int
    possibly_count: int
    n_cases: int
    margin: float
    meaning: str


@dataclass(frozen=True)
class ArmCostResult:
    """One condition's cost over all its rollouts of the design (satisfies :class:`aces_ci.report.ArmCost`).

    Counted whether a rollout ran now or came from the cache: this is what the design costs. What
    this command itself paid is :attr:`TrialResult.spent`.
    """

    arm: str
    rollouts: int
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    calls: int
    turns: int
    wall_s: float
    usd: float | None
    latency_median_s: float | None


@dataclass(frozen=True)
class LiftPerDollarResult:
    lift: float | None
    extra_usd_per_rollout: float | None
    lift_per_extra_usd: float | None
    note: str


@dataclass(frozen=True)
class CappedLift:
    """The gated metric's lift under an ex-ante cap per rollout, the same in both conditions (for efficiency claims).

    A rollout that spent more than the cap scores 0: what the skill achieves *within* that budget.
    Beside the uncapped lift, not instead of it.
    """

    cap_tokens: int | None
    cap_usd: float | None
    lift: MetricLiftResult | None
    capped_with: int
    capped_control: int
    rule: str


@dataclass(frozen=True)
class SettleResult:
    """How much more evidence would settle an underpowered verdict (from :class:`aces_ci.stats.Settle`)."""

    target: str
    cases_needed: int | None
    extra_cases: int | None
    runs_needed: int | None
    extra_runs: int | None
    rollouts_needed: int | None
    reason: str
    advice: str = ""
    """The one sentence every report prints (:func:`aces_ci.stats.settle_advice`)."""


@dataclass(frozen=True)
class RoutingPremium:
    """Isolation lift minus group lift on the same cases: what being among decoys costs the skill."""

    delta: float
    ci: tuple[float, float] | None
    n_cases: int
    isolation: float
    group: float
    visible_decoys: int
    method: str


@dataclass(frozen=True)
class PresenceSplit:
    """Total lift = presence value θ_m (name and description only) + content lift Λ (the body)."""

    total: float
    presence: float
    content: float
    presence_ci: tuple[float, float]
    content_ci: tuple[float, float]
    metric: str = ""
    """The metric split (the gated one)."""
    note: str | None = None
    """Set when the parts do not add up to the total, and why (composite, outcome, skill efficiency)."""


@dataclass(frozen=True)
class NoiseFloor:
    """The A/A control: the same condition twice. Its lift is noise; its spread is the run noise."""

    delta: float
    ci: tuple[float, float]
    n_cases: int
    runs_per_arm: int
    run_noise_sd: float | None
    """SD of one run's score around its case mean, pooled over both copies; None with one run per case."""
    verdict: VerdictLabel
    """What the gate would conclude from this A/A "lift" (anything but pass/fail is the expected outcome)."""


@dataclass(frozen=True)
class StressLevel:
    visible_decoys: int
    lift: MetricLiftResult | None
    with_mean_wall_s: float | None
    without_mean_wall_s: float | None


@dataclass(frozen=True)
class TriageCase:
    """One case whose with-condition did worse, and which kind of failure the trajectories show."""

    case: str
    triage: TriageClass
    with_mean: float | None
    control_mean: float
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class SequentialLook:
    look: int
    max_looks: int
    alpha: float
    ci: tuple[float, float] | None
    verdict: VerdictLabel
    decided: bool
    reason: str


@dataclass(frozen=True)
class TranscriptCall:
    """One tool call of an agent step: the tool's name and its arguments as JSON, cut and redacted."""

    name: str
    arguments: str


@dataclass(frozen=True)
class TranscriptStep:
    """One step of a rollout's ATIF trajectory as a reader sees it: every string cut and redacted."""

    source: Literal["system", "user", "agent"]
    text: str
    calls: tuple[TranscriptCall, ...] = ()
    results: tuple[str, ...] = ()
    """What the tools answered, in call order."""
    skill_events: tuple[str, ...] = ()
    """The skill touches this step made, in words (``skill load pdf``, ``script run pdf/scripts/fill.py``)."""


@dataclass(frozen=True)
class Transcript:
    """A bounded, redacted copy of one rollout's trajectory (:mod:`aces_ci.trials._transcript` says the caps)."""

    steps: tuple[TranscriptStep, ...]
    omitted_steps: int = 0
    """Steps of the trajectory left out: past the step cap, or all of them when the result's budget ran out."""
    note: str | None = None
    """Why steps are missing, when they are."""


@dataclass(frozen=True)
class CaseRow:
    """One case's run scores of the gated metric in the primary contrast (None: no score)."""

    case: str
    with_scores: tuple[float | None, ...]
    control_scores: tuple[float | None, ...]
    prompt: str | None = None
    """The case's prompt, cut to :data:`aces_ci.trials.SHOWN_CHARS` and redacted: what a reviewer scans first."""
    with_answer: str | None = None
    """The first with-run's final answer, cut and redacted; None when no with-run answered."""
    control_answer: str | None = None
    with_transcript: Transcript | None = None
    """The first with-run's trajectory as a transcript; None when the arm has no run of this case."""
    control_transcript: Transcript | None = None
    with_triggered: tuple[bool | None, ...] | None = None
    """Per with-run, in run order, whether it loaded the skill under test (the trigger the strata count; None:
    that run gave no answer); None when the treatment has no skill to load (the per-case trigger column)."""


@dataclass(frozen=True)
class SkillTrialResult:
    """One skill's trial (satisfies :class:`aces_ci.report.SkillTrial`)."""

    skill: str
    """Skill directory relative to the repository root."""
    name: str
    skill_md: str
    contrast: str
    """The primary contrast in words."""
    verdict: VerdictLabel
    verdict_reason: str
    gate_metric: str
    settle: SettleResult | None
    lift: Mapping[str, MetricLiftResult | None]
    """The primary contrast's lift per metric."""
    not_applicable: Mapping[str, str]
    discordance: DiscordanceResult | None
    degradation: DegradationResult | None
    trigger: TriggerStrata | None
    """The lift split by whether the skill was used (:func:`aces_ci.stats.trigger_strata`, as computed)."""
    cost: tuple[ArmCostResult, ...]
    lift_per_dollar: LiftPerDollarResult | None
    estimand: str
    estimand_axes: Mapping[str, str]
    eval_source: str
    n_cases: int
    contrasts: tuple[ContrastResult, ...]
    """Every contrast run, the primary first."""
    routing_premium: RoutingPremium | None = None
    presence: PresenceSplit | None = None
    noise_floor: NoiseFloor | None = None
    stress: tuple[StressLevel, ...] = ()
    triage: tuple[TriageCase, ...] = ()
    sequential: tuple[SequentialLook, ...] = ()
    cases: tuple[CaseRow, ...] = ()
    capped: CappedLift | None = None
    """The gated lift under ``--cap-tokens/--cap-usd``; None without a cap."""
    against: str | None = None
    """``REF (commit)`` of the control version, for ``--against``."""
    against_commit: str | None = None
    """The full commit ``--against`` resolved to; None without ``--against``."""
    commit: str | None = None
    """The commit checked out in the skill's working tree (``-dirty`` when the skill has uncommitted changes);
    None outside a git repository."""
    rollouts: int = 0
    """Rollouts of this skill's design that finished (run now or from a store)."""
    not_run: int = 0
    infra_errors: int = 0
    grader_errors: int = 0
    first_error: str | None = None
    """The first infrastructure error (end reason: message) or grading failure among its rollouts; None: none."""
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """The mappings are read-only: every report (text, Markdown, JSON, JUnit, the gate) reads one result."""
        object.__setattr__(self, "lift", frozen(self.lift))
        object.__setattr__(self, "not_applicable", frozen(self.not_applicable))
        object.__setattr__(self, "estimand_axes", frozen(self.estimand_axes))


@dataclass(frozen=True)
class RepositoryLift:
    delta: float | None
    ci: tuple[float, float] | None
    n_skills: int
    n_cases: int
    method: str
    meaning: str


@dataclass(frozen=True)
class Spent:
    """What this command paid: rollouts run now (cache, journal and session hits are free) and judges."""

    rollouts_run: int
    rollouts_reused: int
    input_tokens: int
    output_tokens: int
    usd: float | None


@dataclass(frozen=True)
class TrialResult:
    """A trial over one or more skills (satisfies :class:`aces_ci.report.TrialReport`)."""

    skills: tuple[SkillTrialResult, ...]
    bands: Bands
    """How every skill's verdict was read (aces.yml ``gate:`` or the flags): the gate reads the verdicts, not these."""
    provider: Provider
    model: str
    harness: HarnessName
    disclosure: Disclosure
    runs: int
    seed: int
    coupling: Coupling
    mode: Mode
    sequential: bool
    spent: Spent
    tool_version: str
    generated_at: str
    """UTC time the result was produced (ISO 8601); every other field is a function of inputs, seed and cache."""
    stopped_by: StopReason | None = None
    """The budget cap that left rollouts unrun; None when every rollout of the design ran."""
    repository: RepositoryLift | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    judge: str | None = None
    """``provider/model`` of the judge that graded what no rule can; None: no judge, those metrics are null."""
    harness_version: str | None = None
    """The harness build that ran every rollout (a CLI's own ``--version`` and our adapter's; the built-in loop's
    release and protocol): a rerun after a CLI upgrade says so. None in a result built without an engine."""

    @property
    def confidence(self) -> float:
        """The level of every interval of the fixed design, 1 − α (a sequential look states its own)."""
        return self.bands.confidence

    @property
    def gate_metric(self) -> str:
        return self.bands.metric

    @property
    def verdict(self) -> Literal["pass", "fail", "warn"]:
        """The worst of the skills' gate statuses (:meth:`aces_ci.stats.Bands.status`): ``fail`` when a skill fails
        (or is underpowered and the gate counts that as failing), ``warn`` when one is underpowered, else ``pass``."""
        statuses = {self.bands.status(s.verdict) for s in self.skills}
        return "fail" if "fail" in statuses else "warn" if "warn" in statuses else "pass"

    @property
    def infra_errors(self) -> int:
        return sum(s.infra_errors + s.grader_errors for s in self.skills)
