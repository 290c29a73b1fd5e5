"""The bundled example repo: each flawed skill produces exactly the findings it was written to produce.

examples/skill-repo/README.md lists every deliberate flaw with its file and line; this test is that
list, so the README and the rules cannot drift apart silently.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from aces_ci.schemas import validator

REPO = Path(__file__).resolve().parents[1] / "examples" / "skill-repo"

EXPECTED: dict[str, set[tuple[str, str, int | None]]] = {
    "skills/acme-support": set(),
    "skills/csv-insights": set(),
    "skills/release-notes": set(),
    "skills/capital-cities": set(),
    "skills/pdf-merger": {
        ("SPEC002", "SKILL.md", 2),
        ("SPEC003", "SKILL.md", 2),
        ("SPEC007", "SKILL.md", 3),
        ("SPEC009", "SKILL.md", 4),
        ("EVAL001", "SKILL.md", 1),
    },
    "skills/report-builder": {
        ("REF005", "SKILL.md", 12),
        ("REF001", "SKILL.md", 14),
        ("REF003", "SKILL.md", 15),
        ("EVAL001", "SKILL.md", 1),
    },
    "skills/log-cleaner": {
        ("SCRIPT001", "scripts/parse_logs.py", 10),
        ("SCRIPT002", "scripts/rotate.sh", 10),
        ("SCRIPT003", "scripts/cleanup.sh", 1),
        ("SCRIPT005", "scripts/old_helper.py", None),
        ("EVAL001", "SKILL.md", 1),
    },
    "skills/deploy-helper": {
        ("SEC002", "SKILL.md", 15),
        ("SEC001", "SKILL.md", 21),
        ("SEC005", "SKILL.md", 29),
        ("SEC004", "SKILL.md", 31),
        ("EVAL001", "SKILL.md", 1),
    },
    "skills/meeting-notes": {
        ("EVAL007", "evals/evals.json", 2),
        ("EVAL004", "evals/evals.json", 3),
        ("EVAL005", "evals/evals.json", 3),
        ("EVAL008", "evals/evals.json", 8),
        ("EVAL006", "evals/evals.json", 11),
        ("EVAL009", "evals/evals.json", 11),
        ("EVAL008", "evals/evals.json", 13),
    },
    "skills/todo-extractor": {
        ("STRUCT003", "SKILL.md", 3),
        ("STRUCT005", "SKILL.md", 8),
        ("STRUCT006", "SKILL.md", 18),
        ("EVAL002", "evals/evals.json", 7),
    },
}


@pytest.fixture(scope="module")
def scan_outputs(tmp_path_factory):
    out = tmp_path_factory.mktemp("scan")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "aces_ci.cli",
            "scan",
            str(REPO),
            "--no-cache",
            "--json",
            str(out / "scan.json"),
            "--junit",
            str(out / "scan.xml"),
            "--sarif",
            str(out / "scan.sarif"),
            "--markdown",
            str(out / "scan.md"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    return proc, out


def test_gate_fails_because_of_the_flawed_skills(scan_outputs):
    proc, _ = scan_outputs
    assert proc.returncode == 1, proc.stderr
    for skill in EXPECTED:
        assert skill in proc.stdout


def test_every_flaw_is_found_at_its_line_and_nothing_else(scan_outputs):
    _, out = scan_outputs
    result = json.loads((out / "scan.json").read_text())
    found = {
        report["skill"]: {
            (f["rule_id"], f["path"].removeprefix(report["skill"] + "/"), f["line"])
            for f in report["findings"]
            if f["suppressed"] is None
        }
        for report in result["skills"]
    }
    assert found == EXPECTED
    verdicts = {report["skill"]: report["verdict"] for report in result["skills"]}
    assert {skill for skill, verdict in verdicts.items() if verdict == "pass"} == {
        "skills/acme-support",
        "skills/capital-cities",
        "skills/csv-insights",
        "skills/release-notes",
    }


def test_reports_are_valid(scan_outputs):
    _, out = scan_outputs
    result = json.loads((out / "scan.json").read_text())
    assert list(validator("scan-result").iter_errors(result)) == []
    sarif = json.loads((out / "scan.sarif").read_text())
    assert sarif["version"] == "2.1.0"
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert "skills/log-cleaner/scripts/parse_logs.py" in uris
    assert (out / "scan.xml").read_text().count("<testsuite ") == len(EXPECTED)
    assert (out / "scan.md").read_text().startswith("<!-- aces-ci:scan -->")
