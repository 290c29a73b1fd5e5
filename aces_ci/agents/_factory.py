"""Build the harness a :class:`HarnessSpec` names, and the model clients the built-in one shares.

The CLI harnesses (Claude Code, Codex, OpenCode) live in :mod:`aces_ci.agents.cli` and are
imported only when asked for, so a run on the built-in harness never loads their code.
"""

from __future__ import annotations

from typing import Any

from ..models import ManagedClient, ModelSpec, create_client
from ._harness import Harness
from ._types import HarnessSpec
from .builtin import BuiltinHarness, SandboxLimits


class ModelClients:
    """One client per model spec for a whole run: connections, the concurrency cap and retries are shared.

    ``options`` go to :func:`~aces_ci.models.create_client` (``retry``, ``prices``, ``timeout_s``…).
    """

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._clients: dict[ModelSpec, ManagedClient] = {}

    def get(self, spec: ModelSpec) -> ManagedClient:
        """The client for ``spec``, created on first use; :class:`ConfigError` for a missing key or model."""
        client = self._clients.get(spec)
        if client is None:
            client = self._clients[spec] = create_client(spec, **self._options)
        return client

    async def aclose(self) -> None:
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.aclose()


def create_harness(
    spec: HarnessSpec,
    *,
    clients: ModelClients | None = None,
    sandbox: SandboxLimits | None = None,
) -> Harness:
    """The harness for ``spec.name``: ``builtin`` over ``clients``, or a CLI adapter from :mod:`aces_ci.agents.cli`.

    Raises :class:`~aces_ci.errors.ConfigError` when a CLI harness is asked for with preload
    disclosure or its CLI is not installed.
    """
    if spec.name == "builtin":
        return BuiltinHarness((clients or ModelClients()).get, sandbox=sandbox)
    from .cli import create_cli_harness  # only a CLI run pays for loading the adapters

    return create_cli_harness(spec)
