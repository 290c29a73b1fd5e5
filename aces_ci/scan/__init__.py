"""The static tier: rules over each skill, suppressions, the structural score and verdict, the optional judge."""

from ._baseline import Baseline, accepted_by_new_baseline, load_baseline, write_baseline
from ._config import DEFAULT_MIN_SCORE, IgnoreEntry, Profile, ScanConfig
from ._context import ScanContext
from ._finding import Finding, Hit, Location, Severity, Suppression, SuppressionKind
from ._judge import judge_unavailable, run_judge
from ._listing import HOST_PROFILES, HostListing, HostProfile, ListedSkill, build_listing
from ._registry import Rule, RuleRegistry, UnknownRuleError, define
from ._repo_rules import listed_from_text, listed_skill
from ._result import Deduction, JudgeCriterion, JudgeResult, ScanResult, SkillReport, StructuralScore, Verdict
from ._result_cache import DEFAULT_CACHE_DIR, CacheStats, ResultCache, user_cache_dir
from ._runner import check_rule_ids, scan_repo
from ._shard import Shard
from ._verdict import ScanCheck, overall_verdict, skill_checks, skill_verdict
from .rules import default_registry
from .rules.sec import CommandRisk, command_risks, has_injection_phrase, names_credential_file

__all__ = [
    "DEFAULT_CACHE_DIR",
    "DEFAULT_MIN_SCORE",
    "HOST_PROFILES",
    "Baseline",
    "CacheStats",
    "CommandRisk",
    "Deduction",
    "Finding",
    "Hit",
    "HostListing",
    "HostProfile",
    "IgnoreEntry",
    "JudgeCriterion",
    "JudgeResult",
    "ListedSkill",
    "Location",
    "Profile",
    "ResultCache",
    "Rule",
    "RuleRegistry",
    "ScanCheck",
    "ScanConfig",
    "ScanContext",
    "ScanResult",
    "Severity",
    "Shard",
    "SkillReport",
    "StructuralScore",
    "Suppression",
    "SuppressionKind",
    "UnknownRuleError",
    "Verdict",
    "accepted_by_new_baseline",
    "build_listing",
    "check_rule_ids",
    "command_risks",
    "default_registry",
    "define",
    "has_injection_phrase",
    "judge_unavailable",
    "listed_from_text",
    "listed_skill",
    "load_baseline",
    "names_credential_file",
    "overall_verdict",
    "run_judge",
    "scan_repo",
    "skill_checks",
    "skill_verdict",
    "user_cache_dir",
    "write_baseline",
]
