"""The scan as JUnit XML, for CI test-report tools (mikepenz, EnricoMi, dorny, Jenkins, GitLab).

Layout: one ``<testsuite>`` per skill; in it one ``<testcase>`` per rule family that ran (fails
when the family has active error or warning findings; notes never fail), one ``structural-score``
case (fails below ``min_score``), a ``judge-rubric`` case when the LLM judge ran (skipped when it
could not score), and a ``verdict`` case only when the skill failed for a reason no other case
shows, so a failed skill is never all green. Each case carries ``file``/``line`` of its first
finding, which is what mikepenz and EnricoMi annotate.

The XML is built with the ``junit-xml`` package and then completed, because of its known gaps:
the root lacks the ``skipped`` total, a failure with neither message nor output is silently not
counted (ours always have a message), test cases cannot carry ``<properties>``, a first suite's
``id`` of 0 is dropped as falsy, test cases get no ``time`` when it is zero, and control characters
are deleted instead of shown (we make them visible first, see :func:`printable`). Only
``to_xml_report_string`` is used; ``TestSuite.to_xml_string`` is deprecated.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import UTC, datetime

import junit_xml

from ..safe_text import one_line, printable
from ..scan import Finding, JudgeCriterion, JudgeResult, RuleRegistry, ScanResult, Severity, SkillReport
from ._common import (
    SEVERITY_ORDER,
    by_location,
    by_severity_then_location,
    family_of,
    fix_hint,
    plural,
    score_text,
    severity_counts,
    skill_title,
)

SCORE_CASE = "structural-score"
JUDGE_CASE = "judge-rubric"
VERDICT_CASE = "verdict"

HOSTNAME = "localhost"
"""The strict Ant schema requires a host; a static scan does not depend on the machine, and a fixed
value keeps reruns byte-identical and the runner's name out of published reports."""

_MESSAGE_LIMIT = 500
"""Failure ``message`` attributes are one-line summaries; the full list is in the element text."""

_FAILING = (Severity.ERROR, Severity.WARNING)


@dataclass
class _Case:
    """A junit-xml test case plus the per-case properties the package cannot write itself."""

    case: junit_xml.TestCase
    properties: dict[str, str] = field(default_factory=dict)


def _ant_timestamp(generated_at: str) -> str:
    """``generated_at`` in the form the Ant schema demands: UTC, seconds, no zone (``2026-01-31T09:30:00``).

    A result without a usable time gets the current one, since the attribute is required.
    """
    try:
        moment = datetime.fromisoformat(generated_at.replace("Z", "+00:00"))
    except ValueError:
        moment = datetime.now(UTC)
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def _classname(report: SkillReport) -> str:
    """``skills/pdf-tools`` becomes ``skills.pdf-tools``; a skill at the repository root uses its name."""
    path = report.skill.strip("/")
    return printable(path.replace("/", ".") if path not in ("", ".") else report.name or "root")


def _finding_line(finding: Finding, registry: RuleRegistry) -> str:
    line = f"{finding.location.path}:{finding.location.line or 1} {finding.rule_id} {finding.message}"
    hint = fix_hint(finding, registry)
    return printable(f"{line}\n    fix: {hint}" if hint else line)


def _family_case(report: SkillReport, family: str, findings: list[Finding], registry: RuleRegistry) -> _Case:
    active = [f for f in findings if f.active]
    failing = [f for f in active if f.severity in _FAILING]
    ordered = by_location(failing) or by_location(findings)
    anchor = ordered[0] if ordered else None
    case = junit_xml.TestCase(
        family,
        classname=_classname(report),
        file=printable(anchor.location.path if anchor else report.skill_md),
        line=str(anchor.location.line or 1) if anchor else None,
    )
    if failing:
        worst = by_severity_then_location(failing)[0]
        counts = severity_counts(failing)
        summary = (
            f"{plural(len(failing), 'finding')} in {family} "
            f"({plural(counts[Severity.ERROR], 'error')}, {plural(counts[Severity.WARNING], 'warning')}); "
            f"worst {worst.rule_id}: {worst.message}"
        )
        case.add_failure_info(
            message=one_line(summary, _MESSAGE_LIMIT),
            output="\n".join(_finding_line(f, registry) for f in by_location(failing)),
            failure_type=worst.rule_id,
        )
    quiet = [f for f in by_location(findings) if not f.active or f.severity not in _FAILING]
    if quiet:
        case.stdout = "\n".join(_quiet_line(f) for f in quiet)
    counts = severity_counts(findings)
    properties = {f"findings.{severity.value}": str(counts[severity]) for severity in SEVERITY_ORDER}
    properties["findings.suppressed"] = str(len(findings) - len(active))
    if active:
        properties["rules"] = ",".join(sorted({f.rule_id for f in active}))
    return _Case(case, properties)


def _quiet_line(finding: Finding) -> str:
    """A finding that does not fail its case: a note, or anything suppressed (with why)."""
    where = f"{finding.location.path}:{finding.location.line or 1}"
    text = f"{finding.severity.value}: {where} {finding.rule_id} {finding.message}"
    if finding.suppressed is not None:
        text += f" [suppressed by {finding.suppressed.kind}: {finding.suppressed.reason}]"
    return printable(text)


