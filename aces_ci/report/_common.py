"""What every report of the static tier shares: finding order, counts, rule look-ups, safe text.

Each renderer keeps its own layout; this module only holds the decisions that must agree across
formats, so that the text log, the PR comment, JUnit and SARIF list the same findings in the same
order and describe the same rule the same way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..scan import Finding, Rule, RuleRegistry, Severity, SkillReport

SEVERITY_ORDER = (Severity.ERROR, Severity.WARNING, Severity.NOTE)
"""Worst first: the order in which counts are printed."""


def skill_title(skill: str, name: str) -> str:
    """What a heading or a table calls a skill: its folder relative to the root, unless the folder *is* the root
    (``.``), which says nothing; then its name (the frontmatter's, else its folder's own)."""
    return skill if skill.strip("/") not in ("", ".") else name


def location_key(finding: Finding) -> tuple[str, int, int, str, str]:
    """Sort key for "by file, then line": file-level findings (no line) come first in their file."""
    loc = finding.location
    return (loc.path, loc.line or 0, loc.column or 0, finding.rule_id, finding.message)


def by_location(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(findings, key=location_key)


def by_severity_then_location(findings: Iterable[Finding]) -> list[Finding]:
    """Worst first, so a truncated list still shows what fails the gate."""
    return sorted(findings, key=lambda f: (-f.severity.rank, *location_key(f)))


def severity_counts(findings: Iterable[Finding]) -> dict[Severity, int]:
    """Active findings per severity, every severity present (zero when none)."""
    counts = dict.fromkeys(SEVERITY_ORDER, 0)
    for finding in findings:
        if finding.active:
            counts[finding.severity] += 1
    return counts


def suppressed_count(findings: Iterable[Finding]) -> int:
    return sum(1 for finding in findings if not finding.active)


def all_findings(reports: Iterable[SkillReport]) -> list[Finding]:
    return [finding for report in reports for finding in report.findings]


def plural(count: int, word: str) -> str:
    """``1 error``, ``2 errors``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def stale_baseline_note(stale: int, baseline: str | None) -> str | None:
    """The sentence about baseline entries that matched nothing (fixed problems), None when there are none."""
    if stale == 0:
        return None
    entries = "entry matches" if stale == 1 else "entries match"
    if baseline is None:
        return (
            f"{stale} baseline {entries} no current finding (fixed since); refresh the baseline with --write-baseline"
        )
    return (
        f"Baseline {baseline}: {stale} {entries} no current finding (fixed since); "
        f"refresh it with --write-baseline {baseline}"
    )


def describe_counts(counts: dict[Severity, int]) -> str:
    """``2 errors, 1 warning, 0 notes``."""
    return ", ".join(plural(counts[severity], severity.value) for severity in SEVERITY_ORDER)


def find_rule(registry: RuleRegistry, rule_id: str) -> Rule | None:
    """The rule behind a finding, or None when this registry does not know the id.

    That happens when a saved result is rendered by another version of aces-ci; reports then fall
    back to what the finding itself carries instead of failing.
    """
    return registry.get(rule_id) if rule_id in registry else None


def family_of(registry: RuleRegistry, rule_id: str) -> str:
    """The rule's family; for unknown ids, the letters of the id, as :func:`aces_ci.scan.define` derives it."""
    rule = find_rule(registry, rule_id)
    if rule is not None:
        return rule.family
    letters = "".join(ch for ch in rule_id if ch.isalpha()).upper()
    return letters or rule_id


def fix_hint(finding: Finding, registry: RuleRegistry) -> str | None:
    """The finding's own fix hint, else the rule's."""
    if finding.fix:
        return finding.fix
    rule = find_rule(registry, finding.rule_id)
    return rule.fix if rule is not None and rule.fix else None


WEB_URL = re.compile(r"https?://[^\s/]", re.IGNORECASE)
"""The start of an ``http(s)`` URL with a host: the only destination a link from a result may have, in the
comment's Markdown (:func:`~aces_ci.report._md_escape.link_url`) and the HTML page
(:func:`~aces_ci.report.html._escape.href`) alike."""


def score_text(value: float) -> str:
    """A score for people: one decimal, none when it is whole (``81.5``, ``82``)."""
    return f"{value:.1f}".removesuffix(".0")
