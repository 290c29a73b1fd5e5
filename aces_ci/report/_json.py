"""The machine-readable scan result (``--json``), valid against ``schemas/scan-result.schema.json``.

It is the whole result model, nothing summarised away: every finding (suppressed ones too, with
why), every score deduction, the judge beside the structural score, verdicts with their reasons.
Other tools and later ``aces-ci`` steps read this file, so its shape only changes together with
``schema_version``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..atomic import write_output
from ..scan import Finding, JudgeResult, ScanResult, SkillReport, StructuralScore
from ._common import SEVERITY_ORDER, all_findings, severity_counts, suppressed_count
from ._write import json_bytes

SCHEMA_VERSION = 1


def _finding(finding: Finding) -> dict[str, Any]:
    return {
        "rule_id": finding.rule_id,
        "severity": finding.severity.value,
        "message": finding.message,
        "path": finding.location.path,
        "line": finding.location.line,
        "column": finding.location.column,
        "skill": finding.skill,
        "evidence": finding.evidence,
        "clause": finding.clause,
        "fix": finding.fix,
        "fingerprint": finding.fingerprint,
        "suppressed": (
            None
            if finding.suppressed is None
            else {"kind": finding.suppressed.kind, "reason": finding.suppressed.reason}
        ),
    }


def _score(score: StructuralScore) -> dict[str, Any]:
    return {
        "value": score.value,
        "deductions": [
            {
                "rule_id": d.rule_id,
                "rule_name": d.rule_name,
                "count": d.count,
                "points": d.points,
                "explanation": d.explanation,
            }
            for d in score.deductions
        ],
    }


def _judge(judge: JudgeResult | None) -> dict[str, Any] | None:
    if judge is None:
        return None
    return {
        "provider": judge.provider,
        "model": judge.model,
        "score": judge.score,
        "error": judge.error,
        "rubric_version": judge.rubric_version,
        "criteria": [
            {"id": c.id, "title": c.title, "score": c.score, "weight": c.weight, "rationale": c.rationale}
            for c in judge.criteria
        ],
    }


def _skill(report: SkillReport) -> dict[str, Any]:
    return {
        "skill": report.skill,
        "name": report.name,
        "skill_md": report.skill_md,
        "verdict": report.verdict,
        "reasons": list(report.reasons),
        "score": _score(report.score),
        "judge": _judge(report.judge),
        "findings": [_finding(finding) for finding in report.findings],
    }


def _summary(result: ScanResult) -> dict[str, Any]:
    findings = all_findings(result.skills)
    counts = severity_counts(findings)
    passed = sum(1 for report in result.skills if report.verdict == "pass")
    return {
        "skills": len(result.skills),
        "passed": passed,
        "failed": len(result.skills) - passed,
        "findings": {severity.value: counts[severity] for severity in SEVERITY_ORDER},
        "suppressed": suppressed_count(findings),
    }


def scan_result_to_dict(result: ScanResult) -> dict[str, Any]:
    """The result as plain JSON data, in the shape the ``scan-result`` schema describes.

    Findings keep the order the scan produced them in; ``summary`` is derived and only saves
    readers a pass over the findings. ``shard`` is present only for a ``--shard i/n`` scan.
    """
    data = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "aces-ci", "version": result.tool_version},
        "generated_at": result.generated_at,
        "root": result.root,
        "profile": result.profile,
        "min_score": result.min_score,
        "verdict": result.verdict,
        "rules": list(result.rules),
        "summary": _summary(result),
        "skills": [_skill(report) for report in result.skills],
        "baseline": result.baseline,
        "stale_baseline_entries": result.stale_baseline_entries,
    }
    if result.shard is not None:
        data["shard"] = {"index": result.shard.index, "count": result.shard.count}
    return data


def write_json(result: ScanResult, path: Path | str) -> None:
    """Write the ``--json`` report to ``path``."""
    write_output(Path(path), json_bytes(scan_result_to_dict(result)), "JSON report")
