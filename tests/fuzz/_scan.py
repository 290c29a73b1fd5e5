"""One-call scans for the fuzz tests: write a skill, scan it with every built-in rule, look at the findings."""

from __future__ import annotations

from pathlib import Path

from aces_ci.scan import Finding, ScanConfig, ScanResult, scan_repo
from aces_ci.scan.rules import default_registry

REGISTRY = default_registry()
FRONT = "---\nname: demo\ndescription: Formats demo files. Use when the user asks to format a demo file.\n---\n"
BODY = "# Demo\n\nRun the formatter on the file the user names.\n"


def skill_dir(root: Path, name: str = "demo") -> Path:
    path = root / "skills" / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def scan(root: Path) -> ScanResult:
    return scan_repo(root, ScanConfig(), REGISTRY)


def findings_of(root: Path) -> list[Finding]:
    """Findings of the one skill under ``root``, after checking that no rule crashed on it."""
    (report,) = scan(root).skills
    crashes = [f.message for f in report.findings if f.rule_id == "ACES001"]
    assert not crashes, crashes
    return list(report.findings)


def rule_ids(root: Path) -> set[str]:
    return {finding.rule_id for finding in findings_of(root)}
