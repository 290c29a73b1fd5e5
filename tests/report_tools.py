"""Locate the npm-installed report tools (scripts/install-report-tools.sh) and Chromium for the tests.

On a developer machine without them the tests that need them skip, naming the install command; under
``CI=true`` they fail instead, so CI can never go green without having rendered and validated.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.needs import unavailable

PREFIX = Path(os.environ.get("ACES_REPORT_TOOLS", str(Path.home() / ".cache" / "aces-ci" / "npm-report")))
MERMAID_JS = PREFIX / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
SARIF_SCHEMA = PREFIX / "node_modules" / "@microsoft" / "jest-sarif" / "lib" / "schemas" / "sarif-2.1.0-rtm.5.json"
ARTIFACTS = Path(os.environ.get("ACES_TEST_ARTIFACTS", str(Path(__file__).parents[1] / "test-artifacts")))


def require(path: Path | None, what: str, installer: str = "report-tools") -> Path:
    if path is not None and path.exists():
        return path
    unavailable(f"{what} not found; run `bash scripts/install-report-tools.sh`", installer)


def chromium() -> Path:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    return require(Path(found) if found else None, "chromium", "chromium")
