"""OpenCode (``opencode run --format json``) as a harness.

The adapter writes ``<home>/.config/opencode/opencode.json`` with one provider, ``aces``, built on
the AI SDK package for the model's provider: ``@ai-sdk/anthropic`` (Messages API) or
``@ai-sdk/openai-compatible`` (Chat Completions, which OpenAI and every compatible server speak).
OpenCode 1.18 bundles both, so nothing is fetched from npm at run time (checked with the npm
registry unreachable); older releases installed them into ``$XDG_CACHE_HOME/opencode`` on first use.
The key is referenced as ``{env:NAME}``, never written to disk. The model is declared with
``temperature`` support, so the spec's temperature is sent, and its output limit; the context
limit is left unknown (0), so OpenCode never compacts on a guess.

The session-title request OpenCode makes to the same model is switched off (``agent.title``),
as are sharing, update checks, the models.dev catalogue fetch, LSP downloads and external plugins
(``--pure``): a rollout talks to the model API and nothing else. Permission prompts are
auto-approved (``--auto``): nobody can answer them. ``--thinking`` puts reasoning in the stream.

``max_turns`` becomes the build agent's ``steps``: OpenCode makes its last allowed step a
text-only one ("maximum steps reached"), so a run at the limit usually ends with an answer rather
than ``max_turns``; the harness stops a model that calls tools even then.

OpenCode's own API retries (five, with backoff, honouring ``retry-after``) cannot be configured.
Its tools need ripgrep; without one on PATH OpenCode downloads it from GitHub, so the copy that
the Codex npm package ships is put on PATH when present.

Skills are staged in ``<home>/.config/opencode/skills/``; OpenCode lists them with name,
description and location in the system prompt and loads one with its ``skill`` tool.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from ...models import ModelSpec, Provider
from .._atif import TrajectoryBuilder
from .._harness import Workspace
from .._types import HarnessName, RolloutRequest
from ._base import CliHarness, Invocation
from ._env import base_environment
from ._opencode_events import OpenCodeEvents
from ._stream import EventStream

PROVIDER_ID = "aces"
SDK_PACKAGES = {"anthropic": "@ai-sdk/anthropic", "openai": "@ai-sdk/openai-compatible"}
DEFAULT_BASE_URLS = {"anthropic": "https://api.anthropic.com/v1", "openai": "https://api.openai.com/v1"}
_CODEX_RIPGREP = "@openai/codex-*/vendor/*/codex-path/rg"
"""Where the Codex npm package keeps its ripgrep, relative to ``node_modules``."""


def provider_base_url(model: ModelSpec) -> str:
    """The AI SDK's baseURL: Anthropic's SDK wants the ``/v1`` that ``ANTHROPIC_BASE_URL`` leaves out."""
    if not model.base_url:
        return DEFAULT_BASE_URLS[model.provider]
    base = model.base_url.rstrip("/")
    if model.provider == "anthropic" and not base.endswith("/v1"):
        base += "/v1"
    return base


def opencode_config(model: ModelSpec, key_env: str, max_turns: int) -> dict[str, Any]:
    """The opencode.json document for one rollout."""
    return {
        "$schema": "https://opencode.ai/config.json",
        "model": f"{PROVIDER_ID}/{model.model}",
        "provider": {
            PROVIDER_ID: {
                "name": "aces-ci",
                "npm": SDK_PACKAGES[model.provider],
                "options": {"baseURL": provider_base_url(model), "apiKey": f"{{env:{key_env}}}"},
                "models": {
                    model.model: {
                        "name": model.model,
                        "temperature": True,
                        "tool_call": True,
                        "limit": {"context": 0, "output": model.max_tokens},
                    }
                },
            }
        },
        "agent": {
            "title": {"disable": True},
            "build": {"steps": max_turns, "temperature": model.temperature},
        },
        "autoupdate": False,
        "share": "disabled",
        "snapshot": False,
    }


def ripgrep_dir(executable: Path, path: str) -> Path | None:
    """A folder with ``rg`` to put on PATH: None when PATH has one, else the Codex package's copy if installed."""
    if shutil.which("rg", path=path):
        return None
    node_modules = executable.parent.parent  # <prefix>/node_modules/.bin/opencode
    for candidate in sorted(node_modules.glob(_CODEX_RIPGREP)):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate.parent
    return None


class OpenCodeHarness(CliHarness):
    name: HarnessName = "opencode"
    display_name = "OpenCode"
    command = "opencode"
    providers: tuple[Provider, ...] = ("anthropic", "openai")
    not_applied = ("seed",)

    def skill_root(self, workspace_root: Path, home: Path) -> Path:
        return home / ".config" / "opencode" / "skills"

    def invocation(self, request: RolloutRequest, workspace: Workspace, key_env: str, key: str) -> Invocation:
        model = request.model
        env = base_environment(workspace.home)
        config_dir = Path(env["XDG_CONFIG_HOME"]) / "opencode"
        config_dir.mkdir(parents=True, exist_ok=True)
        config = opencode_config(model, key_env, request.harness.max_turns)
        (config_dir / "opencode.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
        env[key_env] = key
        env.update(
            {
                "OPENCODE_DISABLE_MODELS_FETCH": "1",
                "OPENCODE_DISABLE_AUTOUPDATE": "1",
                "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
                "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
            }
        )
        rg = ripgrep_dir(self.executable, env["PATH"])
        if rg is not None:
            env["PATH"] = f"{rg}{os.pathsep}{env['PATH']}"
        argv = [
            str(self.executable),
            "run",
            "--pure",
            "--auto",
            "--thinking",
            "--format",
            "json",
            "--model",
            f"{PROVIDER_ID}/{model.model}",
        ]
        return Invocation(argv, env)

    def events(self, builder: TrajectoryBuilder) -> EventStream:
        return OpenCodeEvents(builder)
