"""A verb imports only what it uses: ``aces-ci scan`` starts without the live tier, httpx or the model SDKs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLE_REPO = Path(__file__).resolve().parents[1] / "examples" / "skill-repo"
NOT_FOR_A_SCAN = (
    *("anthropic", "openai", "httpx", "asyncio", "numpy", "scipy"),
    *("aces_ci.engine", "aces_ci.agents", "aces_ci.grading", "aces_ci.stats._lift", "aces_ci.stats._verdict"),
)
"""aces.yml's ``gate:`` bands are :class:`aces_ci.stats.Bands`, so a scan loads ``aces_ci.stats`` itself, but only its
numpy-free bands: every statistic loads on first use."""

_PROBE = """
import json, sys
from aces_ci.cli import main
code = main(sys.argv[1:])
print(json.dumps({"exit": code, "modules": sorted(sys.modules)}))
"""


def _imported_by(*argv: str) -> tuple[int, set[str]]:
    """Run the CLI in a fresh interpreter and return its exit code and every module it imported."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, timeout=300, check=False
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return report["exit"], set(report["modules"])


def test_a_scan_imports_neither_the_live_tier_nor_httpx_nor_the_model_sdks(tmp_path: Path) -> None:
    code, modules = _imported_by("scan", str(EXAMPLE_REPO), "--cache-dir", str(tmp_path / "cache"), "--jobs", "1")
    assert code == 1  # the example repository has skills that fail on purpose: the scan really ran
    loaded = [name for name in NOT_FOR_A_SCAN if name in modules]
    assert loaded == []


NOT_FOR_A_SMALL_SCAN = (
    *("multiprocessing", "concurrent.futures"),  # no worker for one skill
    "jsonschema_rs",  # no evals to validate
    "pathspec",  # no excludes, no aces.yml ignores
    "importlib.metadata",  # no cache key to compute
)
"""Loaded only by the scans that use them: importing them all cost a one-skill scan about a tenth of its start."""


def test_a_one_skill_scan_without_cache_imports_only_what_it_uses(tmp_path: Path) -> None:
    skill_dir = tmp_path / "skills" / "demo"
    skill_dir.mkdir(parents=True)
    front = "---\nname: demo\ndescription: Formats demo files. Use when the user asks to format one.\n---\n"
    (skill_dir / "SKILL.md").write_text(front + "# Demo\n\nRun the formatter.\n", encoding="utf-8")
    code, modules = _imported_by("scan", str(tmp_path), "--no-cache", "--jobs", "1")
    assert code == 0
    loaded = [name for name in (*NOT_FOR_A_SCAN, *NOT_FOR_A_SMALL_SCAN) if name in modules]
    assert loaded == []


def test_the_rollout_verb_still_brings_what_it_needs() -> None:
    code, modules = _imported_by("rollout", "--help")
    assert code == 0
    assert {"aces_ci.engine", "aces_ci.agents"} <= modules
