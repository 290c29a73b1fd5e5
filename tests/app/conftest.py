"""Every application test runs as in a pipeline (plain progress lines) and without the user's API keys."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.github.server import GitHubServer


@pytest.fixture(autouse=True)
def _quiet_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


@pytest.fixture
def github() -> Iterator[GitHubServer]:
    """The local GitHub REST server the ``ci`` tests publish to (as in ``tests/github``)."""
    with GitHubServer("acme/skills") as server:
        yield server
