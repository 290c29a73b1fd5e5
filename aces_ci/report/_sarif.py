"""The scan as SARIF 2.1.0, in the subset GitHub code scanning reads (``upload-sarif``).

GitHub shows a rule's short and full description at the top of an alert and its help below, puts
the alert on the first location's file and line, tracks an alert across commits by
``partialFingerprints``, closes suppressed results, and keeps uploads of different analyses apart
by ``automationDetails.id``. Everything here serves one of those.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..atomic import write_output
from ..scan import Finding, Rule, RuleRegistry, ScanResult
from ._common import family_of, find_rule
from ._write import json_bytes

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/aces-ci/aces-ci"
DEFAULT_CATEGORY = "aces-ci/scan"
FINGERPRINT_KEY = "acesFindingHash/v1"
"""Our key in ``partialFingerprints``: :attr:`Finding.fingerprint` hashes rule, file and message, not the line."""

_SUPPRESSION_KIND = {"inline": "inSource"}
"""Inline comments live in the skill file; config ignores and baselines live outside it (``external``)."""

_HEURISTIC_FAMILIES = frozenset({"SEC"})
"""Families that match patterns in free text and can be wrong; the others check facts of the files."""


def _precision(family: str) -> str:
    return "high" if family in _HEURISTIC_FAMILIES else "very-high"


def _described_rule(rule: Rule) -> dict[str, Any]:
    summary = rule.summary or rule.name or rule.id
    doc = rule.doc or summary
    help_text = f"{doc}\n\nHow to fix: {rule.fix}" if rule.fix else doc
    help_markdown = f"**{rule.id} {rule.name}**: {summary}\n\n{doc}"
    if rule.fix:
        help_markdown += f"\n\n**How to fix:** {rule.fix}"
    tags = [rule.family, "security"] if rule.family in _HEURISTIC_FAMILIES else [rule.family]
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": doc},
        "help": {"text": help_text, "markdown": help_markdown},
        "helpUri": rule.help_uri(),
        "defaultConfiguration": {"level": rule.severity.value},
        "properties": {"tags": tags, "precision": _precision(rule.family)},
    }


def _unknown_rule(rule_id: str, registry: RuleRegistry, example: Finding | None) -> dict[str, Any]:
    """A descriptor for an id this registry lacks (a result saved by another aces-ci version)."""
    family = family_of(registry, rule_id)
    text = f"{rule_id}: a rule this version of aces-ci does not describe."
    descriptor: dict[str, Any] = {
        "id": rule_id,
        "name": rule_id.lower(),
        "shortDescription": {"text": text},
        "fullDescription": {"text": text},
        "help": {"text": example.fix if example and example.fix else text},
        "properties": {"tags": [family], "precision": _precision(family)},
    }
    if example is not None:
        descriptor["defaultConfiguration"] = {"level": example.severity.value}
    return descriptor


def _artifact_uri(path: str) -> str:
    """A repository-relative path as a URI reference: POSIX separators, percent-encoded, no ``./``."""
    return quote(path.replace("\\", "/").removeprefix("./"), safe="/")


def _result(finding: Finding, rule_index: int, registry: RuleRegistry) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": max(finding.location.line or 1, 1)}
    if finding.location.column:
        region["startColumn"] = finding.location.column
    properties: dict[str, Any] = {"skill": finding.skill}
    if finding.clause:
        properties["clause"] = finding.clause
    if finding.evidence:
        properties["evidence"] = finding.evidence
    rule = find_rule(registry, finding.rule_id)
    message = finding.message or (rule.summary if rule is not None else "") or finding.rule_id
    sarif: dict[str, Any] = {
        "ruleId": finding.rule_id,
        "ruleIndex": rule_index,
        "level": finding.severity.value,
        "message": {"text": message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": _artifact_uri(finding.location.path), "uriBaseId": "%SRCROOT%"},
                    "region": region,
                }
            }
        ],
        "partialFingerprints": {FINGERPRINT_KEY: finding.fingerprint},
        "properties": properties,
    }
    if finding.suppressed is not None:
        sarif["suppressions"] = [
            {
                "kind": _SUPPRESSION_KIND.get(finding.suppressed.kind, "external"),
                "status": "accepted",
                "justification": finding.suppressed.reason or f"suppressed by {finding.suppressed.kind}",
            }
        ]
    return sarif


def render_sarif(result: ScanResult, registry: RuleRegistry, *, category: str = DEFAULT_CATEGORY) -> dict[str, Any]:
    """The scan result as one SARIF 2.1.0 log with one run.

    ``rules`` describes every rule that ran and every rule a finding names; results point at them
    by ``ruleIndex``. ``category`` keeps this upload apart from others of the same commit.
    """
    findings = [finding for report in result.skills for finding in report.findings]
    examples: dict[str, Finding] = {}
    for finding in findings:
        examples.setdefault(finding.rule_id, finding)
    rule_ids = sorted({*result.rules, *examples}, key=lambda rule_id: (family_of(registry, rule_id), rule_id))
    descriptors = []
    for rule_id in rule_ids:
        rule = find_rule(registry, rule_id)
        if rule is not None:
            descriptors.append(_described_rule(rule))
        else:
            descriptors.append(_unknown_rule(rule_id, registry, examples.get(rule_id)))
    index_of = {rule_id: index for index, rule_id in enumerate(rule_ids)}
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "aces-ci",
                "version": result.tool_version,
                "informationUri": INFORMATION_URI,
                "rules": descriptors,
            }
        },
        "columnKind": "unicodeCodePoints",
        "results": [_result(finding, index_of[finding.rule_id], registry) for finding in findings],
        "properties": {"profile": result.profile, "minScore": result.min_score, "verdict": result.verdict},
    }
    if category.strip("/"):
        # GitHub reads the category as everything before the last "/" of the id.
        run["automationDetails"] = {"id": f"{category.rstrip('/')}/"}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def write_sarif(
    result: ScanResult, registry: RuleRegistry, path: Path | str, *, category: str = DEFAULT_CATEGORY
) -> None:
    """Write the SARIF report to ``path`` (UTF-8 JSON, written atomically)."""
    write_output(Path(path), json_bytes(render_sarif(result, registry, category=category)), "SARIF report")
