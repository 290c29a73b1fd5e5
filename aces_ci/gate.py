"""The gate's policy: from the scan result model to a verdict and an exit code.

Pure functions of the result model, no I/O: the same result always gives the same verdict, so a
report re-rendered from saved JSON agrees with the run that produced it.

A skill fails when it has any active ``error`` finding, or when its structural score is below
``min_score`` (ACES's quality check passes at 70). Suppressed findings never count. The repository
fails when any skill fails.
"""

from __future__ import annotations

from collections.abc import Iterable

from .errors import EXIT_GATE_FAILED, EXIT_PASS
from .scan import Finding, ScanResult, Severity, SkillReport, StructuralScore, Verdict

DEFAULT_MIN_SCORE = 70
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


def exit_code(result: ScanResult) -> int:
    """0 when the gate passes, 1 when it fails (DESIGN.md's contract)."""
    return EXIT_PASS if result.verdict == "pass" else EXIT_GATE_FAILED