def _score_case(report: SkillReport, min_score: int) -> _Case:
    score = report.score
    case = junit_xml.TestCase(SCORE_CASE, classname=_classname(report), file=printable(report.skill_md), line="1")
    deductions = "\n".join(
        printable(f"-{d.points} {d.rule_id} {d.rule_name} ({plural(d.count, 'finding')}): {d.explanation}")
        for d in score.deductions
    )
    if score.value < min_score:
        case.add_failure_info(
            message=f"structural score {score.value} is below the minimum {min_score}",
            output=deductions or f"structural score {score.value}",
            failure_type="ScoreBelowMinimum",
        )
    elif deductions:
        case.stdout = deductions
    return _Case(case, {"score": str(score.value), "min_score": str(min_score)})


def _judge_case(report: SkillReport, judge: JudgeResult) -> _Case:
    case = junit_xml.TestCase(JUDGE_CASE, classname=_classname(report), file=printable(report.skill_md))
    properties = {"provider": printable(judge.provider), "model": printable(judge.model)}
    if judge.score is None:
        case.add_skipped_info(message=one_line(f"judge could not score: {judge.error or 'no score'}", _MESSAGE_LIMIT))
        return _Case(case, properties)
    properties["score"] = f"{judge.score:g}"
    case.stdout = "\n".join(_criterion_line(c) for c in judge.criteria) or None
    return _Case(case, properties)


def _criterion_line(criterion: JudgeCriterion) -> str:
    line = f"{criterion.id} {score_text(criterion.score)}/10 (weight {criterion.weight}) {criterion.title}"
    return printable(f"{line}: {criterion.rationale}" if criterion.rationale else line)


def _verdict_case(report: SkillReport) -> _Case:
    case = junit_xml.TestCase(VERDICT_CASE, classname=_classname(report), file=printable(report.skill_md), line="1")
    reasons = "\n".join(printable(reason) for reason in report.reasons) or "the gate failed this skill"
    case.add_failure_info(message=one_line(reasons, _MESSAGE_LIMIT), output=reasons, failure_type="GateFailed")
    return _Case(case)


def _skill_cases(report: SkillReport, result: ScanResult, registry: RuleRegistry) -> list[_Case]:
    by_family: dict[str, list[Finding]] = {family_of(registry, rule_id): [] for rule_id in result.rules}
    for finding in report.findings:
        by_family.setdefault(family_of(registry, finding.rule_id), []).append(finding)
    cases = [_family_case(report, family, by_family[family], registry) for family in sorted(by_family)]
    cases.append(_score_case(report, result.min_score))
    if report.judge is not None:
        cases.append(_judge_case(report, report.judge))
    if report.verdict == "fail" and not any(c.case.is_failure() for c in cases):
        cases.append(_verdict_case(report))
    return cases


def _suite(
    index: int, report: SkillReport, result: ScanResult, cases: list[_Case], timestamp: str
) -> junit_xml.TestSuite:
    properties = {
        "verdict": report.verdict,
        "structural_score": str(report.score.value),
        "min_score": str(result.min_score),
        "profile": printable(result.profile),
        "aces_ci_version": printable(result.tool_version),
    }
    if report.judge is not None and report.judge.score is not None:
        properties["judge_score"] = f"{report.judge.score:g}"
    return junit_xml.TestSuite(
        printable(skill_title(report.skill, report.name)),
        [c.case for c in cases],
        hostname=HOSTNAME,
        id=str(index),  # a string, so that suite 0 keeps its id
        package=_classname(report),
        timestamp=timestamp,
        properties=properties,
        file=printable(report.skill_md),
        stdout="\n".join(printable(reason) for reason in report.reasons) or None,
    )


def _complete(root: ET.Element, cases_per_suite: list[list[_Case]]) -> None:
    """Add what junit-xml leaves out: the root's ``skipped`` total, case ``time`` and case ``<properties>``."""
    root.set("name", "aces-ci scan")
    suites = root.findall("testsuite")
    root.set("skipped", str(sum(int(suite.get("skipped", "0")) for suite in suites)))
    for suite, cases in zip(suites, cases_per_suite, strict=True):
        for element, case in zip(suite.findall("testcase"), cases, strict=True):
            element.set("time", element.get("time", "0"))
            if case.properties:
                holder = ET.Element("properties")
                for name, value in case.properties.items():
                    ET.SubElement(holder, "property", {"name": name, "value": value})
                element.insert(0, holder)


def render_junit(result: ScanResult, registry: RuleRegistry) -> str:
    """The scan result as a JUnit XML document (UTF-8 text with an XML declaration)."""
    timestamp = _ant_timestamp(result.generated_at)
    cases_per_suite = [_skill_cases(report, result, registry) for report in result.skills]
    suites = [
        _suite(index, report, result, cases, timestamp)
        for index, (report, cases) in enumerate(zip(result.skills, cases_per_suite, strict=True))
    ]
    root = ET.fromstring(junit_xml.to_xml_report_string(suites, prettyprint=False))
    if not suites:
        for total in ("tests", "failures", "errors", "disabled", "time"):
            root.set(total, "0")
    _complete(root, cases_per_suite)
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
