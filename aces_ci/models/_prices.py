"""What a model call cost, from its token usage and a price table.

The built-in figures are list prices in US dollars per million tokens for standard (non-batch)
requests, as published on anthropic.com/pricing and openai.com/api/pricing and known to us as of
**2025-11** (written without network access, so not re-checked on the day): prices change, and new
models appear. ``run.prices`` in aces.yml adds or overrides entries; a model found nowhere costs 0
and is reported with ``cost_known=False`` rather than guessed.

Anthropic: cache writes (5-minute TTL) are 1.25x input, cache reads 0.1x input. OpenAI bills cached
prompt tokens at its "cached input" price and has no separate write charge.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ._types import Price, Usage

BUILTIN_PRICES_AS_OF = "2025-11"

BUILTIN_PRICES: Mapping[str, Price] = {
    # Anthropic
    "claude-opus-4-5": Price(input=5.0, output=25.0, cache_read=0.50, cache_write=6.25),
    "claude-opus-4-1": Price(input=15.0, output=75.0, cache_read=1.50, cache_write=18.75),
    "claude-opus-4-0": Price(input=15.0, output=75.0, cache_read=1.50, cache_write=18.75),
    "claude-opus-4": Price(input=15.0, output=75.0, cache_read=1.50, cache_write=18.75),
    "claude-sonnet-4-5": Price(input=3.0, output=15.0, cache_read=0.30, cache_write=3.75),
    "claude-sonnet-4-0": Price(input=3.0, output=15.0, cache_read=0.30, cache_write=3.75),
    "claude-sonnet-4": Price(input=3.0, output=15.0, cache_read=0.30, cache_write=3.75),
    "claude-3-7-sonnet": Price(input=3.0, output=15.0, cache_read=0.30, cache_write=3.75),
    "claude-haiku-4-5": Price(input=1.0, output=5.0, cache_read=0.10, cache_write=1.25),
    "claude-3-5-haiku": Price(input=0.80, output=4.0, cache_read=0.08, cache_write=1.0),
    "claude-3-haiku": Price(input=0.25, output=1.25, cache_read=0.03, cache_write=0.30),
    # OpenAI
    "gpt-5": Price(input=1.25, output=10.0, cache_read=0.125),
    "gpt-5-mini": Price(input=0.25, output=2.0, cache_read=0.025),
    "gpt-5-nano": Price(input=0.05, output=0.40, cache_read=0.005),
    "gpt-4.1": Price(input=2.0, output=8.0, cache_read=0.50),
    "gpt-4.1-mini": Price(input=0.40, output=1.60, cache_read=0.10),
    "gpt-4.1-nano": Price(input=0.10, output=0.40, cache_read=0.025),
    "gpt-4o": Price(input=2.50, output=10.0, cache_read=1.25),
    "gpt-4o-2024-05-13": Price(input=5.0, output=15.0),
    "gpt-4o-mini": Price(input=0.15, output=0.60, cache_read=0.075),
    "o3": Price(input=2.0, output=8.0, cache_read=0.50),
    "o4-mini": Price(input=1.10, output=4.40, cache_read=0.275),
}

FREE = Price(input=0.0, output=0.0, cache_read=0.0, cache_write=0.0)
"""The price of the embedded local model."""

_SNAPSHOT_SUFFIX = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2}|latest)$")
"""Dated snapshot or ``-latest`` suffix: ``claude-sonnet-4-20250514``, ``gpt-4o-2024-08-06``."""


class PriceTable:
    """Prices keyed by model id: ``overrides`` (from aces.yml ``run.prices``) first, then the built-in table.

    A lookup tries the exact id, then the id without a dated snapshot suffix, so
    ``claude-3-5-haiku-20241022`` finds ``claude-3-5-haiku`` while ``gpt-4o-mini`` never matches ``gpt-4o``.
    """

    def __init__(self, overrides: Mapping[str, Price] | None = None, *, builtin: bool = True) -> None:
        self._prices: dict[str, Price] = {**(BUILTIN_PRICES if builtin else {}), **(overrides or {})}
        self._overridden = frozenset(overrides or ())

    def lookup(self, model: str) -> Price | None:
        for candidate in (model, _SNAPSHOT_SUFFIX.sub("", model)):
            if candidate in self._overridden:
                return self._prices[candidate]
        for candidate in (model, _SNAPSHOT_SUFFIX.sub("", model)):
            if candidate in self._prices:
                return self._prices[candidate]
        return None


def cost_usd(usage: Usage, price: Price) -> float:
    """Dollars for ``usage`` at ``price``. Prompt tokens include cached ones, which are billed at their own rates."""
    cache_read_rate = price.input if price.cache_read is None else price.cache_read
    cache_write_rate = price.input if price.cache_write is None else price.cache_write
    fresh_input = max(0, usage.prompt_tokens - usage.cache_read_tokens - usage.cache_write_tokens)
    dollars_per_million = (
        fresh_input * price.input
        + usage.cache_read_tokens * cache_read_rate
        + usage.cache_write_tokens * cache_write_rate
        + usage.completion_tokens * price.output
    )
    return dollars_per_million / 1_000_000
