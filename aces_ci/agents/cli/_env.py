"""The environment a harness CLI runs in: built from nothing, so it carries only what the tool needs.

The CI job's environment holds secrets (GitHub tokens, cloud credentials, the other provider's key)
that an agent with a shell could print into its trajectory. So nothing is inherited by default:
only locale, PATH, proxy and CA-bundle settings pass through (each through the redactor's
:func:`~aces_ci.redact.safe_environment`), HOME and the XDG directories point
into the rollout's throwaway home, and the one API key the CLI needs is added by the adapter.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ...errors import ConfigError
from ...models import API_KEY_ENV, PLACEHOLDER_KEY, ModelSpec, Provider
from ...redact import safe_environment

PASSED_THROUGH = (
    "PATH",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "TMPDIR",
    "SHELL",
    "USER",
    "LOGNAME",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
)
"""Variables a CLI may need to reach its API from a CI runner; none of them is a credential of ours."""
_PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def base_environment(home: Path, source: Mapping[str, str] | None = None) -> dict[str, str]:
    """The pass-through variables of ``source`` (default: ours), with HOME and XDG dirs under ``home``.

    When a proxy is configured, loopback hosts are added to NO_PROXY: a model server on 127.0.0.1
    must be reached directly, not through a proxy that cannot see it.
    """
    origin = os.environ if source is None else source
    # A proxy may carry its own credentials and the CLI cannot reach its API without it; anything
    # else that holds a detected secret stays behind (a token pasted into LANG is still a token).
    passed = {name: origin[name] for name in PASSED_THROUGH if origin.get(name)}
    env = safe_environment(passed, keep=(*_PROXY_VARS, "NO_PROXY", "no_proxy"))
    env.setdefault("PATH", os.defpath)
    env["HOME"] = str(home)
    env["XDG_CONFIG_HOME"] = str(home / ".config")
    env["XDG_DATA_HOME"] = str(home / ".local" / "share")
    env["XDG_CACHE_HOME"] = str(home / ".cache")
    env["XDG_STATE_HOME"] = str(home / ".local" / "state")
    if any(env.get(name) for name in _PROXY_VARS):
        for name in ("NO_PROXY", "no_proxy"):
            hosts = [h for h in env.get(name, "").split(",") if h.strip()]
            env[name] = ",".join([*hosts, *(h for h in _LOOPBACK if h not in hosts)])
    return env


def api_key(
    model: ModelSpec, harness: str, accepted: tuple[Provider, ...], source: Mapping[str, str] | None = None
) -> tuple[str, str]:
    """(variable name, key) the CLI gets for ``model``: the provider's real key variable.

    With a ``base_url`` and no key set, a placeholder is used (local servers ignore it), as for the
    built-in harness. Raises :class:`ConfigError` for a provider this CLI cannot speak to, or a
    missing key for the provider's own endpoint.
    """
    if model.provider not in accepted:
        if model.provider == "local":
            raise ConfigError(
                f"harness {harness!r} cannot run on the embedded local model: it does not call tools, which a "
                "CLI agent needs; for your own OpenAI-compatible server use provider openai with base_url",
                field="provider",
            )
        raise ConfigError(
            f"harness {harness!r} cannot use provider {model.provider!r}; it supports {', '.join(accepted)}",
            field="provider",
        )
    if not model.model:
        raise ConfigError(f"no model given for harness {harness!r}", field="model")
    origin = os.environ if source is None else source
    name = API_KEY_ENV[model.provider]
    key = origin.get(name, "").strip()
    if key:
        return name, key
    if model.base_url:
        return name, PLACEHOLDER_KEY
    raise ConfigError(
        f"harness {harness!r} with provider {model.provider} needs an API key: set {name} in the environment "
        "(in GitHub Actions, from a repository secret)",
        field="provider",
    )
