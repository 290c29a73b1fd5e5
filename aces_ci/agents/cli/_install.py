"""Where the harness CLIs are installed, and which version each one is.

``scripts/install-harness-clis.sh`` installs Claude Code, Codex and OpenCode from npm into a cache
directory and prints the folder of their executables; CI exports it as ``ACES_CLI_BIN``. The
adapters look there first, then in the script's default location, then on PATH, so a developer
with the tools installed globally needs no setup.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

from ...errors import ConfigError, InfraError
from ...redact import safe_prefix

INSTALL_SCRIPT = "scripts/install-harness-clis.sh"
BIN_DIR_ENV = "ACES_CLI_BIN"
"""The folder of the CLI executables, as printed by the install script."""
PREFIX_ENV = "ACES_CI_NPM_PREFIX"
"""The npm prefix the install script uses (default ``~/.cache/aces-ci/npm``)."""
VERSION_TIMEOUT_S = 60.0
"""``--version`` of a cold npm-installed CLI can take seconds on a busy runner; more means it is broken."""


def candidate_bin_dirs() -> list[Path]:
    """Folders searched for the CLIs, most specific first (PATH is searched after these)."""
    dirs = []
    if os.environ.get(BIN_DIR_ENV):
        dirs.append(Path(os.environ[BIN_DIR_ENV]).expanduser())
    prefix = Path(os.environ.get(PREFIX_ENV) or Path.home() / ".cache" / "aces-ci" / "npm").expanduser()
    dirs.append(prefix / "node_modules" / ".bin")
    return dirs


def find_cli(command: str, bin_dir: Path | None = None) -> Path | None:
    """The executable ``command`` in ``bin_dir`` when given, else in :func:`candidate_bin_dirs` or on PATH."""
    for folder in [bin_dir] if bin_dir is not None else candidate_bin_dirs():
        path = folder / command
        if path.is_file() and os.access(path, os.X_OK):
            return path
    if bin_dir is not None:
        return None
    found = shutil.which(command)
    return Path(found) if found else None


def require_cli(command: str, harness: str, bin_dir: Path | None = None) -> Path:
    """:func:`find_cli`, or a :class:`ConfigError` that says how to install the tool."""
    path = find_cli(command, bin_dir)
    if path is not None:
        return path
    searched = [str(bin_dir)] if bin_dir is not None else [*map(str, candidate_bin_dirs()), "PATH"]
    raise ConfigError(
        f"harness {harness!r} needs the {command!r} CLI, which is not installed (looked in {', '.join(searched)}); "
        f"run {INSTALL_SCRIPT} and export {BIN_DIR_ENV} to the folder it prints",
        field="harness",
    )


@cache
def cli_version(executable: Path) -> str:
    """First line of ``executable --version``, asked once per process and path.

    The version is part of every rollout's cache key, so upgrading a CLI re-runs its rollouts.
    Raises :class:`InfraError` when the tool is installed but cannot report a version.
    """
    try:
        with tempfile.TemporaryDirectory(prefix="aces-cli-version-") as home:  # some CLIs write state to HOME
            completed = subprocess.run(
                [str(executable), "--version"],
                capture_output=True,
                text=True,
                errors="replace",
                stdin=subprocess.DEVNULL,
                timeout=VERSION_TIMEOUT_S,
                env={
                    "PATH": os.environ.get("PATH", os.defpath),
                    "HOME": home,
                    "XDG_CONFIG_HOME": home,
                    "XDG_DATA_HOME": home,
                    "XDG_CACHE_HOME": home,
                    "XDG_STATE_HOME": home,
                },
                check=False,
            )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InfraError(f"cannot run {executable} --version: {exc}") from exc
    lines = [line.strip() for line in completed.stdout.splitlines() if line.strip()]
    if completed.returncode != 0 or not lines:
        detail = (completed.stderr.strip().splitlines() or ["no output"])[-1]
        raise InfraError(f"{executable} --version failed (exit {completed.returncode}): {safe_prefix(detail, 300)}")
    return lines[0]
