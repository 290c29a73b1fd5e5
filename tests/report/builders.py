"""Hand-built scan results for the report tests: several skills, suppressed findings, findings
without a line, unicode and control characters in messages."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from aces_ci.scan import (
    Deduction,
    Finding,
    Hit,
    JudgeCriterion,
    JudgeResult,
    Location,
    Rule,
    RuleRegistry,
    ScanContext,
    ScanResult,
    Severity,
    SkillReport,
    StructuralScore,
    Suppression,
    define,
)


def _no_hits(doc: str) -> Callable[[ScanContext], Iterable[Hit]]:
    """A check that finds nothing: the report tests need rule descriptions, not rule behaviour."""

    def check(ctx: ScanContext) -> Iterable[Hit]:
        return ()

    check.__doc__ = doc
    return check


def build_registry() -> RuleRegistry:
    rules: list[Rule] = []
    specs = [
        ("SPEC001", "name-format", Severity.ERROR, "The name is not lowercase kebab-case.", "Rename the skill."),
        ("SPEC002", "description-missing", Severity.ERROR, "No description.", "Add a description."),
        ("STRUCT001", "body-too-long", Severity.WARNING, "SKILL.md body is too long.", "Move detail to references/."),
        ("STRUCT002", "no-examples", Severity.NOTE, "No examples section.", "Add an Examples section."),
        ("REF001", "broken-link", Severity.WARNING, "A link points at a missing file.", "Fix the link target."),
        ("SEC001", "hardcoded-secret", Severity.ERROR, "A secret is written in the skill.", "Remove the secret."),
    ]
    for rule_id, name, severity, summary, fix in specs:
        check = _no_hits(f"{summary}\n\nWhy {name} matters, what passes and what fails.")
        define(rules, id=rule_id, name=name, severity=severity, summary=summary, fix=fix)(check)
    return RuleRegistry(rules)


def finding(
    rule_id: str,
    severity: Severity,
    message: str,
    path: str,
    line: int | None = None,
    *,
    skill: str,
    column: int | None = None,
    evidence: str | None = None,
    clause: str | None = None,
    fix: str | None = None,
    suppressed: Suppression | None = None,
) -> Finding:
    return Finding(
        rule_id=rule_id,
        severity=severity,
        message=message,
        location=Location(path, line, column),
        skill=skill,
        evidence=evidence,
        clause=clause,
        fix=fix,
        suppressed=suppressed,
    )


PDF = "skills/pdf-tools"
CLEAN = "skills/clean"
UNI = "skills/ünïcode"
HOSTILE_MESSAGE = "bad \x1b[31mred\x1b[0m text\x00 with \u202eevil\u202c and \x85 and \ufffe end"


def pdf_report() -> SkillReport:
    md = f"{PDF}/SKILL.md"
    findings = (
        finding(
            "REF001",
            Severity.WARNING,
            "link `a|b` to <script>x</script> is broken\nsecond line",
            md,
            14,
            skill=PDF,
            fix="Fix the link target.",
        ),
        finding(
            "SPEC001",
            Severity.ERROR,
            "name 'PDF_Tools' is not lowercase",
            md,
            2,
            skill=PDF,
            column=7,
            evidence="name: PDF_Tools",
            clause="agentskills.io: name",
            fix="Rename the skill.",
        ),
        finding("STRUCT001", Severity.WARNING, "body has 812 lines (max 500)", md, skill=PDF),
        finding("STRUCT002", Severity.NOTE, "no Examples section", md, skill=PDF),
        finding(
            "SEC001",
            Severity.ERROR,
            "looks like an API key",
            f"{PDF}/scripts/run.sh",
            3,
            skill=PDF,
            evidence="KEY=sk-…redacted",
            suppressed=Suppression("inline", "test fixture, not a real key"),
        ),
    )
    score = StructuralScore(
        62,
        (
            Deduction("SPEC001", "name-format", 1, 15, "1 error finding"),
            Deduction("STRUCT001", "body-too-long", 1, 5, "1 warning finding"),
            Deduction("REF001", "broken-link", 1, 5, "1 warning finding"),
            Deduction("STRUCT002", "no-examples", 1, 13, "capped"),
        ),
    )
    judge = JudgeResult(
        "anthropic",
        "claude-test",
        81.5,
        (JudgeCriterion("clarity", "Clear instructions", 8.0, 2, "Mostly clear."),),
    )
    return SkillReport(
        skill=PDF,
        name="pdf-tools",
        skill_md=md,
        findings=findings,
        score=score,
        verdict="fail",
        reasons=("1 error finding (SPEC001)", "structural score 62 is below the minimum 70"),
        judge=judge,
    )


def clean_report() -> SkillReport:
    return SkillReport(CLEAN, "clean", f"{CLEAN}/SKILL.md", (), StructuralScore(100), "pass")


def unicode_report() -> SkillReport:
    md = f"{UNI}/SKILL.md"
    findings = (
        finding("STRUCT002", Severity.NOTE, HOSTILE_MESSAGE, md, 9, skill=UNI),
        finding(
            "REF001",
            Severity.WARNING,
            "lien cassé vers « référence.md »",
            md,
            4,
            skill=UNI,
            suppressed=Suppression("baseline", "accepted in baseline"),
        ),
    )
    judge = JudgeResult("openai", "gpt-test", None, error="judge API returned 503")
    return SkillReport(
        UNI,
        "ünïcode",
        md,
        findings,
        StructuralScore(99, (Deduction("STRUCT002", "no-examples", 1, 1, "1 note"),)),
        "pass",
        judge=judge,
    )


def sample_result(*reports: SkillReport, verdict: str | None = None) -> ScanResult:
    skills = reports or (pdf_report(), clean_report(), unicode_report())
    failed = any(report.verdict == "fail" for report in skills)
    return ScanResult(
        tool_version="0.1.0",
        root="/repo",
        profile="lenient",
        min_score=70,
        skills=tuple(skills),
        verdict=verdict or ("fail" if failed else "pass"),  # type: ignore[arg-type]
        rules=("SPEC001", "SPEC002", "STRUCT001", "STRUCT002", "REF001", "SEC001"),
        generated_at="2026-01-31T09:30:00+00:00",
    )
