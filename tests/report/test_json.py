"""The --json report: the whole result model, valid against schemas/scan-result.schema.json."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from aces_ci.errors import InputError
from aces_ci.report import scan_result_to_dict, write_json
from aces_ci.scan import Severity
from aces_ci.schemas import validator

from .builders import PDF, UNI, clean_report, finding, pdf_report, sample_result, unicode_report


def _errors(data: dict[str, Any]) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator("scan-result").iter_errors(data)]


def test_real_output_is_valid_against_the_schema() -> None:
    assert _errors(scan_result_to_dict(sample_result())) == []


def test_empty_scan_is_valid_too() -> None:
    assert _errors(scan_result_to_dict(replace(sample_result(), skills=()))) == []


def test_schema_rejects_what_the_result_can_never_hold() -> None:
    data = scan_result_to_dict(sample_result())
    data["skills"][0]["findings"][0]["severity"] = "fatal"
    data["skills"][1]["score"]["value"] = 101
    del data["schema_version"]

    problems = _errors(data)

    assert len(problems) == 3


def test_top_level_carries_version_profile_threshold_and_verdict() -> None:
    data = scan_result_to_dict(sample_result())

    assert data["schema_version"] == 1
    assert data["tool"] == {"name": "aces-ci", "version": "0.1.0"}
    assert (data["profile"], data["min_score"], data["verdict"]) == ("lenient", 70, "fail")
    assert data["summary"] == {
        "skills": 3,
        "passed": 2,
        "failed": 1,
        "findings": {"error": 1, "warning": 2, "note": 2},
        "suppressed": 2,
    }


def test_every_finding_is_kept_with_all_its_fields_suppressed_ones_included() -> None:
    data = scan_result_to_dict(sample_result())
    pdf = data["skills"][0]

    assert len(pdf["findings"]) == len(pdf_report().findings)
    spec = next(f for f in pdf["findings"] if f["rule_id"] == "SPEC001")
    assert spec == {
        "rule_id": "SPEC001",
        "severity": "error",
        "message": "name 'PDF_Tools' is not lowercase",
        "path": f"{PDF}/SKILL.md",
        "line": 2,
        "column": 7,
        "skill": PDF,
        "evidence": "name: PDF_Tools",
        "clause": "agentskills.io: name",
        "fix": "Rename the skill.",
        "fingerprint": pdf_report().findings[1].fingerprint,
        "suppressed": None,
    }
    secret = next(f for f in pdf["findings"] if f["rule_id"] == "SEC001")
    assert secret["suppressed"] == {"kind": "inline", "reason": "test fixture, not a real key"}
    no_line = next(f for f in pdf["findings"] if f["rule_id"] == "STRUCT001")
    assert (no_line["line"], no_line["column"]) == (None, None)


def test_score_deductions_and_judge_are_reported_separately() -> None:
    data = scan_result_to_dict(sample_result())
    pdf, clean, uni = data["skills"]

    assert pdf["score"]["value"] == 62
    assert pdf["score"]["deductions"][0] == {
        "rule_id": "SPEC001",
        "rule_name": "name-format",
        "count": 1,
        "points": 15,
        "explanation": "1 error finding",
    }
    assert pdf["judge"]["score"] == 81.5
    assert pdf["judge"]["criteria"][0]["id"] == "clarity"
    assert clean["judge"] is None
    assert uni["judge"] == {
        "provider": "openai",
        "model": "gpt-test",
        "score": None,
        "error": "judge API returned 503",
        "rubric_version": "1",
        "criteria": [],
    }
    assert pdf["verdict"] == "fail"
    assert pdf["reasons"] == ["1 error finding (SPEC001)", "structural score 62 is below the minimum 70"]


def test_write_json_writes_readable_utf8_that_loads_back_equal(tmp_path: Path) -> None:
    target = tmp_path / "reports" / "scan.json"

    write_json(sample_result(), target)

    raw = target.read_bytes()
    assert "ünïcode".encode() in raw
    assert json.loads(raw) == scan_result_to_dict(sample_result())
    assert sorted(p.name for p in target.parent.iterdir()) == ["scan.json"]


def test_undecodable_text_is_written_as_escapes_not_lost(tmp_path: Path) -> None:
    broken = "bytes \udcff\udcfe that were not UTF-8"
    quoted = finding("STRUCT002", Severity.NOTE, "odd bytes", f"{UNI}/SKILL.md", 1, skill=UNI, evidence=broken)
    target = tmp_path / "scan.json"

    write_json(sample_result(replace(unicode_report(), findings=(quoted,))), target)

    assert b"\\udcff\\udcfe" in target.read_bytes()
    assert json.loads(target.read_bytes())["skills"][0]["findings"][0]["evidence"] == broken


def test_unwritable_path_is_an_input_error_naming_the_path(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    target = blocker / "scan.json"

    with pytest.raises(InputError) as caught:
        write_json(sample_result(clean_report()), target)

    assert str(target) in str(caught.value)
    assert caught.value.exit_code == 2


def test_the_baseline_and_its_stale_entries_are_recorded() -> None:
    stale = replace(sample_result(), baseline=".aces-baseline.json", stale_baseline_entries=2)
    data = scan_result_to_dict(stale)
    assert (data["baseline"], data["stale_baseline_entries"]) == (".aces-baseline.json", 2)
    assert _errors(data) == []
    data = scan_result_to_dict(sample_result())
    assert (data["baseline"], data["stale_baseline_entries"]) == (None, 0)
    data["stale_baseline_entries"] = -1
    assert len(_errors(data)) == 1
