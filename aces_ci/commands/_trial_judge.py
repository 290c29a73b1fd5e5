"""The judge of a trial: the model that grades what no rule can, from ``--judge-*`` flags over aces.yml ``judge:``.

A judge decides a ``match: judge`` reference answer, free-text expected behaviours, and an end
state without outcome assertions. Without one those metrics are ``null`` with the reason, never
0, so a trial without a judge is honest, only narrower. The judge is part of the measurement:
when aces.yml or a flag names one that cannot be built (no model id, no API key), the trial
stops with exit 2 before any rollout is paid for, rather than quietly grading less than asked.
Its answers are cached beside the rollouts (``<cache>/judge/``), so an identical rerun makes no
judge call either.
"""

from __future__ import annotations

import argparse
from typing import cast

from ..config import AcesConfig
from ..errors import ConfigError
from ..grading import Judge
from ..models import LOCAL_MODEL_ID, PROVIDERS, ConcurrencyLimiter, ModelSettings, ModelSpec, Provider
from ._run_options import RunOptions


def add_judge_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("judge (override aces.yml judge:)")
    group.add_argument("--judge-provider", choices=PROVIDERS, help="provider of the judge model")
    group.add_argument("--judge-model", metavar="ID", help="judge model id")
    group.add_argument("--judge-base-url", metavar="URL", help="judge API endpoint")
    group.add_argument("--no-judge", action="store_true", help="grade without a judge, even when aces.yml names one")


def configured_judge(config: AcesConfig, args: argparse.Namespace | None = None) -> ModelSpec | None:
    """The judge model the flags and aces.yml ``judge:`` name, or None; ConfigError when it is named but incomplete."""
    settings = config.judge
    if args is not None:
        if args.no_judge:
            return None
        settings = ModelSettings(
            provider=args.judge_provider or settings.provider,
            model=args.judge_model or settings.model,
            base_url=args.judge_base_url or settings.base_url,
        )
    if not settings.provider:
        if settings.model or settings.base_url:
            raise config.source.error("a judge needs its provider: set judge.provider or --judge-provider", "judge")
        return None
    if settings.provider not in PROVIDERS:
        raise config.source.error(f"{settings.provider!r} is not one of {', '.join(PROVIDERS)}", "judge.provider")
    model = settings.model or (LOCAL_MODEL_ID if settings.provider == "local" else None)
    if not model:
        raise ConfigError(
            f"judge provider {settings.provider} needs a model id: set judge.model in aces.yml or pass --judge-model",
            path=str(config.path) if config.path else None,
            field="judge.model",
        )
    return ModelSpec(provider=cast(Provider, settings.provider), model=model, base_url=settings.base_url)


def open_judge(spec: ModelSpec | None, options: RunOptions, limiter: ConcurrencyLimiter) -> Judge | None:
    """A judge on its own client (our retries and prices), sharing the agents' concurrency cap and the rollout cache."""
    if spec is None:
        return None
    try:
        return Judge.open(spec, cache_dir=options.cache_dir, prices=options.prices, limiter=limiter)
    except ConfigError as exc:
        raise ConfigError(
            f"the judge {spec.provider}/{spec.model} cannot run: {exc.args[0]}; set its key, or pass --no-judge to "
            "grade without one (what only a judge decides is then not graded)",
            path=exc.path,
            field=exc.field or "judge",
        ) from exc


def judge_priced(spec: ModelSpec | None, options: RunOptions) -> bool:
    """Whether the judge's dollars are known (no judge, the embedded model, or a model in the price table)."""
    return spec is None or spec.provider == "local" or options.prices.lookup(spec.model) is not None
