"""The gate: per-skill verdicts with reasons, the overall verdict and the exit code."""

from __future__ import annotations

from aces_ci.errors import EXIT_GATE_FAILED, EXIT_PASS
from aces_ci.gate import exit_code
from aces_ci.scan import (
    DEFAULT_MIN_SCORE,
    Finding,
    Location,
    ScanConfig,
    ScanResult,
    Severity,
    SkillReport,
    StructuralScore,
    overall_verdict,
    skill_verdict,
)


def finding(severity: Severity, line: int = 1, rule: str = "SPEC001") -> Finding:
    return Finding(rule, severity, "m", Location("skills/a/SKILL.md", line), "skills/a")


def report(verdict: str) -> SkillReport:
    return SkillReport("skills/a", "a", "skills/a/SKILL.md", (), StructuralScore(100), verdict)  # type: ignore[arg-type]


def test_default_minimum_is_the_aces_quality_pass_mark() -> None:
    assert DEFAULT_MIN_SCORE == ScanConfig().min_score == 70


def test_warnings_and_notes_alone_pass() -> None:
    assert skill_verdict([finding(Severity.WARNING), finding(Severity.NOTE)], StructuralScore(94), 70) == ("pass", ())


def test_an_active_error_fails_and_is_named() -> None:
    verdict, reasons = skill_verdict([finding(Severity.ERROR, 3)], StructuralScore(85), 70)
    assert verdict == "fail"
    assert reasons == ("1 error finding: SPEC001 at skills/a/SKILL.md:3",)


def test_a_suppressed_error_does_not_fail() -> None:
    suppressed = finding(Severity.ERROR).suppress("baseline", "accepted")
    assert skill_verdict([suppressed], StructuralScore(100), 70) == ("pass", ())


def test_many_errors_are_summarised() -> None:
    errors = [finding(Severity.ERROR, line) for line in range(1, 9)]
    _, (reason,) = skill_verdict(errors, StructuralScore(70), 70)
    assert reason.startswith("8 error findings: SPEC001 at skills/a/SKILL.md:1, ")
    assert reason.endswith("SPEC001 at skills/a/SKILL.md:5 and 3 more")


def test_score_below_minimum_fails_and_equal_passes() -> None:
    assert skill_verdict([], StructuralScore(69), 70) == ("fail", ("structural score 69 is below the minimum 70",))
    assert skill_verdict([], StructuralScore(70), 70) == ("pass", ())


def test_both_reasons_are_given() -> None:
    verdict, reasons = skill_verdict([finding(Severity.ERROR)], StructuralScore(10), 70)
    assert verdict == "fail" and len(reasons) == 2


def test_overall_verdict_and_exit_code() -> None:
    assert overall_verdict([report("pass"), report("pass")]) == "pass"
    assert overall_verdict([report("pass"), report("fail")]) == "fail"
    base = ScanResult("0.1.0", "/r", "lenient", 70, (report("pass"),), "pass")
    assert exit_code(base) == EXIT_PASS
    failed = ScanResult("0.1.0", "/r", "lenient", 70, (report("fail"),), "fail")
    assert exit_code(failed) == EXIT_GATE_FAILED
