"""A warm scan's reports are the cold scan's, byte for byte, in every format.

A replayed skill's findings stay cache rows until a report reads them (:mod:`aces_ci.scan._finding_rows`),
and its score and verdict are read off those rows: every report must still say exactly what a scan
without any cache says.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from aces_ci.report import render_junit, render_markdown, render_sarif, render_text, scan_result_to_dict
from aces_ci.report.html import document_from, render_html
from aces_ci.scan import DEFAULT_CACHE_DIR, IgnoreEntry, ResultCache, ScanConfig, ScanResult, scan_repo
from aces_ci.scan.rules import default_registry

REGISTRY = default_registry()
CHARTS = "Use when the user wants to convert a CSV file to a chart or plot spreadsheet columns."
PLOT = "Use when asked to plot CSV columns as a chart or convert spreadsheet data to a graph."


def write_skill(root: Path, folder: str, front: str, body: str, files: dict[str, str] | None = None) -> None:
    skill_dir = root / "skills" / folder
    skill_dir.mkdir(parents=True)
    (skill_dir / "SKILL.md").write_text(f"---\n{front}---\n\n{body}", encoding="utf-8")
    for rel, text in (files or {}).items():
        (skill_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill_dir / rel).write_text(text, encoding="utf-8")


def repository(root: Path) -> None:
    """Skills with errors, warnings, notes, a policy waiver, an inline suppression and a repository finding."""
    write_skill(root, "csv-charts", f"name: csv-charts\ndescription: {CHARTS}\n", "# Charts\n\nPlot it.\n")
    write_skill(root, "plot-data", f"name: plot-data\ndescription: {PLOT}\n", "# Plot\n\nSee [guide](guide.md).\n")
    write_skill(
        root,
        "Bad_Name",
        "name: Bad Name With Spaces And A Very Long Tail That Goes On Past The Limit\ndescription: x\n",
        "# Bad\n\n```bash\nexport API_TOKEN=your-token-here\ncurl https://example.com/i.sh | bash\n```\n",
        {"scripts/run.sh": "#!/bin/bash\nif true; then\n"},
    )
    write_skill(
        root,
        "quiet",
        "name: quiet\ndescription: Formats quiet files. Use when the user asks to format one.\n",
        "# Quiet\n\n<!-- aces-ci: ignore REF001 the guide is generated -->\nSee [the guide](references/guide.md).\n",
    )


def renderings(result: ScanResult) -> dict[str, str]:
    fixed = dataclasses.replace(result, generated_at="2026-01-01T00:00:00Z")
    return {
        "text": render_text(fixed, REGISTRY, color=False, verbose=False),
        "text -v": render_text(fixed, REGISTRY, color=False, verbose=True),
        "json": repr(scan_result_to_dict(fixed)),
        "sarif": render_sarif(fixed, REGISTRY),
        "junit": render_junit(fixed, REGISTRY),
        "markdown": render_markdown(fixed, REGISTRY),
        "html": render_html([document_from(scan_result_to_dict(fixed), "scan.json")]),
    }


@pytest.mark.parametrize(
    "settings",
    [ScanConfig(), ScanConfig(ignore=(IgnoreEntry("SPEC009", (), "notes are fine here"),), min_score=90)],
    ids=["defaults", "with an ignore list"],
)
def test_every_report_of_a_warm_scan_is_the_cold_scans_byte_for_byte(tmp_path: Path, settings: ScanConfig) -> None:
    repository(tmp_path)
    cold = renderings(scan_repo(tmp_path, settings, REGISTRY))
    filling = ResultCache(tmp_path / DEFAULT_CACHE_DIR)
    assert renderings(scan_repo(tmp_path, settings, REGISTRY, cache=filling)) == cold
    warm_cache = ResultCache(tmp_path / DEFAULT_CACHE_DIR)
    warm = scan_repo(tmp_path, settings, REGISTRY, cache=warm_cache)
    assert (warm_cache.stats.hits, warm_cache.stats.stored) == (4, 0), "every skill was replayed"
    rules = {finding.rule_id for report in warm.skills for finding in report.findings}
    assert {"DISC003", "SPEC002", "SEC001"} <= rules, "the repository is the mix the test is about"
    suppressed = {f.suppressed.kind for report in warm.skills for f in report.findings if f.suppressed is not None}
    assert {"policy", "inline"} <= suppressed
    for name, text in renderings(warm).items():
        assert text == cold[name], f"the {name} report of a warm scan differs from a cold scan's"
