"""The static tier: rules over each skill, suppressions, the structural score, the optional judge.

``scan_repo`` lives in :mod:`aces_ci.scan._runner` and is not exported here: the runner imports the
gate (:mod:`aces_ci.gate`), which imports this package's result model.
"""

from ._baseline import Baseline, accepted_by_new_baseline, load_baseline, write_baseline
from ._config import IgnoreEntry, Profile, ScanConfig
from ._context import ScanContext
from ._finding import Finding, Hit, Location, Severity, Suppression
from ._registry import Rule, RuleRegistry, UnknownRuleError, define
from ._result import Deduction, JudgeCriterion, JudgeResult, ScanResult, SkillReport, StructuralScore, Verdict
from ._result_cache import DEFAULT_CACHE_DIR, CacheStats, ResultCache

__all__ = [
    "DEFAULT_CACHE_DIR",
    "Baseline",
    "CacheStats",
    "Deduction",
    "Finding",
    "Hit",
    "IgnoreEntry",
    "JudgeCriterion",
    "JudgeResult",
    "Location",
    "Profile",
    "ResultCache",
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
    "accepted_by_new_baseline",
    "define",
    "load_baseline",
    "write_baseline",
]
