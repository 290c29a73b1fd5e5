"""aces.yml: the project's settings for every tier, validated against schemas/config.schema.json.

Command-line flags override these values; see :mod:`aces_ci.cli`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .scan import ScanConfig


@dataclass(frozen=True)
class ModelSettings:
    """Which model to talk to. Keys never live here: they come from ANTHROPIC_API_KEY / OPENAI_API_KEY."""

    provider: str | None = None
    """``anthropic``, ``openai`` or ``local``; None means "not configured"."""
    model: str | None = None
    base_url: str | None = None


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None


@dataclass(frozen=True)
class RunSettings:
    """Settings of every command that runs rollouts (``rollout``, ``trial``, ``value``, ``ci``)."""

    model: ModelSettings = field(default_factory=ModelSettings)
    harness: str = "builtin"
    disclosure: str = "on-demand"
    runs: int = 1
    seed: int = 0
    concurrency: int = 4
    budget_usd: float | None = None
    max_rollouts: int | None = None
    max_wall_s: float | None = None
    cache_dir: Path = Path(".aces-cache")
    max_turns: int = 20
    timeout_s: float = 300.0
    temperature: float = 0.0
    max_tokens: int = 1024
    prices: dict[str, Price] = field(default_factory=dict)
    """Extra or overriding entries of the price table, keyed by model id."""


@dataclass(frozen=True)
class AcesConfig:
    path: Path | None = None
    """Where the config was read from; None when defaults are used."""
    scan: ScanConfig = field(default_factory=ScanConfig)
    judge: ModelSettings = field(default_factory=ModelSettings)
    run: RunSettings = field(default_factory=RunSettings)
