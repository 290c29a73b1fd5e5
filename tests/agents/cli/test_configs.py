"""The configuration each adapter writes: valid for its CLI, pointing at the right endpoint, free of keys."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

from aces_ci.agents.cli._codex import codex_config
from aces_ci.agents.cli._opencode import opencode_config, provider_base_url, ripgrep_dir
from aces_ci.models import ModelSpec


def test_codex_config_is_toml_with_a_responses_provider_even_for_odd_names() -> None:
    odd = 'my "model"\\with\nnewline'
    parsed = tomllib.loads(codex_config(odd, "http://127.0.0.1:8080/v1", "OPENAI_API_KEY", 3))
    assert parsed["model"] == odd and parsed["model_provider"] == "aces"
    provider = parsed["model_providers"]["aces"]
    assert provider["base_url"] == "http://127.0.0.1:8080/v1" and provider["wire_api"] == "responses"
    assert provider["env_key"] == "OPENAI_API_KEY"
    assert (provider["request_max_retries"], provider["stream_max_retries"]) == (3, 3)
    assert parsed["skills"]["bundled"]["enabled"] is False


def test_opencode_config_references_the_key_and_carries_the_model_settings() -> None:
    model = ModelSpec(
        provider="openai", model="gpt-x", base_url="http://127.0.0.1:8080/v1", temperature=0.2, max_tokens=99
    )
    config = opencode_config(model, "OPENAI_API_KEY", max_turns=7)
    provider = config["provider"]["aces"]
    assert provider["npm"] == "@ai-sdk/openai-compatible"
    assert provider["options"] == {"baseURL": "http://127.0.0.1:8080/v1", "apiKey": "{env:OPENAI_API_KEY}"}
    assert provider["models"]["gpt-x"]["limit"]["output"] == 99
    assert config["model"] == "aces/gpt-x"
    assert config["agent"]["build"] == {"steps": 7, "temperature": 0.2}
    assert config["agent"]["title"] == {"disable": True}
    json.dumps(config)  # plain JSON, as written


def test_the_anthropic_sdk_gets_the_v1_base_url() -> None:
    assert provider_base_url(ModelSpec(provider="anthropic", model="m", base_url="http://h:1")) == "http://h:1/v1"
    assert provider_base_url(ModelSpec(provider="anthropic", model="m", base_url="http://h:1/v1/")) == "http://h:1/v1"
    assert provider_base_url(ModelSpec(provider="anthropic", model="m")) == "https://api.anthropic.com/v1"
    assert provider_base_url(ModelSpec(provider="openai", model="m")) == "https://api.openai.com/v1"
    assert provider_base_url(ModelSpec(provider="openai", model="m", base_url="http://h:1/v1")) == "http://h:1/v1"


def test_ripgrep_comes_from_path_or_else_from_the_codex_package(tmp_path: Path) -> None:
    node_modules = tmp_path / "node_modules"
    executable = node_modules / ".bin" / "opencode"
    executable.parent.mkdir(parents=True)
    assert ripgrep_dir(executable, str(tmp_path / "empty")) is None  # none anywhere: OpenCode fetches its own
    rg = node_modules / "@openai" / "codex-linux-x64" / "vendor" / "x86_64-unknown-linux-musl" / "codex-path" / "rg"
    rg.parent.mkdir(parents=True)
    rg.write_text("#!/bin/sh\n")
    rg.chmod(0o755)
    assert ripgrep_dir(executable, str(tmp_path / "empty")) == rg.parent
    on_path = tmp_path / "bin"
    on_path.mkdir()
    (on_path / "rg").write_text("#!/bin/sh\n")
    (on_path / "rg").chmod(0o755)
    assert ripgrep_dir(executable, f"{on_path}{os.pathsep}/usr/bin") is None
