"""The judge of a trial or a valuation: opened on its own client, sharing the agents' concurrency cap and cache.

A judge decides a ``match: judge`` reference answer, free-text expected behaviours, and an end
state without outcome assertions. Without one those metrics are ``null`` with the reason, never
0, so a trial without a judge is honest, only narrower. The judge is part of the measurement:
when aces.yml or a flag names one that cannot be built (no model id, no API key), the run stops
with exit 2 before any rollout is paid for, rather than quietly grading less than asked. Which
judge is named is decided with the rest of the config (:func:`aces_ci.config.resolve_judge`).
Its answers are cached beside the rollouts (``<cache>/judge/``), so an identical rerun makes no
judge call either.
"""

from __future__ import annotations

from ..config import RunConfig
from ..errors import ConfigError
from ..grading import Judge
from ..models import ConcurrencyLimiter, ModelSpec


def open_judge(spec: ModelSpec | None, options: RunConfig, limiter: ConcurrencyLimiter) -> Judge | None:
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


def judge_priced(spec: ModelSpec | None, options: RunConfig) -> bool:
    """Whether the judge's dollars are known (no judge, the embedded model, or a model in the price table)."""
    return spec is None or spec.provider == "local" or options.prices.lookup(spec.model) is not None


def priced(options: RunConfig, judge: ModelSpec | None = None) -> bool:
    """Whether a trial's dollars are known: the agent's model and the judge's both have a price."""
    agent = options.model.provider == "local" or options.prices.lookup(options.model.model) is not None
    return agent and judge_priced(judge, options)
