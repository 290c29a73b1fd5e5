"""The command-line flags that point an aces-ci command's agent at a scripted server."""

from __future__ import annotations

from ._server import ScriptedServer


def model_flags(server: ScriptedServer, provider: str = "openai", model: str = "scripted-model") -> list[str]:
    """``--provider``, ``--base-url`` (with ``/v1`` for the OpenAI formats) and ``--model`` for ``server``."""
    url = server.url if provider == "anthropic" else server.openai_url
    return ["--provider", provider, "--base-url", url, "--model", model]
