"""The static tier's verdict: from a skill's findings and structural score to pass or fail, with reasons.

It lives with the scan result rather than in the cross-tier gate (:mod:`aces_ci.gate`) because
every scan result carries it: a report re-rendered from saved JSON shows the verdict the run
reached, and the gate above only combines tiers and maps verdicts to exit codes.

A skill fails when it has any active ``error`` finding, or when its structural score is below
``min_score`` (ACES's quality check passes at 70). Suppressed findings never count. The repository
fails when any skill fails.
"""

from __future__ import annotations

from collections.abc import Iterable

from ._finding import Finding, Severity
from ._result import SkillReport, StructuralScore, Verdict

_LISTED_ERRORS = 5
"""How many error findings a reason line names before it says "and N more"."""


def skill_verdict(
    findings: Iterable[Finding], score: StructuralScore, min_score: int
) -> tuple[Verdict, tuple[str, ...]]:
    """The verdict of one skill and the reasons for a failure (none when it passes)."""
    errors = [f for f in findings if f.active and f.severity == Severity.ERROR]
    reasons = []
    if errors:
        named = ", ".join(f"{f.rule_id} at {f.location}" for f in errors[:_LISTED_ERRORS])
        more = f" and {len(errors) - _LISTED_ERRORS} more" if len(errors) > _LISTED_ERRORS else ""
        count = "1 error finding" if len(errors) == 1 else f"{len(errors)} error findings"
        reasons.append(f"{count}: {named}{more}")
    if score.value < min_score:
        reasons.append(f"structural score {score.value} is below the minimum {min_score}")
    return ("fail" if reasons else "pass"), tuple(reasons)


def overall_verdict(skills: Iterable[SkillReport]) -> Verdict:
    """``fail`` when any skill fails."""
    return "fail" if any(skill.verdict == "fail" for skill in skills) else "pass"
