"""The vocabulary of a model call: which provider and model, what it cost, and the price of tokens.

These types belong to the model clients, not to the harnesses that use them: the scan's judge,
the built-in agent loop and the graders' judges all describe a model and account its tokens the
same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

Provider = Literal["anthropic", "openai", "local"]
PROVIDERS: tuple[str, ...] = get_args(Provider)
"""Every provider name, in one place: the config schema's enums are tested against it."""


@dataclass(frozen=True)
class ModelSettings:
    """Which model to talk to, as a user configured it; fields left out are None.

    Keys never live here: they come from ANTHROPIC_API_KEY / OPENAI_API_KEY.
    """

    provider: str | None = None
    """``anthropic``, ``openai`` or ``local``; None means "not configured"."""
    model: str | None = None
    base_url: str | None = None


@dataclass(frozen=True)
class ModelSpec:
    """A fully resolved model: what a client is built for, and part of every rollout's cache key."""

    provider: Provider
    model: str
    base_url: str | None = None
    temperature: float = 0.0
    max_tokens: int = 1024
    """Max output tokens per model call."""

    def cache_identity(self) -> dict[str, Any]:
        identity: dict[str, Any] = {
            "provider": self.provider,
            "model": self.model,
            "base_url": self.base_url,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.provider == "local":
            # The embedded model's llama.cpp build and weights decide its answers as much as the prompt does.
            from . import local_runtime_identity  # the package imports this module: resolve at call time

            identity["local_runtime"] = local_runtime_identity()
        return identity


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    """Includes cached prompt tokens (ATIF convention)."""
    completion_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0
    model_calls: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.cost_usd + other.cost_usd,
            self.model_calls + other.model_calls,
        )
