"""The static tier: rules over each skill, suppressions, the structural score, the optional judge."""

from ._config import IgnoreEntry, Profile, ScanConfig
from ._context import ScanContext
from ._finding import Finding, Hit, Location, Severity, Suppression
from ._registry import Rule, RuleRegistry, UnknownRuleError, define
from ._result import Deduction, JudgeCriterion, JudgeResult, ScanResult, SkillReport, StructuralScore, Verdict

__all__ = [
    "Deduction",
    "Finding",
    "Hit",
    "IgnoreEntry",
    "JudgeCriterion",
    "JudgeResult",
    "Location",
    "Profile",
    "Rule",
    "RuleRegistry",
    "ScanConfig",
    "ScanContext",
    "ScanResult",
    "Severity",
    "SkillReport",
    "StructuralScore",
    "Suppression",
    "UnknownRuleError",
    "Verdict",
    "define",
]
