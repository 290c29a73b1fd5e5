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


def in_ci() -> bool:
    """True where the environment says this is a CI run (GitHub Actions and .ci/run set ``CI=true``)."""
    return os.environ.get("CI", "").strip().lower() in CI_VALUES


def unavailable(reason: str) -> NoReturn:
    """Skip the running test for ``reason``, or fail it when this is a CI run."""
    if in_ci():
        pytest.fail(f"CI=true, so this test must run, but {reason}", pytrace=False)
    pytest.skip(reason)
