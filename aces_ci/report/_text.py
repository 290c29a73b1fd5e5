"""The human-readable scan report: what a developer reads in a terminal or a CI log.

One block per skill (verdict, scores, reasons, findings in file/line order with the fix under each),
then, from a screenful of findings on, a count per rule (what dominates a registry's), and one
summary line. Findings print compiler-style (``path:line: severity RULE message``) so
editors and problem matchers can jump to them. Colour is opt-in and the output is otherwise
byte-for-byte reproducible for the same result.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from ..safe_text import inline, printable
from ..scan import Finding, JudgeResult, RuleRegistry, ScanResult, SkillReport
from ._common import (
    all_findings,
    by_location,
    describe_counts,
    fix_hint,
    plural,
    score_text,
    severity_counts,
    skill_title,
    stale_baseline_note,
    suppressed_count,
)

Paint = Callable[[str, str], str]
"""``paint(text, style)``: wraps text in an ANSI style, or returns it unchanged when colour is off."""

_STYLES = {
    "error": "31",
    "warning": "33",
    "note": "36",
    "pass": "1;32",
    "fail": "1;31",
    "heading": "1",
    "dim": "2",
}

_INDENT = "  "
_DETAIL = "      "

TALLY_FROM = 50
"""Active findings from which the report ends with a count per rule: from a screenful on, what dominates a
registry's findings is the first thing to read, and it is the last thing the log shows."""
TALLY_RULES = 8
"""Rules named in that count, most findings first; the rest are counted."""


def _painter(color: bool) -> Paint:
    def paint(text: str, style: str) -> str:
        return f"\x1b[{_STYLES[style]}m{text}\x1b[0m" if color else text

    return paint


def _verdict(verdict: str, paint: Paint) -> str:
    return paint(verdict.upper(), verdict)


def _judge_summary(judge: JudgeResult) -> str:
    who = inline(f"{judge.provider} {judge.model}".strip())
    if judge.score is None:
        return f"judge not scored ({who})"
    return f"judge {score_text(judge.score)}/100 ({who})"


def _header(report: SkillReport, min_score: int, paint: Paint) -> str:
    # A lone skill (``scan skills/foo`` or ``scan skills/foo/SKILL.md``) is the scan's root, ".": headed by its name.
    heading = skill_title(report.skill, report.name)
    title = inline(heading)
    if heading == report.skill and report.name and report.name != report.skill.rsplit("/", 1)[-1]:
        title += f" [{inline(report.name)}]"
    parts = [
        f"{paint(title, 'heading')}: {_verdict(report.verdict, paint)}",
        f"structural score {report.score.value}/100 (minimum {min_score})",
    ]
    if report.judge is not None:
        parts.append(_judge_summary(report.judge))
    return "  ".join(parts)


def _indented(text: str, first_prefix: str, rest_prefix: str) -> list[str]:
    """``text`` split on newlines: the first line after ``first_prefix``, the others under ``rest_prefix``."""
    lines = printable(text).split("\n")
    return [first_prefix + lines[0], *(rest_prefix + line for line in lines[1:])]


def _finding_lines(finding: Finding, registry: RuleRegistry, paint: Paint, verbose: bool) -> list[str]:
    severity = paint(finding.severity.value, finding.severity.value)
    head = f"{_INDENT}{inline(str(finding.location))}: {severity} {finding.rule_id} "
    lines = _indented(finding.message, head, _DETAIL)
    if finding.suppressed is not None:
        why = f"suppressed ({finding.suppressed.kind}): {finding.suppressed.reason}"
        lines.extend(paint(line, "dim") for line in _indented(why, _DETAIL, _DETAIL))
    hint = fix_hint(finding, registry)
    if hint:
        lines.extend(_indented(hint, f"{_DETAIL}fix: ", _DETAIL + "     "))
    if verbose and finding.evidence:
        lines.extend(_indented(finding.evidence, f"{_DETAIL}evidence: ", _DETAIL + "          "))
    if verbose and finding.clause:
        lines.extend(_indented(finding.clause, f"{_DETAIL}clause: ", _DETAIL + "        "))
    return lines


