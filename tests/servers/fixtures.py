"""pytest fixtures for the scripted servers, registered in tests/conftest.py.

``scripted_server`` is a factory: call it with a script (and any :class:`ScriptedServer` option) to get
a running server; every server it made is stopped when the test ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ._server import Script, ScriptedServer

ServerFactory = Callable[..., ScriptedServer]


@pytest.fixture
def scripted_server() -> Iterator[ServerFactory]:
    started: list[ScriptedServer] = []

    def start(script: Script = (), **options: Any) -> ScriptedServer:
        server = ScriptedServer(script, **options).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
