"""The previous implementation of the scan, pinned, so a benchmark can check it finds the same before timing.

A speed-up that changes what the scan reports is a regression, not an optimisation. The benchmarks
extract ``aces_ci/`` and ``schemas/`` of a pinned commit (:data:`REFERENCE_REV`) with ``git archive``
into a temporary directory, and run it in a child interpreter whose ``sys.path`` starts
there, so both implementations scan the same corpus with the same libraries.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

REFERENCE_REV = "c1edf1e"
"""aces-ci just before the cold-scan work (issue 11 item 3): PyYAML's pure-Python composer, jsonschema
alone, every verb imported at start-up; otherwise the same code as the scan it is compared with."""
REPO = Path(__file__).resolve().parents[1]

Finding = tuple[str, str, str, str, int | None]
"""(skill, rule id, message, path, line): what a report shows of a finding."""

_SCAN = """
import json, sys, time
from pathlib import Path
import aces_ci
assert Path(aces_ci.__file__).resolve().is_relative_to(Path(sys.argv[1]).resolve()), aces_ci.__file__
from aces_ci.scan import ScanConfig, scan_repo
from aces_ci.scan.rules import default_registry
registry = default_registry()
best = float("inf")
for _ in range(int(sys.argv[3])):
    start = time.perf_counter()
    result = scan_repo(Path(sys.argv[2]), ScanConfig(), registry)
    best = min(best, time.perf_counter() - start)
rows = [[s.skill, f.rule_id, f.message, f.location.path, f.location.line] for s in result.skills for f in s.findings]
print(json.dumps({"findings": rows, "best_s": best}))
"""


def extract(rev: str, into: Path) -> Path:
    """``aces_ci/`` and ``schemas/`` of ``rev`` under ``into`` (created); returns ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", rev, "aces_ci", "schemas"],
        capture_output=True,
        check=True,
    ).stdout
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="tar")
    return into


def reference_scan(tree: Path, root: Path, repeat: int = 1) -> tuple[list[Finding], float]:
    """The findings the implementation extracted at ``tree`` reports for ``root``, and its best scan time.

    The time is the fastest of ``repeat`` scans in one process (no cache, one process), after the
    child's imports, so it compares with an in-process scan of the current code.
    """
    done = subprocess.run(
        [sys.executable, "-c", _SCAN, str(tree), str(root.resolve()), str(repeat)],
        capture_output=True,
        text=True,
        check=True,
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"},
    )
    report = json.loads(done.stdout)
    return [tuple(row) for row in report["findings"]], float(report["best_s"])  # type: ignore[misc]
