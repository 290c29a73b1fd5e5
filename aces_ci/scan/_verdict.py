"""The static tier's verdict: from a skill's findings and structural score to pass or fail, with reasons.

It lives with the scan result rather than in the cross-tier gate (:mod:`aces_ci.gate`) because
every scan result carries it: a report re-rendered from saved JSON shows the verdict the run
reached, and the gate above only combines tiers and maps verdicts to exit codes.

A skill fails when it has any active ``error`` finding, or when its structural score is below
``min_score`` (ACES's quality check passes at 70). Suppressed findings never count. The repository
fails when any skill fails. The two checks are decided once, in :func:`skill_checks`: the skill's
verdict and reasons are read off them here, and the gate turns each into its JUnit testcase.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from ._finding import Finding, Location
from ._finding_rows import active_errors
from ._result import SkillReport, StructuralScore, Verdict

_LISTED_ERRORS = 5
"""How many error findings a reason line names before it says "and N more"."""


@dataclass(frozen=True)
class ScanCheck:
    """One check of a skill's scan verdict, decided: what the gate reports as one criterion."""

    name: Literal["scan.errors", "scan.score"]
    passed: bool
    message: str
    """The reason when it fails; what held when it passes."""
    figures: tuple[tuple[str, str], ...]
    location: Location | None
    """Where to look (the first error finding); None: the skill's SKILL.md."""
    failure_type: str


def skill_checks(findings: Iterable[Finding], score: StructuralScore, min_score: int) -> tuple[ScanCheck, ScanCheck]:
    """The two checks of a skill's verdict: no active error finding, and a score at least ``min_score``.

    ``findings`` in report order (a :class:`~aces_ci.scan._finding_rows.ReportFindings` is): the first
    errors are named.
    """
    errors = active_errors(findings)
    named = ", ".join(f"{f.rule_id} at {f.location}" for f in errors[:_LISTED_ERRORS])
    more = f" and {len(errors) - _LISTED_ERRORS} more" if len(errors) > _LISTED_ERRORS else ""
    count = "1 error finding" if len(errors) == 1 else f"{len(errors)} error findings"
    below = score.value < min_score
    return (
        ScanCheck(
            "scan.errors",
            not errors,
            f"{count}: {named}{more}" if errors else "no error findings",
            (("errors", str(len(errors))),),
            errors[0].location if errors else None,
            "ScanErrors",
        ),
        ScanCheck(
            "scan.score",
            not below,
            f"structural score {score.value} is {'below' if below else 'at least'} the minimum {min_score}",
            (("score", str(score.value)), ("min_score", str(min_score))),
            None,
            "ScoreBelowMinimum",
        ),
    )


def skill_verdict(
    findings: Iterable[Finding], score: StructuralScore, min_score: int
) -> tuple[Verdict, tuple[str, ...]]:
    """The verdict of one skill and the reasons for a failure (none when it passes): its failed checks."""
    reasons = tuple(check.message for check in skill_checks(findings, score, min_score) if not check.passed)
    return ("fail" if reasons else "pass"), reasons


def overall_verdict(skills: Iterable[SkillReport]) -> Verdict:
    """``fail`` when any skill fails."""
    return "fail" if any(skill.verdict == "fail" for skill in skills) else "pass"
