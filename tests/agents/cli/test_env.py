"""The CLI's environment is built from nothing: no inherited secrets, a throwaway home, the one key it needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from aces_ci.agents.cli._env import api_key, base_environment
from aces_ci.errors import ConfigError
from aces_ci.models import ModelSpec

HOST = {
    "PATH": "/usr/local/bin:/usr/bin",
    "LANG": "C.UTF-8",
    "HOME": "/home/runner",
    "GITHUB_TOKEN": "ghp_notforthecli0000000000000000000000",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "ANTHROPIC_API_KEY": "sk-ant-real",
    "OPENAI_API_KEY": "sk-openai-real",
    "XDG_CONFIG_HOME": "/home/runner/.config",
}


def test_only_pass_through_variables_survive_and_home_is_the_workspace_home(tmp_path: Path) -> None:
    env = base_environment(tmp_path, HOST)
    assert env["PATH"] == HOST["PATH"] and env["LANG"] == "C.UTF-8"
    assert env["HOME"] == str(tmp_path)
    assert env["XDG_CONFIG_HOME"] == str(tmp_path / ".config")
    assert env["XDG_CACHE_HOME"] == str(tmp_path / ".cache")
    for secret in ("GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        assert secret not in env
    assert not any(value in HOST["GITHUB_TOKEN"] for value in env.values())


def test_a_proxy_never_captures_the_loopback_model_server(tmp_path: Path) -> None:
    env = base_environment(tmp_path, {**HOST, "HTTPS_PROXY": "http://proxy:3128", "NO_PROXY": "corp.example"})
    assert env["HTTPS_PROXY"] == "http://proxy:3128"
    assert env["NO_PROXY"].split(",") == ["corp.example", "127.0.0.1", "localhost", "::1"]
    assert "NO_PROXY" not in base_environment(tmp_path, HOST)


def test_the_providers_real_key_variable_is_used() -> None:
    model = ModelSpec(provider="anthropic", model="claude-x")
    assert api_key(model, "claude-code", ("anthropic",), HOST) == ("ANTHROPIC_API_KEY", "sk-ant-real")
    openai = ModelSpec(provider="openai", model="gpt-x")
    assert api_key(openai, "codex", ("openai",), HOST) == ("OPENAI_API_KEY", "sk-openai-real")


def test_a_local_server_needs_no_key_but_the_real_endpoint_does() -> None:
    local = ModelSpec(provider="openai", model="m", base_url="http://127.0.0.1:8080/v1")
    name, key = api_key(local, "codex", ("openai",), {})
    assert name == "OPENAI_API_KEY" and key
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        api_key(ModelSpec(provider="openai", model="m"), "codex", ("openai",), {})


def test_a_provider_the_cli_cannot_speak_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="cannot use provider 'openai'; it supports anthropic"):
        api_key(ModelSpec(provider="openai", model="m"), "claude-code", ("anthropic",), HOST)
    with pytest.raises(ConfigError, match="embedded local model"):
        api_key(ModelSpec(provider="local", model=""), "opencode", ("anthropic", "openai"), HOST)
    with pytest.raises(ConfigError, match="no model"):
        api_key(ModelSpec(provider="openai", model=""), "codex", ("openai",), HOST)
