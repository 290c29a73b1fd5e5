"""Read a ``--json`` scan result back into the result model: for ``aces-ci merge`` and the commenter workflow.

The file is checked against ``schemas/scan-result.schema.json`` first, so a damaged or foreign
file is an input error naming the file and the field (exit 2), never a crash half-way through a
report. The commenter of a fork's pull request reads a file made by the fork's own workflow run:
validation is what keeps it to data the renderers escape, never markup of its own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..scan import (
    Deduction,
    Finding,
    JudgeCriterion,
    JudgeResult,
    Location,
    ScanResult,
    Severity,
    Shard,
    SkillReport,
    StructuralScore,
    Suppression,
)
from ..schemas import validator
from ..skill import read_bounded

MAX_RESULT_BYTES = 256 * 1024 * 1024


def _finding(raw: dict[str, Any]) -> Finding:
    suppressed = raw.get("suppressed")
    return Finding(
        rule_id=raw["rule_id"],
        severity=Severity(raw["severity"]),
        message=raw["message"],
        location=Location(raw["path"], raw.get("line"), raw.get("column")),
        skill=raw["skill"],
        evidence=raw.get("evidence"),
        clause=raw.get("clause"),
        fix=raw.get("fix"),
        suppressed=None if suppressed is None else Suppression(suppressed["kind"], suppressed["reason"]),
    )


def _judge(raw: dict[str, Any] | None) -> JudgeResult | None:
    if raw is None:
        return None
    return JudgeResult(
        provider=raw["provider"],
        model=raw["model"],
        score=raw.get("score"),
        criteria=tuple(
            JudgeCriterion(c["id"], c["title"], c["score"], c["weight"], c.get("rationale", ""))
            for c in raw.get("criteria", [])
        ),
        error=raw.get("error"),
        rubric_version=raw.get("rubric_version", "1"),
    )


def _skill(raw: dict[str, Any]) -> SkillReport:
    score = raw["score"]
    return SkillReport(
        skill=raw["skill"],
        name=raw["name"],
        skill_md=raw["skill_md"],
        findings=tuple(_finding(f) for f in raw["findings"]),
        score=StructuralScore(
            score["value"],
            tuple(
                Deduction(d["rule_id"], d["rule_name"], d["count"], d["points"], d["explanation"])
                for d in score.get("deductions", [])
            ),
        ),
        verdict=raw["verdict"],
        reasons=tuple(raw.get("reasons", [])),
        judge=_judge(raw.get("judge")),
    )


def scan_result_from_dict(data: Any, source: str = "scan result") -> ScanResult:
    """The result model of a ``--json`` document; an :class:`InputError` naming the first invalid field."""
    errors = sorted(validator("scan-result").iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        first = errors[0]
        field = ".".join(str(part) for part in first.absolute_path) or None
        raise InputError(f"not an aces-ci scan result: {first.message[:300]}", path=source, field=field)
    return ScanResult(
        tool_version=data["tool"]["version"],
        root=data["root"],
        profile=data["profile"],
        min_score=data["min_score"],
        skills=tuple(_skill(raw) for raw in data["skills"]),
        verdict=data["verdict"],
        rules=tuple(data["rules"]),
        generated_at=data["generated_at"],
        baseline=data.get("baseline"),
        stale_baseline_entries=data.get("stale_baseline_entries", 0),
        shard=Shard(data["shard"]["index"], data["shard"]["count"]) if "shard" in data else None,
    )


def read_json_file(path: Path, what: str, max_bytes: int, *, inside: Path | None = None) -> Any:
    """The JSON document in ``path``; any problem is an :class:`InputError` naming the file (and line).

    Read through the bounded reader: a FIFO or a device is refused and no more than ``max_bytes``
    plus one byte is read; with ``inside`` (a folder someone else wrote, such as a fork's results),
    a link leading out of it is refused too.
    """
    raw = read_bounded(path, what=what, max_bytes=max_bytes, inside=inside)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} is not UTF-8 (byte {exc.start})", path=str(path)) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{what} is not valid JSON: {exc.msg}", path=str(path), line=exc.lineno) from None


def read_scan_result(path: Path, *, inside: Path | None = None) -> ScanResult:
    """Load and validate a ``--json`` scan result file (``inside``: see :func:`read_json_file`)."""
    return scan_result_from_dict(read_json_file(path, "scan result", MAX_RESULT_BYTES, inside=inside), str(path))
