"""Model clients: one small interface over Anthropic, OpenAI(-compatible) and the embedded local model,
with retries, concurrency caps and cost accounting applied from outside (:class:`ManagedClient`).

Importing this package does not import the provider SDKs or httpx: the clients, the local model's
server and :func:`create_client` load on first attribute access, so a command that only needs the
settings and prices (``aces-ci scan`` reading aces.yml) starts without them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._base import FinishReason, Message, ModelAPIError, ModelClient, ModelRequest, ModelResponse, ToolCall, ToolSpec
from ._errors import RetriesExhausted, is_retryable, retry_after_s
from ._prices import BUILTIN_PRICES, BUILTIN_PRICES_AS_OF, FREE, PriceTable, cost_usd
from ._retry import RetryPolicy
from ._tool_args import INVALID_ARGUMENTS_KEY, tool_arguments
from ._types import PROVIDERS, ModelSettings, ModelSpec, Price, Provider, Usage
from ._weights import SMOLLM2_135M, WeightsSource, cached_weights_path, local_weights, model_cache_dir

if TYPE_CHECKING:
    from ._anthropic import AnthropicClient
    from ._factory import API_KEY_ENV, PLACEHOLDER_KEY, create_client
    from ._limits import ConcurrencyLimiter, endpoint_key
    from ._local import (
        DEFAULT_LOCAL_MODELS,
        INSTALL_HINT,
        LOCAL_MODEL_ID,
        LOCAL_THREADS,
        SERVER_ENVIRONMENT,
        LocalModelClient,
        LocalModelManager,
        LocalModelServer,
        local_runtime_identity,
        missing_local_extra,
    )
    from ._managed import ManagedClient
    from ._openai import OpenAIChatClient

_LAZY = {
    "AnthropicClient": "._anthropic",
    "OpenAIChatClient": "._openai",
    "ManagedClient": "._managed",
    **dict.fromkeys(("ConcurrencyLimiter", "endpoint_key"), "._limits"),
    **dict.fromkeys(("API_KEY_ENV", "PLACEHOLDER_KEY", "create_client"), "._factory"),
    **dict.fromkeys(
        (
            "DEFAULT_LOCAL_MODELS",
            "INSTALL_HINT",
            "LOCAL_MODEL_ID",
            "LOCAL_THREADS",
            "SERVER_ENVIRONMENT",
            "LocalModelClient",
            "LocalModelManager",
            "LocalModelServer",
            "local_runtime_identity",
            "missing_local_extra",
        ),
        "._local",
    ),
}
"""Names whose modules import httpx, asyncio or a provider SDK, and the module each lives in."""


def __getattr__(name: str) -> Any:
    """Import the clients (and httpx, the SDKs) only when someone asks for them."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "API_KEY_ENV",
    "BUILTIN_PRICES",
    "BUILTIN_PRICES_AS_OF",
    "DEFAULT_LOCAL_MODELS",
    "FREE",
    "INSTALL_HINT",
    "INVALID_ARGUMENTS_KEY",
    "LOCAL_MODEL_ID",
    "LOCAL_THREADS",
    "PLACEHOLDER_KEY",
    "PROVIDERS",
    "SERVER_ENVIRONMENT",
    "SMOLLM2_135M",
    "AnthropicClient",
    "ConcurrencyLimiter",
    "FinishReason",
    "LocalModelClient",
    "LocalModelManager",
    "LocalModelServer",
    "ManagedClient",
    "Message",
    "ModelAPIError",
    "ModelClient",
    "ModelRequest",
    "ModelResponse",
    "ModelSettings",
    "ModelSpec",
    "OpenAIChatClient",
    "Price",
    "PriceTable",
    "Provider",
    "RetriesExhausted",
    "RetryPolicy",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "WeightsSource",
    "cached_weights_path",
    "cost_usd",
    "create_client",
    "endpoint_key",
    "is_retryable",
    "local_runtime_identity",
    "local_weights",
    "missing_local_extra",
    "model_cache_dir",
    "retry_after_s",
    "tool_arguments",
]
