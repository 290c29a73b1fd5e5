"""Scripted model servers for tests: real HTTP on 127.0.0.1 speaking Anthropic Messages, OpenAI Chat
Completions and OpenAI Responses, answering from a script.

::

    with ScriptedServer([ToolUse("read", {"path": "a.txt"}), Text("done")]) as server:
        client = AsyncAnthropic(base_url=server.url, api_key="x")
        ...
    assert server.calls == 2

Base URLs: ``server.url`` for the anthropic SDK and ``ANTHROPIC_BASE_URL`` (Claude Code);
``server.openai_url`` (with ``/v1``) for the openai SDK, Codex's ``base_url`` and OpenCode's ``baseURL``.
The ``scripted_server`` fixture (:mod:`tests.servers.fixtures`, registered in tests/conftest.py) is a
factory: ``server = scripted_server([Text("hi")], fault_rate=0.2)``; servers stop when the test ends.
:func:`model_flags` gives the flags that point an aces-ci command at a server.
"""

from ._flags import model_flags
from ._replies import Call, Drop, Fault, Hang, Reply, SlowStream, StreamFault, Text, Tokens, ToolUse
from ._request import Dialect, ScriptedRequest, Turn
from ._server import Script, ScriptedServer

__all__ = [
    "Call",
    "Dialect",
    "Drop",
    "Fault",
    "Hang",
    "Reply",
    "Script",
    "ScriptedRequest",
    "ScriptedServer",
    "SlowStream",
    "StreamFault",
    "Text",
    "Tokens",
    "ToolUse",
    "Turn",
    "model_flags",
]
