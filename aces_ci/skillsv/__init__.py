"""SkillSV: what is each part of a skill worth? Compile a skill into a structured game, render
counterfactual skills, and estimate structure-aware Shapley values of its units.
"""

from ._adaptive import AdaptiveRun, adaptive_valuation, look_level
from ._budget import Plan, fit_to_budget, planned_scores
from ._compile import COMPILE_SCHEMA_VERSION, compile_skill, compiled_json
from ._decisions import DecisionSummary, decision_line, decision_summary
from ._estimate import (
    SAMPLE_SHARE,
    EstimateRun,
    Estimator,
    EstimatorSettings,
    Meter,
    Pooling,
    ValuationStop,
    published_settings,
)
from ._exact import ExactGame, TooLargeForExact, unanimity_values
from ._hierarchy import repair_hierarchy
from ._interaction import InteractionValues, interaction_values, with_interaction
from ._live import BARE_CONDITION, LivePlan, LiveScorer, live_scorer
from ._live_score import COMPOSITE_METRICS, MEANS, NOT_A_COALITION_SCORE, ScoredOver, score_definition, scored_over
from ._model import (
    OPERATORS,
    RULE_NAMES,
    TRIGGER_ID,
    CompiledSkill,
    Contraction,
    Edge,
    HierarchyNode,
    Operator,
    Repair,
    RuleId,
    Segment,
    Span,
    Unit,
    UnitKind,
)
from ._oracle import (
    CoalitionOracle,
    CoalitionRequest,
    Outcome,
    RenderingOracle,
    ScoreRequest,
    SkillScorer,
    Task,
    store_key,
)
from ._order_odds import OddsIntractable, OrderOdds
from ._orders import ORDER_DISTRIBUTIONS, OrderDistribution, OrderSampler, UniformIntractable
from ._pooled import UnitSamples, unit_samples
from ._pruning import CurveMethod
from ._python_oracle import PythonScorer
from ._render import InfeasibleCoalition, render, tree_tokens
from ._result import (
    CUT_DECISIONS,
    Cost,
    Decision,
    Estimate,
    GroupValue,
    Interval,
    Method,
    UnitValue,
    Valuation,
    ValueEstimator,
)
from ._store import EvaluationStore
from ._structure import GameStructure
from ._summary import DEFAULT_MARGIN, DecisionRules, decide, scores_to_decide, summarize
from ._tasks import load_tasks, split_panels
from ._tokens import TOKENIZER, count_tokens
from ._valuate import HeldOut, ScoreSettings, Sessions, ValueReport, ValueSettings, plan_valuation, valuate
from ._value_json import VALUE_SCHEMA_VERSION, low_value_units, value_json
from ._views import CurveView, SkillValueView, UnitView, compile_summary, skill_value
from ._windows import WindowDesign

__all__ = [
    "BARE_CONDITION",
    "COMPILE_SCHEMA_VERSION",
    "COMPOSITE_METRICS",
    "CUT_DECISIONS",
    "DEFAULT_MARGIN",
    "MEANS",
    "NOT_A_COALITION_SCORE",
    "OPERATORS",
    "ORDER_DISTRIBUTIONS",
    "RULE_NAMES",
    "SAMPLE_SHARE",
    "TOKENIZER",
    "TRIGGER_ID",
    "VALUE_SCHEMA_VERSION",
    "AdaptiveRun",
    "CoalitionOracle",
    "CoalitionRequest",
    "CompiledSkill",
    "Contraction",
    "Cost",
    "CurveMethod",
    "CurveView",
    "Decision",
    "DecisionRules",
    "DecisionSummary",
    "Edge",
    "Estimate",
    "EstimateRun",
    "Estimator",
    "EstimatorSettings",
    "EvaluationStore",
    "ExactGame",
    "GameStructure",
    "GroupValue",
    "HeldOut",
    "HierarchyNode",
    "InfeasibleCoalition",
    "InteractionValues",
    "Interval",
    "LivePlan",
    "LiveScorer",
    "Meter",
    "Method",
    "OddsIntractable",
    "Operator",
    "OrderDistribution",
    "OrderOdds",
    "OrderSampler",
    "Outcome",
    "Plan",
    "Pooling",
    "PythonScorer",
    "RenderingOracle",
    "Repair",
    "RuleId",
    "ScoreRequest",
    "ScoreSettings",
    "ScoredOver",
    "Segment",
    "Sessions",
    "SkillScorer",
    "SkillValueView",
    "Span",
    "Task",
    "TooLargeForExact",
    "UniformIntractable",
    "Unit",
    "UnitKind",
    "UnitSamples",
    "UnitValue",
    "UnitView",
    "Valuation",
    "ValuationStop",
    "ValueEstimator",
    "ValueReport",
    "ValueSettings",
    "WindowDesign",
    "adaptive_valuation",
    "compile_skill",
    "compile_summary",
    "compiled_json",
    "count_tokens",
    "decide",
    "decision_line",
    "decision_summary",
    "fit_to_budget",
    "interaction_values",
    "live_scorer",
    "load_tasks",
    "look_level",
    "low_value_units",
    "plan_valuation",
    "planned_scores",
    "published_settings",
    "render",
    "repair_hierarchy",
    "score_definition",
    "scored_over",
    "scores_to_decide",
    "skill_value",
    "split_panels",
    "store_key",
    "summarize",
    "tree_tokens",
    "unanimity_values",
    "unit_samples",
    "valuate",
    "value_json",
    "with_interaction",
]
