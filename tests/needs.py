"""What a test needs from the machine, and what happens when it is missing.

On a developer's machine a test whose tool is not installed is skipped, with the install command as
the reason. Under ``CI=true`` it fails instead: ``.ci/run`` installs every tool, so a missing one
means the install step broke, and a suite of skipped tests must not pass for a green run.
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

CI_VALUES = frozenset({"true", "1", "yes"})
NOT_INSTALLABLE = {
    "harness-clis": "ACES_CLI_UNAVAILABLE",
    "report-tools": "ACES_REPORT_TOOLS_UNAVAILABLE",
    "chromium": "ACES_CHROMIUM_UNAVAILABLE",
}
"""Installer → the variable ``scripts/test.sh`` sets, with the reason, when that installer failed on this machine."""


def in_ci() -> bool:
    """True where the environment says this is a CI run (GitHub Actions and .ci/run set ``CI=true``)."""
    return os.environ.get("CI", "").strip().lower() in CI_VALUES


def unavailable(reason: str, installer: str | None = None) -> NoReturn:
    """Skip the running test for ``reason``, or fail it when this is a CI run.

    When ``scripts/test.sh`` recorded that ``installer`` itself failed here (no network, a proxy's CA,
    no root for apt), the test skips with that stated reason even under CI: the install step said so
    out loud, and a tool that did install still fails its tests when it goes missing.
    """
    why = os.environ.get(NOT_INSTALLABLE[installer], "").strip() if installer is not None else ""
    if why:
        pytest.skip(f"{reason}; it could not be installed on this machine: {why}")
    if in_ci():
        pytest.fail(f"CI=true, so this test must run, but {reason}", pytrace=False)
    pytest.skip(reason)
