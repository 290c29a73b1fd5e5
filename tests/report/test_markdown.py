"""The PR comment / job summary: escaped, collapsible, and always under the size limit."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aces_ci.report import MARKER, render_markdown
from aces_ci.scan import Finding, Severity, SkillReport, StructuralScore

from .builders import PDF, build_registry, clean_report, finding, pdf_report, sample_result, unicode_report

REGISTRY = build_registry()
ALLOWED_TAGS = {"<!-- aces-ci:scan -->", "<details>", "</details>", "<summary>", "</summary>", "<b>", "</b>", "<br>"}


def _cells(row: str) -> list[str]:
    """Split a table row on unescaped pipes, the way GitHub does."""
    cells, current, chars = [], "", iter(row.strip()[1:-1])
    for char in chars:
        if char == "\\":
            current += char + next(chars, "")
        elif char == "|":
            cells.append(current.strip())
            current = ""
        else:
            current += char
    return [*cells, current.strip()]


def _tables(markdown: str) -> list[list[list[str]]]:
    tables: list[list[list[str]]] = []
    rows: list[list[str]] = []
    for line in [*markdown.split("\n"), ""]:
        if line.startswith("|"):
            rows.append(_cells(line))
        elif rows:
            tables.append(rows)
            rows = []
    return tables


def _assert_well_formed(markdown: str) -> None:
    tags = re.findall(r"<[^<>]*>", markdown)
    assert set(tags) <= ALLOWED_TAGS, set(tags) - ALLOWED_TAGS
    assert markdown.count("<") == len(tags), "a '<' that does not open a whole tag"
    assert markdown.count("<details>") == markdown.count("</details>")
    for table in _tables(markdown):
        assert {len(row) for row in table} == {len(table[0])}, table


def _many_findings(count: int, message: str = "something is off here") -> SkillReport:
    md = f"{PDF}/SKILL.md"
    findings = tuple(
        finding("REF001", Severity.WARNING, f"{message} #{i}", md, i + 1, skill=PDF, fix="Fix the link target.")
        for i in range(count)
    )
    return replace(pdf_report(), findings=findings, score=StructuralScore(0))


def test_starts_with_the_sticky_marker_and_a_verdict_headline() -> None:
    lines = render_markdown(sample_result(), REGISTRY).split("\n")

    assert lines[0] == MARKER == "<!-- aces-ci:scan -->"
    assert lines[1] == "### ❌ aces-ci scan failed: 1 of 3 skills failed"
    passing = render_markdown(sample_result(clean_report()), REGISTRY).split("\n")
    assert passing[1] == "### ✅ aces-ci scan passed: 1 skill checked"


def test_skills_table_has_verdict_scores_and_counts_per_skill() -> None:
    skills = _tables(render_markdown(sample_result(), REGISTRY))[0]

    assert skills[0] == ["Skill", "Verdict", "Structural score", "Judge score", "Errors", "Warnings", "Notes"]
    assert skills[2:] == [
        ["skills/pdf-tools", "❌ fail", "62", "81.5", "1", "2", "1"],
        ["skills/clean", "✅ pass", "100", "—", "0", "0", "0"],
        ["skills/ünïcode", "✅ pass", "99", "not scored", "0", "0", "1"],
    ]


def test_only_failing_skills_get_a_collapsible_findings_table_worst_first() -> None:
    markdown = render_markdown(sample_result(), REGISTRY)

    assert markdown.count("<details>") == 1
    assert "<summary><b>skills/pdf-tools</b>: ❌ fail, 4 findings</summary>" in markdown
    findings = _tables(markdown)[1]
    assert findings[0] == ["Location", "Rule", "Message", "Fix"]
    assert [row[0] for row in findings[2:]] == [
        "skills/pdf-tools/SKILL.md:2:7",
        "skills/pdf-tools/SKILL.md",
        "skills/pdf-tools/SKILL.md:14",
        "skills/pdf-tools/SKILL.md",
    ]
    assert findings[2][1] == "[SPEC001](https://github.com/aces-ci/aces-ci/blob/main/docs/rules.md#spec001)"
    assert findings[2][3] == "Rename the skill."
    assert "_1 suppressed finding not listed._" in markdown
    assert "- structural score 62 is below the minimum 70" in markdown


def test_cells_escape_pipes_html_backticks_and_newlines() -> None:
    markdown = render_markdown(sample_result(), REGISTRY)
    ref_row = next(row for row in _tables(markdown)[1] if "REF001" in row[1])

    assert ref_row[2] == "warning: link \\`a\\|b\\` to &lt;script&gt;x&lt;/script&gt; is broken<br>second line"
    assert "<script>" not in markdown
    _assert_well_formed(markdown)


def test_quoted_text_cannot_mention_people_or_hide_control_characters() -> None:
    md = f"{PDF}/SKILL.md"
    report = replace(
        pdf_report(),
        findings=(finding("SPEC001", Severity.ERROR, "ask @octocat \x1b[2J\u202eok", md, 1, skill=PDF),),
    )
    markdown = render_markdown(sample_result(report), REGISTRY)

    assert "@octocat" not in markdown
    assert "@\u200boctocat" in markdown
    assert "\x1b" not in markdown
    assert "\u202e" not in markdown
    assert "\\\\x1b\\[2J\\\\u202eok" in markdown


def test_skill_names_in_html_are_escaped() -> None:
    report = replace(pdf_report(), skill="skills/<b>&evil")
    markdown = render_markdown(sample_result(report), REGISTRY)

    assert "<summary><b>skills/&lt;b&gt;&amp;evil</b>" in markdown
    _assert_well_formed(markdown)


def test_long_reports_are_truncated_with_a_count_of_what_was_left_out() -> None:
    markdown = render_markdown(sample_result(_many_findings(2000)), REGISTRY, max_chars=20_000)

    assert len(markdown) <= 20_000
    _assert_well_formed(markdown)
    shown = len(_tables(markdown)[1]) - 2
    assert 0 < shown < 2000
    assert f"_{2000 - shown} findings not shown to stay within the comment size limit;" in markdown
    assert markdown.rstrip().endswith("list everything._")


def test_default_limit_keeps_a_huge_report_under_githubs_comment_maximum() -> None:
    markdown = render_markdown(sample_result(_many_findings(5000, "x" * 400)), REGISTRY)

    assert len(markdown) <= 60_000  # GitHub refuses comments over 65,536 characters
    _assert_well_formed(markdown)


def test_many_skills_are_cut_from_the_table_with_a_count() -> None:
    skills = tuple(replace(clean_report(), skill=f"skills/s{i:04d}") for i in range(600))
    markdown = render_markdown(sample_result(*skills), REGISTRY, max_chars=5_000)

    assert len(markdown) <= 5_000
    shown = len(_tables(markdown)[0]) - 2
    assert f"_{600 - shown} skills left out of the table" in markdown


def test_one_huge_message_is_clipped_inside_its_cell() -> None:
    report = _many_findings(1, "<" * 50_000)
    markdown = render_markdown(sample_result(report), REGISTRY)

    row = _tables(markdown)[1][2]
    assert row[2].endswith("…")
    assert "not shown" not in markdown
    _assert_well_formed(markdown)


def test_too_small_a_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="max_chars must be at least 1000"):
        render_markdown(sample_result(), REGISTRY, max_chars=500)


_nasty_text = st.text(alphabet=st.sampled_from(list("ab |`<>&*_[]\\\n\t@#\x00\x1b\u202eé🙂")), min_size=0, max_size=300)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    messages=st.lists(_nasty_text, min_size=1, max_size=80),
    max_chars=st.integers(min_value=1000, max_value=12_000),
)
def test_any_findings_under_any_limit_stay_within_it_and_well_formed(messages: list[str], max_chars: int) -> None:
    md = f"{PDF}/SKILL.md"
    findings: tuple[Finding, ...] = tuple(
        finding("REF001", Severity.WARNING, message, md, i + 1, skill=PDF, fix=message)
        for i, message in enumerate(messages)
    )
    report = replace(pdf_report(), findings=findings, reasons=(messages[0],))

    markdown = render_markdown(sample_result(report, unicode_report()), REGISTRY, max_chars=max_chars)

    assert len(markdown) <= max_chars
    _assert_well_formed(markdown)
    rows = len(_tables(markdown)[1]) - 2 if len(_tables(markdown)) > 1 else 0
    if rows < len(messages):
        assert f"{len(messages) - rows} finding" in markdown


def test_stale_baseline_entries_are_mentioned_in_the_overview() -> None:
    stale = replace(sample_result(), baseline="ci/baseline.json", stale_baseline_entries=3)
    markdown = render_markdown(stale, REGISTRY)

    assert "Baseline ci/baseline.json: 3 entries match no current finding (fixed since)" in markdown
    assert "Baseline" not in render_markdown(sample_result(), REGISTRY)