def _deduction_lines(report: SkillReport) -> list[str]:
    score = report.score
    if not score.deductions:
        return [f"{_INDENT}score: no deductions"]
    lost = sum(d.points for d in score.deductions)
    lines = [f"{_INDENT}score deductions ({plural(lost, 'point')}):"]
    for deduction in score.deductions:
        head = (
            f"{_INDENT}  -{deduction.points} {deduction.rule_id} {printable(deduction.rule_name)} "
            f"({plural(deduction.count, 'finding')}): "
        )
        lines.extend(_indented(deduction.explanation, head, _DETAIL))
    return lines


def _judge_lines(judge: JudgeResult, verbose: bool) -> list[str]:
    lines: list[str] = []
    if judge.error:
        lines.extend(_indented(judge.error, f"{_INDENT}judge error: ", _DETAIL))
    if verbose:
        for criterion in judge.criteria:
            head = (
                f"{_INDENT}  judge {inline(criterion.id)} {score_text(criterion.score)}/10 "
                f"(weight {criterion.weight}): {inline(criterion.title)}"
            )
            lines.append(head)
            if criterion.rationale:
                lines.extend(_indented(criterion.rationale, _DETAIL, _DETAIL))
    return lines


def _skill_block(
    report: SkillReport, result: ScanResult, registry: RuleRegistry, paint: Paint, verbose: bool
) -> list[str]:
    lines = [_header(report, result.min_score, paint)]
    for reason in report.reasons:
        lines.extend(_indented(reason, f"{_INDENT}reason: ", _DETAIL))
    if report.judge is not None:
        lines.extend(_judge_lines(report.judge, verbose))
    shown = report.findings if verbose else report.active_findings
    for finding in by_location(shown):
        lines.extend(_finding_lines(finding, registry, paint, verbose))
    hidden = suppressed_count(report.findings)
    if not report.findings:
        lines.append(f"{_INDENT}no findings")
    elif hidden and not verbose:
        lines.append(f"{_INDENT}{plural(hidden, 'suppressed finding')} not listed (verbose output lists them)")
    if verbose:
        lines.extend(_deduction_lines(report))
    return lines


def _summary(result: ScanResult, paint: Paint) -> str:
    passed = sum(1 for report in result.skills if report.verdict == "pass")
    failed = len(result.skills) - passed
    findings = all_findings(result.skills)
    summary = (
        f"{plural(len(result.skills), 'skill')} scanned: {passed} passed, {failed} failed. "
        f"Findings: {describe_counts(severity_counts(findings))}; {suppressed_count(findings)} suppressed. "
        f"Verdict: {_verdict(result.verdict, paint)} "
        f"(profile {inline(result.profile)}, minimum score {result.min_score})"
    )
    stale = stale_baseline_note(result.stale_baseline_entries, result.baseline)
    return summary if stale is None else f"{summary}. {printable(stale)}"


def _rule_tally(result: ScanResult) -> str | None:
    """``Findings by rule: SPEC003 812, REF001 40, … and 3 more rules`` once there are :data:`TALLY_FROM` active
    findings; None below that."""
    counts = Counter(finding.rule_id for finding in all_findings(result.skills) if finding.active)
    if counts.total() < TALLY_FROM:
        return None
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    named = ", ".join(f"{inline(rule_id)} {count}" for rule_id, count in ranked[:TALLY_RULES])
    rest = len(ranked) - TALLY_RULES
    return f"Findings by rule: {named}" + (f" and {plural(rest, 'more rule')}" if rest > 0 else "")


def render_text(result: ScanResult, registry: RuleRegistry, *, color: bool = False, verbose: bool = False) -> str:
    """The scan result as terminal text; ``verbose`` adds evidence, clauses, deductions and suppressed findings."""
    paint = _painter(color)
    lines: list[str] = []
    for report in result.skills:
        lines.extend(_skill_block(report, result, registry, paint, verbose))
        lines.append("")
    if not result.skills:
        lines.extend(["No skills found.", ""])
    tally = _rule_tally(result)
    if tally is not None:
        lines.append(tally)
    lines.append(_summary(result, paint))
    return "\n".join(lines) + "\n"
