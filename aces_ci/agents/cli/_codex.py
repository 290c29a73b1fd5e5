"""Codex (``codex exec --json``) as a harness.

Codex reads ``$CODEX_HOME/config.toml``; the adapter writes one into ``<home>/.codex`` with a
custom provider pointing at the model's ``base_url`` (OpenAI's own endpoint by default). Codex
speaks only the OpenAI *Responses* API (``wire_api = "chat"`` is rejected at config load), and
the key reaches it by name (``env_key``), so it is never written to disk. The config is loaded
with ``--strict-config``: a key a newer Codex no longer knows fails the run loudly instead of
being ignored, which would silently change the experiment.

Skills are staged in ``<home>/.agents/skills/``, the user-level folder Codex scans; its bundled
system skills are switched off (``[skills.bundled]``) so both arms see only what was staged. The
prompt's skill list is what the scripted server receives; Codex loads a skill by reading its
SKILL.md with a shell command.

Commands run without approvals or Codex's sandbox (``--dangerously-bypass-approvals-and-sandbox``):
nobody can approve, and the throwaway workspace is the sandbox.
"""

from __future__ import annotations

import json
from pathlib import Path

from ...models import Provider
from .._atif import TrajectoryBuilder
from .._harness import Workspace
from .._types import HarnessName, RolloutRequest
from ._base import CliHarness, Invocation
from ._codex_events import CodexEvents
from ._env import base_environment
from ._stream import EventStream

OPENAI_BASE_URL = "https://api.openai.com/v1"
PROVIDER_ID = "aces"


def _toml_string(value: str) -> str:
    """A TOML basic string: JSON's escaping (ASCII with ``\\uXXXX``) is valid TOML."""
    return json.dumps(value, ensure_ascii=True)


def codex_config(model: str, base_url: str, key_env: str, api_retries: int) -> str:
    """The config.toml text for one rollout."""
    return "\n".join(
        [
            f"model = {_toml_string(model)}",
            f"model_provider = {_toml_string(PROVIDER_ID)}",
            "check_for_update_on_startup = false",
            "",
            f"[model_providers.{PROVIDER_ID}]",
            'name = "aces-ci"',
            f"base_url = {_toml_string(base_url)}",
            f"env_key = {_toml_string(key_env)}",
            'wire_api = "responses"',
            f"request_max_retries = {api_retries}",
            f"stream_max_retries = {api_retries}",
            "",
            "[skills.bundled]",
            "enabled = false",
            "",
            "[analytics]",
            "enabled = false",
            "",
            "[feedback]",
            "enabled = false",
            "",
            "[history]",
            'persistence = "none"',
            "",
        ]
    )


class CodexHarness(CliHarness):
    name: HarnessName = "codex"
    display_name = "Codex"
    command = "codex"
    providers: tuple[Provider, ...] = ("openai",)
    not_applied = ("temperature", "max_tokens", "seed")

    def skill_root(self, workspace_root: Path, home: Path) -> Path:
        return home / ".agents" / "skills"

    def invocation(self, request: RolloutRequest, workspace: Workspace, key_env: str, key: str) -> Invocation:
        model = request.model
        codex_home = workspace.home / ".codex"
        codex_home.mkdir(parents=True, exist_ok=True)
        (codex_home / "config.toml").write_text(
            codex_config(model.model, model.base_url or OPENAI_BASE_URL, key_env, self.api_retries), encoding="utf-8"
        )
        env = base_environment(workspace.home)
        env["CODEX_HOME"] = str(codex_home)
        env[key_env] = key
        argv = [
            str(self.executable),
            "exec",
            "--json",
            "--strict-config",
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            "-",  # the prompt comes on stdin
        ]
        return Invocation(argv, env)

    def events(self, builder: TrajectoryBuilder) -> EventStream:
        return CodexEvents(builder)
