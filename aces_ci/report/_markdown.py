"""The scan as GitHub Markdown: the sticky PR comment and the job summary.

It opens with a hidden marker (the key by which the sticky comment is found and updated), a
verdict headline and a table of every skill; each failing skill then gets a collapsible block
listing its findings, worst first. Everything quoted from a skill is escaped for where it lands
(:mod:`aces_ci.report._md_escape`) so it renders as the text it is: no table is broken by a ``|``,
no HTML or link sneaks in, no one is @-mentioned.
GitHub refuses comments over 65,536 characters, so the document is assembled piece by piece
under ``max_chars`` and says how much it left out; it is never cut inside a tag or a row.
"""

from __future__ import annotations

from ..scan import Finding, JudgeResult, RuleRegistry, ScanResult, Severity, SkillReport
from ._common import (
    all_findings,
    by_severity_then_location,
    describe_counts,
    find_rule,
    fix_hint,
    plural,
    score_text,
    severity_counts,
    skill_title,
    stale_baseline_note,
    suppressed_count,
)
from ._md_escape import cell as _cell
from ._md_escape import html_text

MARKER = "<!-- aces-ci:scan -->"
MIN_CHARS = 1000
"""Room for the marker, headline, summary line and the note about what was left out."""

_OMISSION_RESERVE = 300
"""Characters kept free for the closing note, whatever was added before it."""

_CELL_LIMITS = {"location": 200, "message": 500, "fix": 300, "skill": 120}
"""Cells are cut (before escaping, so never inside an escape) to keep one row from eating the budget."""


def _judge_cell(judge: JudgeResult | None) -> str:
    if judge is None:
        return "—"
    if judge.score is None:
        return "not scored"
    return score_text(judge.score)


def _verdict_cell(verdict: str) -> str:
    return "✅ pass" if verdict == "pass" else "❌ fail"


def _headline(result: ScanResult) -> str:
    failed = sum(1 for report in result.skills if report.verdict == "fail")
    total = len(result.skills)
    if result.verdict == "pass":
        return f"### ✅ aces-ci scan passed: {plural(total, 'skill')} checked"
    if failed:
        return f"### ❌ aces-ci scan failed: {failed} of {plural(total, 'skill')} failed"
    return f"### ❌ aces-ci scan failed ({plural(total, 'skill')} checked)"


def _overview(result: ScanResult) -> str:
    findings = all_findings(result.skills)
    overview = (
        f"Findings: {describe_counts(severity_counts(findings))}; {suppressed_count(findings)} suppressed. "
        f"Profile {_cell(result.profile, 40)}, minimum structural score {result.min_score}, "
        f"aces-ci {_cell(result.tool_version, 40)}."
    )
    stale = stale_baseline_note(result.stale_baseline_entries, result.baseline)
    return overview if stale is None else f"{overview} {_cell(stale, 600)}."


_SKILL_TABLE_HEAD = (
    "| Skill | Verdict | Structural score | Judge score | Errors | Warnings | Notes |\n"
    "| --- | --- | ---: | ---: | ---: | ---: | ---: |\n"
)
_FINDING_TABLE_HEAD = "| Location | Rule | Message | Fix |\n| --- | --- | --- | --- |\n"
_DETAILS_CLOSE = "\n</details>\n\n"


def _skill_row(report: SkillReport) -> str:
    counts = severity_counts(report.findings)
    return (
        f"| {_cell(skill_title(report.skill, report.name), _CELL_LIMITS['skill'])} | {_verdict_cell(report.verdict)} "
        f"| {report.score.value} "
        f"| {_judge_cell(report.judge)} | {counts[Severity.ERROR]} | {counts[Severity.WARNING]} "
        f"| {counts[Severity.NOTE]} |\n"
    )


def _rule_cell(rule_id: str, registry: RuleRegistry) -> str:
    rule = find_rule(registry, rule_id)
    label = _cell(rule_id, 40)
    return f"[{label}]({rule.help_uri()})" if rule is not None else label


def _finding_row(finding: Finding, registry: RuleRegistry) -> str:
    location = _cell(str(finding.location), _CELL_LIMITS["location"])
    message = _cell(f"{finding.severity.value}: {finding.message}", _CELL_LIMITS["message"])
    fix = _cell(fix_hint(finding, registry) or "", _CELL_LIMITS["fix"])
    return f"| {location} | {_rule_cell(finding.rule_id, registry)} | {message} | {fix} |\n"


def _details_open(report: SkillReport, shown: int) -> str:
    title = html_text(skill_title(report.skill, report.name), _CELL_LIMITS["skill"])
    summary = f"<summary><b>{title}</b>: {_verdict_cell(report.verdict)}, {plural(shown, 'finding')}</summary>"
    reasons = "".join(f"- {_cell(reason, _CELL_LIMITS['message'])}\n" for reason in report.reasons)
    hidden = suppressed_count(report.findings)
    note = f"_{plural(hidden, 'suppressed finding')} not listed._\n\n" if hidden else ""
    if reasons:
        reasons += "\n"
    return f"<details>\n{summary}\n\n{reasons}{note}"


class _Budget:
    """Pieces of the document and the room left for them."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.pieces: list[str] = []
        self.used = 0

    def fits(self, *texts: str) -> bool:
        return self.used + sum(len(text) for text in texts) <= self.limit

    def add(self, text: str) -> None:
        self.pieces.append(text)
        self.used += len(text)


def _add_failing_skill(budget: _Budget, report: SkillReport, registry: RuleRegistry) -> int:
    """Add the skill's collapsible block with as many findings as fit; returns how many did not."""
    findings = by_severity_then_location(report.active_findings)
    opening = _details_open(report, len(findings))
    head = _FINDING_TABLE_HEAD if findings else ""
    if not budget.fits(opening, head, _DETAILS_CLOSE):
        return len(findings)
    budget.add(opening + head)
    added = 0
    for finding in findings:
        row = _finding_row(finding, registry)
        if not budget.fits(row, _DETAILS_CLOSE):
            break
        budget.add(row)
        added += 1
    budget.add(_DETAILS_CLOSE)
    return len(findings) - added


def _omission_note(skills_left: int, findings_left: int) -> str:
    parts = []
    if skills_left:
        parts.append(f"{plural(skills_left, 'skill')} left out of the table")
    if findings_left:
        parts.append(f"{plural(findings_left, 'finding')} not shown")
    return (
        f"_{' and '.join(parts)} to stay within the comment size limit; "
        "the text, JSON and SARIF reports of this scan list everything._\n"
    )


def render_markdown(result: ScanResult, registry: RuleRegistry, *, max_chars: int = 60000) -> str:
    """The scan result as a PR comment / job summary of at most ``max_chars`` characters."""
    if max_chars < MIN_CHARS:
        raise ValueError(f"max_chars must be at least {MIN_CHARS}, got {max_chars}")
    budget = _Budget(max_chars - _OMISSION_RESERVE)
    budget.add(f"{MARKER}\n{_headline(result)}\n\n{_overview(result)}\n\n")
    skills_left = 0
    if result.skills:
        budget.add(_SKILL_TABLE_HEAD)
        for shown, report in enumerate(result.skills):
            row = _skill_row(report)
            if not budget.fits(row, "\n"):
                skills_left = len(result.skills) - shown
                break
            budget.add(row)
        budget.add("\n")
    findings_left = 0
    for report in result.skills:
        if report.verdict == "fail":
            findings_left += _add_failing_skill(budget, report, registry)
    if skills_left or findings_left:
        budget.add(_omission_note(skills_left, findings_left))
    return "".join(budget.pieces)
