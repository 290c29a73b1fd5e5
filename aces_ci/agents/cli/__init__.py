"""The real agent CLIs — Claude Code, Codex, OpenCode — as harnesses.

Each adapter runs its CLI headless in the staged workspace, against the model the request names,
and converts the CLI's own event stream into an ATIF trajectory, so rollouts on a CLI are graded
exactly like rollouts on the built-in agent. Install the CLIs with
``scripts/install-harness-clis.sh``; the adapters find them through ``ACES_CLI_BIN``.
"""

from __future__ import annotations

from pathlib import Path

from ...errors import ConfigError
from .._harness import Harness
from .._types import HarnessSpec
from ._base import ADAPTER_VERSION, CliHarness
from ._claude import ClaudeCodeHarness
from ._codex import CodexHarness
from ._install import INSTALL_SCRIPT, find_cli, require_cli
from ._opencode import OpenCodeHarness

CLI_HARNESSES: dict[str, type[ClaudeCodeHarness | CodexHarness | OpenCodeHarness]] = {
    "claude-code": ClaudeCodeHarness,
    "codex": CodexHarness,
    "opencode": OpenCodeHarness,
}


def create_cli_harness(
    spec: HarnessSpec, *, bin_dir: Path | None = None, api_retries: int = 2, kill_grace_s: float = 5.0
) -> Harness:
    """The adapter for ``spec.name``, bound to its installed CLI.

    ``bin_dir`` pins the folder of the executables (default: ``ACES_CLI_BIN``, the install script's
    location, then PATH). ``api_retries`` is how often the CLI itself retries a failed API call
    where it can be told (Claude Code, Codex). Raises :class:`ConfigError` for an unknown name, the
    ``preload`` disclosure (CLIs disclose skills their own way, on demand) or a CLI not installed.
    """
    harness_class = CLI_HARNESSES.get(spec.name)
    if harness_class is None:
        raise ConfigError(
            f"unknown CLI harness {spec.name!r}; expected one of {', '.join(CLI_HARNESSES)}", field="harness"
        )
    if spec.disclosure != "on-demand":
        raise ConfigError(
            f"harness {spec.name!r} discloses skills on demand, the way the CLI itself does; "
            f"disclosure {spec.disclosure!r} is only available with the builtin harness",
            field="disclosure",
        )
    if api_retries < 0:
        raise ConfigError(f"api_retries must be 0 or more, got {api_retries}", field="api_retries")
    executable = require_cli(harness_class.command, spec.name, bin_dir)
    return harness_class(executable, api_retries=api_retries, kill_grace_s=kill_grace_s)


__all__ = [
    "ADAPTER_VERSION",
    "CLI_HARNESSES",
    "INSTALL_SCRIPT",
    "ClaudeCodeHarness",
    "CliHarness",
    "CodexHarness",
    "OpenCodeHarness",
    "create_cli_harness",
    "find_cli",
]
