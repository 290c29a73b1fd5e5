"""Statistics of paired skill trials: lift with case-clustered intervals, verdicts, power, discordance.

Pure functions over one metric's run scores (numpy and scipy only; imports nothing else of
aces_ci). The trial verb builds a :class:`PairedScores` per skill and metric with
:func:`paired_scores`, then calls :func:`paired_lift`, :func:`verdict`, :func:`paired_discordance`,
:func:`degradation_shares`, :func:`trigger_strata`, :func:`plan` and :func:`sequential_decision`.
Why each method was chosen is in the module docstrings; ``benchmarks/stats_validity.py`` checks
them by simulation.

Only the gate's :class:`Bands` and the interval rule :func:`verdict_label` load eagerly: the
configuration a scan reads holds the bands, and ``aces-ci scan`` starts without numpy. Every other name
loads its module (and numpy) on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._bands import Bands, GateStatus, VerdictLabel, verdict_label

if TYPE_CHECKING:
    from ._bootstrap import RepoLift, skill_level_bootstrap
    from ._change import ASSUMPTION as CHANGE_ASSUMPTION
    from ._change import CaseLift, ChangeLabel, LiftChange, case_lifts, lift_change
    from ._cost import (
        BudgetCap,
        CappedScores,
        ConditionCost,
        LiftPerDollar,
        RolloutCost,
        cap_scores,
        cost_summary,
        lift_per_dollar,
        per_rollout_cap,
    )
    from ._data import COUPLINGS, Coupling, PairedScores, case_differences, case_means, paired_scores
    from ._discordance import (
        DISCORDANCE_LABEL,
        CaseInterval,
        DegradationShares,
        Discordance,
        RunNoise,
        beyond_run_noise,
        degradation_shares,
        mean_interval,
        paired_discordance,
    )
    from ._estimand import Contrast, EstimandStatement, ProtocolFacts, estimand_statement
    from ._lift import (
        ESTIMAND_CASE_POPULATION,
        SMALL_N,
        NaiveInterval,
        PairedLift,
        RunCounts,
        naive_pooled_interval,
        paired_lift,
        t_interval,
    )
    from ._power import (
        POWER,
        DesignPoint,
        Plan,
        VarianceComponents,
        cases_needed,
        components_from_aa,
        minimum_detectable_effect,
        plan,
        pooled_components,
        power_to_detect,
        variance_components,
    )
    from ._sequential import SequentialDecision, SequentialSettings, sequential_decision
    from ._trigger import TriggerStrata, trigger_strata
    from ._verdict import (
        NEAR_BAND,
        Settle,
        Verdict,
        settle_advice,
        settle_cases,
        settle_plan,
        verdict,
    )

_LAZY = {
    **dict.fromkeys(("RepoLift", "skill_level_bootstrap"), "._bootstrap"),
    **dict.fromkeys(
        ("CHANGE_ASSUMPTION", "CaseLift", "ChangeLabel", "LiftChange", "case_lifts", "lift_change"), "._change"
    ),
    **dict.fromkeys(
        (
            "BudgetCap",
            "CappedScores",
            "ConditionCost",
            "LiftPerDollar",
            "RolloutCost",
            "cap_scores",
            "cost_summary",
            "lift_per_dollar",
            "per_rollout_cap",
        ),
        "._cost",
    ),
    **dict.fromkeys(
        ("COUPLINGS", "Coupling", "PairedScores", "case_differences", "case_means", "paired_scores"), "._data"
    ),
    **dict.fromkeys(
        (
            "DISCORDANCE_LABEL",
            "CaseInterval",
            "DegradationShares",
            "Discordance",
            "RunNoise",
            "beyond_run_noise",
            "degradation_shares",
            "mean_interval",
            "paired_discordance",
        ),
        "._discordance",
    ),
    **dict.fromkeys(("Contrast", "EstimandStatement", "ProtocolFacts", "estimand_statement"), "._estimand"),
    **dict.fromkeys(
        (
            "ESTIMAND_CASE_POPULATION",
            "SMALL_N",
            "NaiveInterval",
            "PairedLift",
            "RunCounts",
            "naive_pooled_interval",
            "paired_lift",
            "t_interval",
        ),
        "._lift",
    ),
    **dict.fromkeys(
        (
            "POWER",
            "DesignPoint",
            "Plan",
            "VarianceComponents",
            "cases_needed",
            "components_from_aa",
            "minimum_detectable_effect",
            "plan",
            "pooled_components",
            "power_to_detect",
            "variance_components",
        ),
        "._power",
    ),
    **dict.fromkeys(("SequentialDecision", "SequentialSettings", "sequential_decision"), "._sequential"),
    **dict.fromkeys(("TriggerStrata", "trigger_strata"), "._trigger"),
    **dict.fromkeys(
        ("NEAR_BAND", "Settle", "Verdict", "settle_advice", "settle_cases", "settle_plan", "verdict"), "._verdict"
    ),
}
"""Names whose modules import numpy or scipy, and where each lives."""


def __getattr__(name: str) -> Any:
    """Import a statistic's module (and numpy) only when someone asks for it."""
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CHANGE_ASSUMPTION",
    "COUPLINGS",
    "DISCORDANCE_LABEL",
    "ESTIMAND_CASE_POPULATION",
    "NEAR_BAND",
    "POWER",
    "SMALL_N",
    "Bands",
    "BudgetCap",
    "CappedScores",
    "CaseInterval",
    "CaseLift",
    "ChangeLabel",
    "ConditionCost",
    "Contrast",
    "Coupling",
    "DegradationShares",
    "DesignPoint",
    "Discordance",
    "EstimandStatement",
    "GateStatus",
    "LiftChange",
    "LiftPerDollar",
    "NaiveInterval",
    "PairedLift",
    "PairedScores",
    "Plan",
    "ProtocolFacts",
    "RepoLift",
    "RolloutCost",
    "RunCounts",
    "RunNoise",
    "SequentialDecision",
    "SequentialSettings",
    "Settle",
    "TriggerStrata",
    "VarianceComponents",
    "Verdict",
    "VerdictLabel",
    "beyond_run_noise",
    "cap_scores",
    "case_differences",
    "case_lifts",
    "case_means",
    "cases_needed",
    "components_from_aa",
    "cost_summary",
    "degradation_shares",
    "estimand_statement",
    "lift_change",
    "lift_per_dollar",
    "mean_interval",
    "minimum_detectable_effect",
    "naive_pooled_interval",
    "paired_discordance",
    "paired_lift",
    "paired_scores",
    "per_rollout_cap",
    "plan",
    "pooled_components",
    "power_to_detect",
    "sequential_decision",
    "settle_advice",
    "settle_cases",
    "settle_plan",
    "skill_level_bootstrap",
    "t_interval",
    "trigger_strata",
    "variance_components",
    "verdict",
    "verdict_label",
]
