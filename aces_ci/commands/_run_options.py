"""The flags shared by every verb that runs rollouts (``rollout``, and later ``trial``, ``value``, ``ci``).

Each setting comes from the first place that gives it: the command-line flag, then aces.yml's
``run:`` section, then the default. With no provider named anywhere the embedded local model is
used (it needs no key), and because it cannot drive tools the built-in harness then defaults to
``preload`` disclosure unless a flag or aces.yml asks for another.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ..agents import DISCLOSURES, HARNESSES, Disclosure, HarnessName, HarnessSpec
from ..config import AcesConfig
from ..engine import Budget
from ..errors import ConfigError
from ..models import LOCAL_MODEL_ID, PROVIDERS, ModelSpec, PriceTable, Provider


def _number(parse: Callable[[str], Any], minimum: float, *, strict: bool = False) -> Callable[[str], Any]:
    """An argparse type: a finite number ≥ ``minimum`` (> when ``strict``)."""

    def convert(text: str) -> Any:
        try:
            value = parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not math.isfinite(value) or value < minimum or (strict and value == minimum):
            raise argparse.ArgumentTypeError(f"must be {'above' if strict else 'at least'} {minimum:g}, got {text}")
        return value

    return convert


_COUNT = _number(int, 1)
_NON_NEGATIVE_INT = _number(int, 0)
_ANY_INT = _number(int, -(2**63))
_SECONDS = _number(float, 0, strict=True)
_DOLLARS = _number(float, 0)


def add_run_options(
    parser: argparse.ArgumentParser,
    *,
    title: str = "run settings (override aces.yml run:)",
    without: Collection[str] = (),
) -> None:
    """Declare the run flags on ``parser``; every default is None so aces.yml can fill the gaps.

    ``without`` names flags the verb declares itself with another meaning (``ci``'s ``--cache-dir``
    is the scan's result cache); the verb then supplies those attributes before resolving.
    """
    group = parser.add_argument_group(title)

    def add(flag: str, **kwargs: Any) -> None:
        if flag not in without:
            group.add_argument(flag, **kwargs)

    add("--config", type=Path, metavar="FILE", help="aces.yml to use (default: found above the skill)")
    add("--provider", choices=PROVIDERS, help="model provider (default: local, the embedded model)")
    add("--base-url", metavar="URL", help="API endpoint, e.g. an OpenAI-compatible server")
    add("--model", metavar="ID", help="model id (the provider's own spelling)")
    add("--harness", choices=HARNESSES, help="agent that runs the case (default: builtin)")
    add("--disclosure", choices=DISCLOSURES, help="how skills reach the agent (builtin harness)")
    add("--runs", type=_COUNT, metavar="N", help="repetitions of each case and arm")
    add("--seed", type=_ANY_INT, metavar="N", help="base seed of the run")
    add("--concurrency", type=_COUNT, metavar="N", help="rollouts running at the same time")
    add("--max-turns", type=_COUNT, metavar="N", help="model calls per rollout")
    add("--timeout", type=_SECONDS, metavar="SECONDS", help="wall time per rollout")
    add("--budget-usd", type=_DOLLARS, metavar="X", help="stop launching rollouts past X dollars")
    add("--max-rollouts", type=_NON_NEGATIVE_INT, metavar="N", help="launch at most N rollouts")
    add("--max-wall", type=_SECONDS, metavar="SECONDS", help="stop the whole batch after this")
    add("--cache-dir", type=Path, metavar="DIR", help="rollout cache (default: .aces-cache)")
    add("--no-cache", action="store_true", help="neither read nor write the rollout cache")
    add("--journal", type=Path, metavar="FILE", help="crash-safe journal; rerun to resume")
    add("--keep-workspaces", action="store_true", help="keep each rollout's workspace directory")


@dataclass(frozen=True)
class RunOptions:
    """Run settings after merging flags, aces.yml and defaults."""

    model: ModelSpec
    harness: HarnessSpec
    runs: int
    seed: int
    concurrency: int
    budget: Budget
    cache_dir: Path | None
    """None with ``--no-cache``."""
    journal: Path | None
    keep_workspaces: bool
    prices: PriceTable


def _choice(value: str, allowed: tuple[str, ...], field: str, config: AcesConfig) -> str:
    if value not in allowed:
        raise config.source.error(f"{value!r} is not one of {', '.join(allowed)}", field)
    return value


def resolve_run_options(args: argparse.Namespace, config: AcesConfig) -> RunOptions:
    """Merge the parsed flags over ``config.run`` over the defaults; ConfigError names a bad setting."""
    run = config.run

    def pick(flag: str, configured: Any) -> Any:
        value = getattr(args, flag, None)
        return configured if value is None else value

    provider = _choice(pick("provider", run.model.provider) or "local", PROVIDERS, "run.provider", config)
    model_id = pick("model", run.model.model) or (LOCAL_MODEL_ID if provider == "local" else None)
    if not model_id:
        raise ConfigError(
            f"provider {provider} needs a model id: pass --model or set run.model in aces.yml",
            path=str(config.path) if config.path else None,
            field="run.model",
        )
    harness_name = _choice(pick("harness", run.harness), HARNESSES, "run.harness", config)
    disclosure_configured = args.disclosure is not None or "run.disclosure" in config.field_lines
    disclosure = pick("disclosure", run.disclosure)
    if provider == "local" and harness_name == "builtin" and not disclosure_configured:
        disclosure = "preload"  # the embedded model cannot call tools; on-demand would never load a skill
    model = ModelSpec(
        provider=cast(Provider, provider),
        model=model_id,
        base_url=pick("base_url", run.model.base_url),
        temperature=run.temperature,
        max_tokens=run.max_tokens,
    )
    harness = HarnessSpec(
        name=cast(HarnessName, harness_name),
        disclosure=cast(Disclosure, _choice(disclosure, DISCLOSURES, "run.disclosure", config)),
        max_turns=pick("max_turns", run.max_turns),
        timeout_s=pick("timeout", run.timeout_s),
    )
    budget = Budget(
        max_rollouts=pick("max_rollouts", run.max_rollouts),
        max_usd=pick("budget_usd", run.budget_usd),
        max_wall_s=pick("max_wall", run.max_wall_s),
    )
    return RunOptions(
        model=model,
        harness=harness,
        runs=pick("runs", run.runs),
        seed=pick("seed", run.seed),
        concurrency=pick("concurrency", run.concurrency),
        budget=budget,
        cache_dir=None if args.no_cache else pick("cache_dir", run.cache_dir),
        journal=args.journal,
        keep_workspaces=bool(args.keep_workspaces),
        prices=PriceTable(run.prices),
    )
