from __future__ import annotations

from collections.abc import Iterator

import pytest

from .server import GitHubServer


@pytest.fixture
def github() -> Iterator[GitHubServer]:
    with GitHubServer("acme/skills") as server:
        yield server
