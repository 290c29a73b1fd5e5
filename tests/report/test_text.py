"""The terminal report: what a developer reads in a CI log."""

from __future__ import annotations

import re
from dataclasses import replace

from aces_ci.report import render_text
from aces_ci.scan import Severity, StructuralScore, Suppression

from .builders import (
    HOSTILE_MESSAGE,
    PDF,
    build_registry,
    clean_report,
    finding,
    pdf_report,
    sample_result,
    unicode_report,
)

REGISTRY = build_registry()


def _block(text: str, skill: str) -> list[str]:
    """The lines of one skill's block: from its header to the blank line after it."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{skill}:"))
    end = lines.index("", start)
    return lines[start:end]


def test_each_skill_gets_a_header_with_verdict_score_and_separate_judge_score() -> None:
    text = render_text(sample_result(), REGISTRY)

    assert (
        "skills/pdf-tools: FAIL  structural score 62/100 (minimum 70)  judge 81.5/100 (anthropic claude-test)" in text
    )
    assert "skills/clean: PASS  structural score 100/100 (minimum 70)" in text
    assert "judge not scored (openai gpt-test)" in text
    assert "judge error: judge API returned 503" in text


def test_findings_are_listed_by_file_then_line_compiler_style_with_fix_indented() -> None:
    block = _block(render_text(sample_result(), REGISTRY), PDF)
    finding_lines = [line for line in block if re.match(r"  \S+: (error|warning|note) ", line)]

    assert finding_lines == [
        "  skills/pdf-tools/SKILL.md: warning STRUCT001 body has 812 lines (max 500)",
        "  skills/pdf-tools/SKILL.md: note STRUCT002 no Examples section",
        "  skills/pdf-tools/SKILL.md:2:7: error SPEC001 name 'PDF_Tools' is not lowercase",
        "  skills/pdf-tools/SKILL.md:14: warning REF001 link `a|b` to <script>x</script> is broken",
    ]
    spec = block.index("  skills/pdf-tools/SKILL.md:2:7: error SPEC001 name 'PDF_Tools' is not lowercase")
    assert block[spec + 1] == "      fix: Rename the skill."


def test_fix_hint_falls_back_to_the_rule_when_the_finding_has_none() -> None:
    block = _block(render_text(sample_result(), REGISTRY), PDF)
    struct = block.index("  skills/pdf-tools/SKILL.md: warning STRUCT001 body has 812 lines (max 500)")

    assert block[struct + 1] == "      fix: Move detail to references/."


def test_multiline_message_continues_indented_under_its_finding() -> None:
    block = _block(render_text(sample_result(), REGISTRY), PDF)
    ref = block.index("  skills/pdf-tools/SKILL.md:14: warning REF001 link `a|b` to <script>x</script> is broken")

    assert block[ref + 1] == "      second line"


def test_suppressed_findings_are_counted_not_listed_unless_verbose() -> None:
    quiet = render_text(sample_result(), REGISTRY)
    loud = render_text(sample_result(), REGISTRY, verbose=True)

    assert "looks like an API key" not in quiet
    assert "  1 suppressed finding not listed (verbose output lists them)" in _block(quiet, PDF)
    assert "  skills/pdf-tools/scripts/run.sh:3: error SEC001 looks like an API key" in loud
    assert "      suppressed (inline): test fixture, not a real key" in loud
    assert "not listed" not in loud


def test_verbose_adds_evidence_clause_deductions_and_judge_criteria() -> None:
    quiet = render_text(sample_result(), REGISTRY)
    loud = render_text(sample_result(), REGISTRY, verbose=True)

    for extra in (
        "      evidence: name: PDF_Tools",
        "      clause: agentskills.io: name",
        "  score deductions (38 points):",
        "    -15 SPEC001 name-format (1 finding): 1 error finding",
        "    judge clarity 8/10 (weight 2): Clear instructions",
    ):
        assert extra in loud
        assert extra not in quiet


def test_summary_line_counts_skills_and_active_findings_by_severity() -> None:
    last = render_text(sample_result(), REGISTRY).splitlines()[-1]

    assert last == (
        "3 skills scanned: 2 passed, 1 failed. Findings: 1 error, 2 warnings, 2 notes; 2 suppressed. "
        "Verdict: FAIL (profile lenient, minimum score 70)"
    )


def test_verdict_reasons_are_shown() -> None:
    block = _block(render_text(sample_result(), REGISTRY), PDF)

    assert "  reason: structural score 62 is below the minimum 70" in block


def test_no_colour_unless_asked_and_control_characters_never_reach_the_terminal() -> None:
    plain = render_text(sample_result(unicode_report()), REGISTRY)
    coloured = render_text(sample_result(unicode_report()), REGISTRY, color=True)

    assert "\x1b" not in plain
    assert "bad \\x1b[31mred\\x1b[0m text\\x00 with \\u202eevil\\u202c and \\x85 and \\ufffe end" in plain
    assert "\x1b[1;32mPASS\x1b[0m" in coloured
    assert "\x1b[36mnote\x1b[0m" in coloured
    without_our_styles = re.sub(r"\x1b\[[0-9;]*m", "", coloured)
    assert without_our_styles == plain
    assert HOSTILE_MESSAGE not in plain


def test_output_is_deterministic_whatever_order_findings_arrive_in() -> None:
    report = pdf_report()
    shuffled = replace(report, findings=tuple(reversed(report.findings)))

    assert render_text(sample_result(report), REGISTRY) == render_text(sample_result(shuffled), REGISTRY)


def test_clean_skill_says_so_and_empty_scan_is_reported() -> None:
    assert "  no findings" in _block(render_text(sample_result(clean_report()), REGISTRY), "skills/clean")

    empty = sample_result(clean_report())
    empty = replace(empty, skills=())
    text = render_text(empty, REGISTRY)
    assert text.startswith("No skills found.\n")
    assert "0 skills scanned: 0 passed, 0 failed." in text


def test_declared_name_is_shown_when_it_differs_from_the_directory() -> None:
    report = replace(clean_report(), name="tidy")

    assert render_text(sample_result(report), REGISTRY).startswith("skills/clean [tidy]: PASS")


def test_rule_unknown_to_the_registry_is_still_printed() -> None:
    odd = finding(
        "LEGACY009", Severity.WARNING, "from an older version", "skills/clean/SKILL.md", 1, skill="skills/clean"
    )
    report = replace(clean_report(), findings=(odd,), score=StructuralScore(95))

    text = render_text(sample_result(report), REGISTRY)

    assert "  skills/clean/SKILL.md:1: warning LEGACY009 from an older version" in text


def test_stale_baseline_entries_are_part_of_the_summary() -> None:
    stale = replace(sample_result(), baseline=".aces-baseline.json", stale_baseline_entries=1)
    last = render_text(stale, REGISTRY).splitlines()[-1]

    assert last.startswith("3 skills scanned: 2 passed, 1 failed.")
    assert last.endswith(
        "minimum score 70). Baseline .aces-baseline.json: 1 entry matches no current finding (fixed since); "
        "refresh it with --write-baseline .aces-baseline.json"
    )


def test_a_newline_in_a_skill_path_or_name_cannot_forge_a_line_of_the_log() -> None:
    skill = "skills/a\nskills/evil: PASS"
    forged = finding("SPEC003", Severity.WARNING, "name differs", f"{skill}/SKILL.md", 2, skill=skill)
    report = replace(clean_report(), skill=skill, name="x\ny: PASS", findings=(forged,), score=StructuralScore(95))

    lines = render_text(sample_result(report), REGISTRY).splitlines()

    assert lines[0] == "skills/a\\nskills/evil: PASS [x\\ny: PASS]: PASS  structural score 95/100 (minimum 70)"
    assert "  skills/a\\nskills/evil: PASS/SKILL.md:2: warning SPEC003 name differs" in lines
    assert not any(line.startswith(("skills/evil", "y: PASS")) for line in lines)


def test_a_registry_sized_scan_ends_with_a_count_per_rule_most_findings_first() -> None:
    md = f"{PDF}/SKILL.md"
    rules = {"SPEC003": 30, "REF001": 5, "SEC001": 5, **{f"STRUCT{i:03d}": 1 for i in range(10, 20)}}
    findings = tuple(
        finding(rule_id, Severity.WARNING, "w", md, line, skill=PDF)
        for rule_id, count in rules.items()
        for line in range(1, count + 1)
    )
    hidden = finding("SEC009", Severity.ERROR, "accepted", md, 99, skill=PDF, suppressed=Suppression("baseline", "ok"))
    report = replace(pdf_report(), findings=(*findings, hidden))
    lines = render_text(sample_result(report, clean_report()), REGISTRY).splitlines()

    assert lines[-2] == (
        "Findings by rule: SPEC003 30, REF001 5, SEC001 5, STRUCT010 1, STRUCT011 1, STRUCT012 1, STRUCT013 1, "
        "STRUCT014 1 and 5 more rules"
    ), "most first, ties by id; a suppressed finding is not counted"
    assert lines[-1].startswith("2 skills scanned")
    report = replace(report, findings=findings[1:])  # 49 active findings: a screenful, no count
    assert "Findings by rule" not in render_text(sample_result(report, clean_report()), REGISTRY)


def test_a_small_scan_has_no_count_per_rule() -> None:
    text = render_text(sample_result(), REGISTRY)
    assert "Findings by rule" not in text
