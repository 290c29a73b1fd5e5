"""Build the client a :class:`ModelSpec` asks for, wrapped in our retry, concurrency and cost policy.

Provider SDKs are imported here, inside the function, so that commands that never call a model
(``aces-ci scan`` without the judge) never import ``anthropic`` or ``openai``.

API keys come from the argument or the environment (``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``) and go
straight to the SDK: they are never stored on our objects, logged or put in an error message. A key is
required for the providers' own endpoints; with a ``base_url`` (vLLM, Ollama, LM Studio, a proxy) it is
optional, because most local servers ignore it.
"""

from __future__ import annotations

import os
import random

from ..errors import ConfigError
from ._base import ModelClient
from ._limits import ConcurrencyLimiter
from ._local import DEFAULT_LOCAL_MODELS, LOCAL_MODEL_ID, LocalModelClient, LocalModelManager, missing_local_extra
from ._managed import ManagedClient
from ._prices import FREE, PriceTable
from ._retry import RetryPolicy
from ._types import ModelSpec

API_KEY_ENV = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
PLACEHOLDER_KEY = "not-needed"
"""Sent to a custom ``base_url`` when no key is configured: the SDKs insist on some value."""
LOCAL_CALL_HANG_GUARD_S = 900.0
"""The least per-call timeout of the embedded model. A local call waits on no network: it takes its tokens
at this machine's speed, which a busy runner divides by several, and a retry would only redo the same work.
So its timeout is a hang guard far above any expected duration; the rollout's own timeout still applies."""


def create_client(
    spec: ModelSpec,
    *,
    api_key: str | None = None,
    retry: RetryPolicy | None = None,
    limiter: ConcurrencyLimiter | None = None,
    prices: PriceTable | None = None,
    timeout_s: float = 120.0,
    prompt_cache: bool = True,
    seed: int = 0,
    local_models: LocalModelManager | None = None,
) -> ManagedClient:
    """A ready client for ``spec``; raises :class:`ConfigError` for an unusable provider, model or key.

    ``seed`` seeds the retry jitter, so a rerun backs off the same way. ``local_models`` defaults to the
    process's shared embedded-model manager.
    """
    inner = _provider_client(spec, api_key, timeout_s, prompt_cache, local_models or DEFAULT_LOCAL_MODELS)
    price = FREE if spec.provider == "local" else (prices or PriceTable()).lookup(spec.model)
    return ManagedClient(
        inner,
        retry=retry,
        limiter=limiter,
        price=price,
        base_url=spec.base_url,
        rng=random.Random(seed),
    )


def _provider_client(
    spec: ModelSpec, api_key: str | None, timeout_s: float, prompt_cache: bool, local_models: LocalModelManager
) -> ModelClient:
    if spec.provider == "local":
        return _local_client(spec, timeout_s, local_models)
    if spec.provider not in API_KEY_ENV:
        raise ConfigError(f"unknown provider {spec.provider!r}; expected anthropic, openai or local", field="provider")
    if not spec.model:
        raise ConfigError(f"no model given for provider {spec.provider}", field="model")
    key = _api_key(spec, api_key)
    if spec.provider == "anthropic":
        from ._anthropic import AnthropicClient

        return AnthropicClient(
            spec.model, api_key=key, base_url=spec.base_url, timeout_s=timeout_s, prompt_cache=prompt_cache
        )
    from ._openai import OpenAIChatClient

    return OpenAIChatClient(spec.model, api_key=key, base_url=spec.base_url, timeout_s=timeout_s)


def _api_key(spec: ModelSpec, given: str | None) -> str:
    env_name = API_KEY_ENV[spec.provider]
    key = given or os.environ.get(env_name, "").strip()
    if key:
        return key
    if spec.base_url:
        return PLACEHOLDER_KEY
    raise ConfigError(
        f"provider {spec.provider} needs an API key: set {env_name} in the environment "
        "(in GitHub Actions, from a repository secret)",
        field="provider",
    )


def _local_client(spec: ModelSpec, timeout_s: float, local_models: LocalModelManager) -> ModelClient:
    if spec.base_url:
        raise ConfigError(
            "provider local runs the embedded model and takes no base_url; "
            "for your own OpenAI-compatible server use provider: openai with base_url",
            field="base_url",
        )
    if spec.model not in ("", LOCAL_MODEL_ID):
        raise ConfigError(
            f"provider local serves only {LOCAL_MODEL_ID!r}, not {spec.model!r}; "
            "for other models use provider: openai with the base_url of your server",
            field="model",
        )
    reason = missing_local_extra()
    if reason is not None:
        raise ConfigError(reason, field="provider")
    return LocalModelClient(local_models, timeout_s=max(timeout_s, LOCAL_CALL_HANG_GUARD_S))
