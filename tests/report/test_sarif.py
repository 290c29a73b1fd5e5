"""The SARIF report: what GitHub code scanning needs, checked against a schema of its documented rules."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema

from aces_ci.report import render_sarif, write_sarif
from aces_ci.scan import Severity, StructuralScore

from .builders import PDF, UNI, build_registry, clean_report, finding, pdf_report, sample_result

REGISTRY = build_registry()
GITHUB_SCHEMA = json.loads(Path(__file__).with_name("sarif-github.schema.json").read_text(encoding="utf-8"))


def _errors(sarif: dict[str, Any]) -> list[str]:
    checker = jsonschema.Draft202012Validator(GITHUB_SCHEMA, format_checker=jsonschema.FormatChecker())
    return [f"{list(e.absolute_path)}: {e.message}" for e in checker.iter_errors(sarif)]


def _run(sarif: dict[str, Any]) -> dict[str, Any]:
    assert len(sarif["runs"]) == 1
    run: dict[str, Any] = sarif["runs"][0]
    return run


def _result_for(run: dict[str, Any], rule_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(r for r in run["results"] if r["ruleId"] == rule_id)
    return found


def test_output_meets_githubs_documented_requirements() -> None:
    sarif = render_sarif(sample_result(), REGISTRY)

    assert _errors(sarif) == []
    assert sarif["version"] == "2.1.0"
    assert sarif["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"


def test_driver_describes_every_rule_that_ran() -> None:
    driver = _run(render_sarif(sample_result(), REGISTRY))["tool"]["driver"]

    assert (driver["name"], driver["version"]) == ("aces-ci", "0.1.0")
    assert driver["informationUri"].startswith("https://")
    assert {rule["id"] for rule in driver["rules"]} == set(sample_result().rules)
    spec = next(rule for rule in driver["rules"] if rule["id"] == "SPEC001")
    assert spec["name"] == "name-format"
    assert spec["shortDescription"]["text"] == "The name is not lowercase kebab-case."
    assert "Why name-format matters" in spec["fullDescription"]["text"]
    assert spec["help"]["text"].endswith("How to fix: Rename the skill.")
    assert "**How to fix:** Rename the skill." in spec["help"]["markdown"]
    assert spec["helpUri"] == REGISTRY.get("SPEC001").help_uri()
    assert spec["defaultConfiguration"] == {"level": "error"}
    assert spec["properties"] == {"tags": ["SPEC"], "precision": "very-high"}
    secret = next(rule for rule in driver["rules"] if rule["id"] == "SEC001")
    assert secret["properties"]["tags"] == ["SEC", "security"]


def test_each_result_points_at_its_rule_by_index() -> None:
    run = _run(render_sarif(sample_result(), REGISTRY))
    rules = run["tool"]["driver"]["rules"]

    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]


def test_results_carry_level_message_repo_relative_location_and_fingerprint() -> None:
    run = _run(render_sarif(sample_result(), REGISTRY))
    spec = _result_for(run, "SPEC001")

    assert spec["level"] == "error"
    assert spec["message"] == {"text": "name 'PDF_Tools' is not lowercase"}
    location = spec["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": f"{PDF}/SKILL.md", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 2, "startColumn": 7}
    assert spec["partialFingerprints"] == {"acesFindingHash/v1": pdf_report().findings[1].fingerprint}
    assert len(run["results"]) == sum(len(report.findings) for report in sample_result().skills)


def test_finding_without_line_is_placed_on_line_one() -> None:
    struct = _result_for(_run(render_sarif(sample_result(), REGISTRY)), "STRUCT001")

    assert struct["locations"][0]["physicalLocation"]["region"] == {"startLine": 1}
    assert struct["level"] == "warning"


def test_suppressed_findings_are_reported_with_kind_and_justification() -> None:
    run = _run(render_sarif(sample_result(), REGISTRY))

    inline = _result_for(run, "SEC001")
    assert inline["suppressions"] == [
        {"kind": "inSource", "status": "accepted", "justification": "test fixture, not a real key"}
    ]
    baseline = next(r for r in run["results"] if r["ruleId"] == "REF001" and r["properties"]["skill"] == UNI)
    assert baseline["suppressions"][0]["kind"] == "external"
    assert baseline["suppressions"][0]["justification"] == "accepted in baseline"
    assert "suppressions" not in _result_for(run, "SPEC001")


def test_paths_are_percent_encoded_uris() -> None:
    spaced = "skills/my skill"
    report = replace(
        clean_report(),
        skill=spaced,
        findings=(finding("REF001", Severity.WARNING, "broken", f"{spaced}/SKILL.md", 3, skill=spaced),),
        score=StructuralScore(95),
    )
    sarif = render_sarif(sample_result(report), REGISTRY)
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in _run(sarif)["results"]]

    assert uris == ["skills/my%20skill/SKILL.md"]
    assert _errors(sarif) == []
    unicode_uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in _run(render_sarif(sample_result(), REGISTRY))["results"]
        if r["properties"]["skill"] == UNI
    ]
    assert set(unicode_uris) == {"skills/%C3%BCn%C3%AFcode/SKILL.md"}


def test_category_sets_automation_details() -> None:
    assert _run(render_sarif(sample_result(), REGISTRY))["automationDetails"] == {"id": "aces-ci/scan/"}
    custom = render_sarif(sample_result(), REGISTRY, category="skills-static")
    assert _run(custom)["automationDetails"] == {"id": "skills-static/"}


def test_rule_unknown_to_the_registry_still_gets_a_descriptor() -> None:
    odd = finding("LEGACY009", Severity.WARNING, "from an older version", "skills/clean/SKILL.md", skill="skills/clean")
    report = replace(clean_report(), findings=(odd,), score=StructuralScore(95))
    sarif = render_sarif(sample_result(report), REGISTRY)
    run = _run(sarif)

    result = _result_for(run, "LEGACY009")
    descriptor = run["tool"]["driver"]["rules"][result["ruleIndex"]]
    assert descriptor["id"] == "LEGACY009"
    assert descriptor["defaultConfiguration"] == {"level": "warning"}
    assert _errors(sarif) == []


def test_empty_message_falls_back_to_the_rule_summary() -> None:
    silent = finding("SPEC002", Severity.ERROR, "", "skills/clean/SKILL.md", 1, skill="skills/clean")
    report = replace(clean_report(), findings=(silent,), verdict="fail")
    sarif = render_sarif(sample_result(report), REGISTRY)

    assert _result_for(_run(sarif), "SPEC002")["message"] == {"text": "No description."}
    assert _errors(sarif) == []


def test_write_sarif_writes_the_rendered_log(tmp_path: Path) -> None:
    target = tmp_path / "out" / "scan.sarif"

    write_sarif(sample_result(), REGISTRY, target)

    assert json.loads(target.read_text(encoding="utf-8")) == render_sarif(sample_result(), REGISTRY)
