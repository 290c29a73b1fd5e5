"""ACES paired trials: conditions, protocol, the engine runs that measure them, and their result.

:func:`plan_skill` turns a :class:`TrialDesign` into one skill's conditions (with / without, the
skill at a git ref, A/A, metadata-only, decoys for group mode and the stress test) and contrasts;
:func:`trial_guard` proves each condition stages what it claims before any rollout runs;
:class:`TrialRunner` runs every skill's requests on an open engine (fixed, or sequential by
replicate) and analyses them with :mod:`aces_ci.stats` into a :class:`TrialResult`.
:func:`skill_at_ref` materialises the ``--against`` version from git objects; :func:`plan_skill_design`
prints cases × runs and the cost a target lift needs, from a pilot or an A/A control.
"""

from ._analysis import AnalysisSettings, SkillInputs, analyse_skill
from ._conditions import (
    AA,
    BASE,
    METADATA_ONLY,
    WITH,
    WITH_DECOYS,
    WITHOUT,
    Condition,
    metadata_only,
    stress_labels,
    trial_guard,
)
from ._git import SkillAtRef, checked_ref, skill_at_ref
from ._grading import TrialGrader, trial_grader
from ._plan import DesignEstimate, NoPilot, SkillDesignPlan, plan_skill_design
from ._protocol import (
    DEFAULT_RUNS,
    Contrast,
    ContrastKind,
    Mode,
    SkillPlan,
    TrialDesign,
    condition_seed,
    plan_skill,
    requests_for,
)
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
    RepositoryLift,
    RoutingPremium,
    SequentialLook,
    SettleResult,
    SkillTrialResult,
    Spent,
    StressLevel,
    TriageCase,
    TriageClass,
    TrialResult,
)
from ._runner import GateSettings, RunSetup, SkillUnderTrial, TrialRunner
from ._table import (
    ACES_METRICS,
    COMPOSITE,
    EFFICIENCY,
    OUTCOME,
    TRIAL_METRICS,
    RunTable,
    efficiency_grade,
    paired,
    score_rows,
)
from ._triage import triage_cases
from ._triggers import Rate, SkillTriggers, TriggerQuestion, TriggerTrial, run_trigger_trial

__all__ = [
    "AA",
    "ACES_METRICS",
    "BASE",
    "COMPOSITE",
    "DEFAULT_RUNS",
    "EFFICIENCY",
    "METADATA_ONLY",
    "OUTCOME",
    "TRIAL_METRICS",
    "WITH",
    "WITHOUT",
    "WITH_DECOYS",
    "AnalysisSettings",
    "ArmCostResult",
    "CappedLift",
    "CaseRow",
    "Condition",
    "Contrast",
    "ContrastKind",
    "ContrastResult",
    "DegradationResult",
    "DesignEstimate",
    "DiscordanceResult",
    "GateSettings",
    "LiftPerDollarResult",
    "MetricLiftResult",
    "Mode",
    "NoPilot",
    "NoiseFloor",
    "PresenceSplit",
    "Rate",
    "RepositoryLift",
    "RoutingPremium",
    "RunSetup",
    "RunTable",
    "SequentialLook",
    "SettleResult",
    "SkillAtRef",
    "SkillDesignPlan",
    "SkillInputs",
    "SkillPlan",
    "SkillTrialResult",
    "SkillTriggers",
    "SkillUnderTrial",
    "Spent",
    "StressLevel",
    "TriageCase",
    "TriageClass",
    "TrialDesign",
    "TrialGrader",
    "TrialResult",
    "TrialRunner",
    "TriggerQuestion",
    "TriggerTrial",
    "analyse_skill",
    "checked_ref",
    "condition_seed",
    "efficiency_grade",
    "metadata_only",
    "paired",
    "plan_skill",
    "plan_skill_design",
    "requests_for",
    "run_trigger_trial",
    "score_rows",
    "skill_at_ref",
    "stress_labels",
    "triage_cases",
    "trial_grader",
    "trial_guard",
]
