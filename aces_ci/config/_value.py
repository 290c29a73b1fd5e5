"""A valuation's resolved config: ``aces-ci value``'s flags (or ``ci``'s choices) over aces.yml over the defaults.

What needs the compiled skill (``--exact`` against its number of units) or its cases is checked by
:mod:`aces_ci.app`; everything else that can be wrong is a ConfigError here, before anything is read.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, TypeVar, get_args

from ..errors import ConfigError
from ..models import ModelSpec
from ..skillsv import (
    SAMPLE_SHARE,
    DecisionRules,
    EstimatorSettings,
    Operator,
    OrderDistribution,
    Pooling,
    ValueEstimator,
)
from ._file import AcesConfig
from ._given import NotGiven, RunFlags, ValueFlags
from ._resolve import RunConfig, pick, resolve_judge, resolve_run

T = TypeVar("T")

Oracle = Literal["live", "python"]
ORACLE_KINDS: dict[Oracle, str] = {
    "live": "live (the default) — the agent of the run settings runs each rendered skill on each case, "
    "graded as a trial grades (the judge included) on --metric",
    "python": "python:MODULE:FUNC — FUNC(skill_dir: str, case: dict, seed: int) -> float scores the rendered "
    "skill folder on one evals case (MODULE imported from PYTHONPATH and the working directory)",
}
"""The oracles ``--oracle`` accepts."""
_DISTRIBUTIONS: tuple[OrderDistribution, ...] = get_args(OrderDistribution)
_POOLINGS: tuple[Pooling, ...] = get_args(Pooling)
_OPERATORS: dict[str, tuple[Operator, ...]] = {"both": ("del", "pad"), "del": ("del",)}


@dataclass(frozen=True)
class ValueConfig:
    """Everything a valuation runs with (aces.yml's ``value:`` section as written is :class:`ValueSettings`)."""

    oracle: Oracle
    oracle_spec: str
    """As given: ``live``, or ``python:MODULE:FUNC`` for a Python oracle."""
    run: RunConfig | None
    """The live agent's run settings, its cache at :attr:`cache_root`; None with a Python oracle."""
    judge: ModelSpec | None
    evals: Path | None
    metric: str
    cache_root: Path | None
    """Where scores (``skillsv/``) and rollouts live; None with ``--no-cache``."""
    runs_per_score: int
    """Rollouts per coalition score: the live agent runs each case ``runs`` times; a Python oracle once."""
    estimator: EstimatorSettings
    rules: DecisionRules
    values_from: ValueEstimator
    """Net effects from the interaction model or the chains alone (``--estimator``, aces.yml ``value.estimator``)."""
    adaptive: bool
    """aces.yml ``value.adaptive``: look at half the budget, pay the rest only while a unit is open."""
    exact: bool
    holdout: float


def oracle_kind(spec: str | None) -> Oracle:
    """``live`` or ``python``; an unknown spec lists the kinds that exist."""
    kind = "live" if spec is None else spec.split(":", 1)[0]
    if kind == "python" or (kind == "live" and spec in (None, "live")):
        return "python" if kind == "python" else "live"
    kinds = "\n".join(f"  {text}" for text in ORACLE_KINDS.values())
    raise ConfigError(f"unknown oracle {spec!r}. Oracles:\n{kinds}", field="--oracle")


def _flag_choice(value: str, allowed: tuple[T, ...], flag: str) -> T:
    for choice in allowed:
        if choice == value:
            return choice
    raise ConfigError(f"{value!r} is not one of {', '.join(map(str, allowed))}", field=flag)


def cache_root(config: AcesConfig, flags: RunFlags, skill_dir: Path) -> Path | None:
    """Where scores and rollouts live: --cache-dir, aces.yml ``run.cache_dir``, or beside the skill."""
    if flags.cache_dir is None:
        return None
    root = pick(flags.cache_dir, config.run.cache_dir, skill_dir.parent / ".aces-cache").resolve()
    if root == skill_dir or skill_dir in root.parents:
        raise ConfigError("the score cache cannot live inside the skill it values", path=str(root))
    return root


def resolve_value(config: AcesConfig, flags: ValueFlags, skill_dir: Path) -> ValueConfig:
    """A valuation's config for ``skill_dir`` (resolved); ConfigError on a bad setting, before anything is read."""
    kind = oracle_kind(flags.oracle)
    if kind == "python" and flags.judge.named:
        # A Python oracle scores by itself: a judge asked for on the command line would be silently unused.
        raise ConfigError(
            f"{', '.join(flags.judge.named)}: a judge grades the live agent's rollouts, and --oracle {flags.oracle} "
            "scores without one",
            field="--oracle",
        )
    root = cache_root(config, flags.run, skill_dir)
    run = None
    if kind == "live":
        run = replace(resolve_run(config, flags.run), cache_dir=root)
    seed = pick(flags.run.seed, config.run.seed, 0)
    if seed < 0:
        raise ConfigError(f"the seed of a valuation is a whole number ≥ 0, got {seed}", field="--seed")
    if flags.holdout >= 1:
        raise ConfigError("--holdout is a share of the cases, below 1", field="--holdout")
    runs = pick(flags.run.runs, config.run.runs, 1) if kind == "live" else 1
    max_rollouts = pick(flags.run.max_rollouts, config.run.max_rollouts, None)
    values_from = pick(flags.estimator, config.value.estimator, config.value.estimator)
    estimator = EstimatorSettings(
        orders=flags.chains,
        window=flags.window,
        tolerance=flags.tolerance,
        operators=_OPERATORS[_flag_choice(flags.operators, tuple(_OPERATORS), "--operators")],
        distribution=_flag_choice(flags.distribution, _DISTRIBUTIONS, "--orders"),
        seed=seed,
        gate_hits=flags.gate_hits,
        pooling=_flag_choice(flags.pooling, _POOLINGS, "--pooling"),
        antithetic=flags.antithetic,
        pairs_per_window=flags.pairs_per_window,
        max_evaluations=flags.max_evaluations,
        # The estimator's own dollar cap is the flag's; aces.yml's run.budget_usd caps the engine (as it always did).
        max_usd=None if isinstance(flags.run.budget_usd, NotGiven) else flags.run.budget_usd,
        budget_scores=None if max_rollouts is None else max(0, max_rollouts // runs),
        # Sampled half-coalitions inform only the interaction model (adaptive allocation's looks too).
        sample_share=SAMPLE_SHARE if values_from == "interaction" else 0.0,
    )
    return ValueConfig(
        oracle=kind,
        oracle_spec=flags.oracle or "live",
        run=run,
        judge=resolve_judge(config, flags.judge) if kind == "live" else None,
        evals=flags.evals,
        metric=flags.metric,
        cache_root=root,
        runs_per_score=runs,
        estimator=estimator,
        rules=DecisionRules(margin=pick(flags.margin, config.value.margin, config.value.margin)),
        values_from=values_from,
        adaptive=config.value.adaptive,
        exact=flags.exact,
        holdout=flags.holdout,
    )
