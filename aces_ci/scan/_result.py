"""The result model of the static tier: every report (text, JSON, JUnit, SARIF, Markdown) renders from it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from ._config import Profile
from ._finding import Finding
from ._shard import Shard

Verdict = Literal["pass", "fail"]


@dataclass(frozen=True)
class Deduction:
    """Points one rule took off a skill's structural score, and why."""

    rule_id: str
    rule_name: str
    count: int
    """Active findings of the rule in this skill."""
    points: int
    """Points deducted (after the per-rule cap)."""
    explanation: str


@dataclass(frozen=True)
class StructuralScore:
    value: int
    """0–100; starts at 100 and loses the points of every deduction."""
    deductions: tuple[Deduction, ...] = ()


@dataclass(frozen=True)
class JudgeCriterion:
    id: str
    title: str
    score: float
    """0–10 as the judge gave it."""
    weight: int
    rationale: str = ""


@dataclass(frozen=True)
class JudgeResult:
    """The optional LLM-judge rubric: reported beside, never merged into, the structural score."""

    provider: str
    model: str
    score: float | None
    """0–100 weighted score, or None when the judge could not score (see ``error``)."""
    criteria: tuple[JudgeCriterion, ...] = ()
    error: str | None = None
    rubric_version: str = "1"


@dataclass(frozen=True)
class SkillReport:
    skill: str
    """Skill directory relative to the repository root."""
    name: str
    skill_md: str
    findings: Sequence[Finding]
    """In report order (file, line, column, rule, message). A scan's reports hold a
    :class:`~aces_ci.scan._finding_rows.ReportFindings`: replayed findings are built from their cache
    rows when first read, and it equals the tuple of them."""
    score: StructuralScore
    verdict: Verdict
    reasons: tuple[str, ...] = ()
    """Why the verdict is what it is, one line each (empty when it passes cleanly)."""
    judge: JudgeResult | None = None

    @property
    def active_findings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.active)


@dataclass(frozen=True)
class ScanResult:
    tool_version: str
    root: str
    profile: Profile
    min_score: int
    skills: tuple[SkillReport, ...]
    verdict: Verdict
    rules: tuple[str, ...] = field(default_factory=tuple)
    """Ids of every rule that ran, so SARIF can describe them."""
    generated_at: str = ""
    """ISO 8601 UTC timestamp."""
    baseline: str | None = None
    """The baseline file applied (as configured), None when the scan used none."""
    stale_baseline_entries: int = 0
    """Baseline entries that matched no finding: problems fixed since it was written (refresh it)."""
    shard: Shard | None = None
    """The part of the repository this result covers (``--shard i/n``); None for all of it."""
