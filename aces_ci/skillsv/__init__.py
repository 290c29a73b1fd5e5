"""SkillSV: what is each part of a skill worth? Compile a skill into a structured game, render
counterfactual skills, and estimate structure-aware Shapley values of its units.
"""

from ._compile import COMPILE_SCHEMA_VERSION, compile_skill, compiled_json
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
    Segment,
    Span,
    Unit,
    UnitKind,
)
from ._tokens import TOKENIZER, count_tokens

__all__ = [
    "COMPILE_SCHEMA_VERSION",
    "OPERATORS",
    "RULE_NAMES",
    "TOKENIZER",
    "TRIGGER_ID",
    "CompiledSkill",
    "Contraction",
    "Edge",
    "HierarchyNode",
    "Operator",
    "Repair",
    "Segment",
    "Span",
    "Unit",
    "UnitKind",
    "compile_skill",
    "compiled_json",
    "count_tokens",
]
