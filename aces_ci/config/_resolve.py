"""One resolved config per run: what was given, over aces.yml, over the defaults, decided in this one place.

Each setting comes from the first place that gives it: the caller (a flag; :mod:`._given`), then
aces.yml, then the default here. The results are frozen and typed: closed sets are Literals,
checked against their allowed values on the way in, so nothing below has to trust a string.
With no provider named anywhere the embedded local model is used (it needs no key), and because
it cannot drive tools the built-in harness then defaults to ``preload`` disclosure unless a flag
or aces.yml asks for another.

``*Settings`` are aces.yml's sections as written; ``*Config`` are what a run uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar, get_args

from ..agents import Disclosure, HarnessName, HarnessSpec
from ..engine import Budget
from ..errors import ConfigError
from ..models import LOCAL_MODEL_ID, ModelSettings, ModelSpec, PriceTable, Provider
from ..stats import Bands, BudgetCap, Coupling
from ..trials import DEFAULT_RUNS, Mode, TrialDesign
from ._ci import GateFlags, resolve_bands
from ._file import AcesConfig
from ._given import NOT_GIVEN, Given, JudgeFlags, NotGiven, RunFlags, TrialFlags, TrialReports, given_or

T = TypeVar("T")

_PROVIDERS: tuple[Provider, ...] = get_args(Provider)
_HARNESSES: tuple[HarnessName, ...] = get_args(HarnessName)
_DISCLOSURES: tuple[Disclosure, ...] = get_args(Disclosure)
_COUPLINGS: tuple[Coupling, ...] = get_args(Coupling)
_MODES: tuple[Mode, ...] = get_args(Mode)

DEFAULT_HARNESS: HarnessName = "builtin"
DEFAULT_DISCLOSURE: Disclosure = "on-demand"
DEFAULT_CACHE_DIR = Path(".aces-cache")
DEFAULT_TARGET_LIFT = 0.10
"""The lift ``trial --plan`` sizes a design for when neither the flag nor aces.yml names one."""


@dataclass(frozen=True)
class RunConfig:
    """Run settings after merging what was given, aces.yml ``run:`` and the defaults."""

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


@dataclass(frozen=True)
class TriggerOptions:
    """How ``trial --triggers`` lists the skills and gates recall."""

    host: str
    min_recall: float | None
    underpowered_fails: bool


@dataclass(frozen=True)
class TrialConfig:
    """Everything a trial runs with: the agent, the design, the gate's bands, the judge, where the others come from."""

    run: RunConfig
    design: TrialDesign
    gate: Bands
    judge: ModelSpec | None
    decoys: tuple[Path, ...] | None
    """Decoy skill directories; None: the repository's other skills."""
    supporting: tuple[Path, ...]
    evals: Path | None
    """One dataset file instead of each skill's own (one skill only)."""
    target_lift: float
    reports: TrialReports
    triggers: TriggerOptions


def pick(flag: Given[T], configured: T | None, default: T) -> T:
    """The flag when given, else aces.yml's value when it set one, else the default: the precedence, once."""
    return given_or(flag, default if configured is None else configured)


def one_of(value: str, allowed: tuple[T, ...], field: str, config: AcesConfig) -> T:
    """``value`` as the closed set's member; ConfigError naming aces.yml's ``field`` when it is none of them."""
    for choice in allowed:
        if choice == value:
            return choice
    raise config.source.error(f"{value!r} is not one of {', '.join(map(str, allowed))}", field)


def resolve_run(config: AcesConfig, flags: RunFlags) -> RunConfig:
    """Merge the run flags over ``config.run`` over the defaults; ConfigError names a bad setting."""
    run = config.run
    provider = one_of(pick(flags.provider, run.model.provider, "local"), _PROVIDERS, "run.provider", config)
    model_id = pick(flags.model, run.model.model, "") or (LOCAL_MODEL_ID if provider == "local" else None)
    if not model_id:
        raise ConfigError(
            f"provider {provider} needs a model id: pass --model or set run.model in aces.yml",
            path=str(config.path) if config.path else None,
            field="run.model",
        )
    harness = one_of(pick(flags.harness, run.harness, DEFAULT_HARNESS), _HARNESSES, "run.harness", config)
    disclosure_default = DEFAULT_DISCLOSURE
    if provider == "local" and harness == "builtin":
        disclosure_default = "preload"  # the embedded model cannot call tools; on-demand would never load a skill
    disclosure = pick(flags.disclosure, run.disclosure, disclosure_default)
    base_url = flags.base_url if not isinstance(flags.base_url, NotGiven) else run.model.base_url
    return RunConfig(
        model=ModelSpec(
            provider=provider,
            model=model_id,
            base_url=base_url,
            temperature=pick(NOT_GIVEN, run.temperature, 0.0),
            max_tokens=pick(NOT_GIVEN, run.max_tokens, 1024),
        ),
        harness=HarnessSpec(
            name=harness,
            disclosure=one_of(disclosure, _DISCLOSURES, "run.disclosure", config),
            max_turns=pick(flags.max_turns, run.max_turns, 20),
            timeout_s=pick(flags.timeout_s, run.timeout_s, 300.0),
        ),
        runs=pick(flags.runs, run.runs, 1),
        seed=pick(flags.seed, run.seed, 0),
        concurrency=pick(flags.concurrency, run.concurrency, 4),
        budget=Budget(
            max_rollouts=pick(flags.max_rollouts, run.max_rollouts, None),
            max_usd=pick(flags.budget_usd, run.budget_usd, None),
            max_wall_s=pick(flags.max_wall_s, run.max_wall_s, None),
        ),
        cache_dir=pick(flags.cache_dir, run.cache_dir, DEFAULT_CACHE_DIR),
        journal=flags.journal,
        keep_workspaces=flags.keep_workspaces,
        prices=PriceTable(run.prices),
    )


def resolve_judge(config: AcesConfig, flags: JudgeFlags) -> ModelSpec | None:
    """The judge the flags and aces.yml ``judge:`` name, or None; ConfigError when it is named but incomplete."""
    if flags.off:
        return None
    written = config.judge
    settings = ModelSettings(
        provider=pick(flags.provider, written.provider, None),
        model=pick(flags.model, written.model, None),
        base_url=pick(flags.base_url, written.base_url, None),
    )
    if not settings.provider:
        if settings.model or settings.base_url:
            raise config.source.error("a judge needs its provider: set judge.provider or --judge-provider", "judge")
        return None
    provider = one_of(settings.provider, _PROVIDERS, "judge.provider", config)
    model = settings.model or (LOCAL_MODEL_ID if provider == "local" else None)
    if not model:
        raise ConfigError(
            f"judge provider {provider} needs a model id: set judge.model in aces.yml or pass --judge-model",
            path=str(config.path) if config.path else None,
            field="judge.model",
        )
    return ModelSpec(provider=provider, model=model, base_url=settings.base_url)


def trial_runs(config: AcesConfig, flags: RunFlags) -> int:
    """Runs per case and condition: ``--runs``, aces.yml ``trial.runs``, ``run.runs``, else the trial's 3."""
    if not isinstance(flags.runs, NotGiven):
        return flags.runs
    return pick(NOT_GIVEN, config.trial.runs, pick(NOT_GIVEN, config.run.runs, DEFAULT_RUNS))


def _budget_cap(config: AcesConfig, flags: TrialFlags) -> BudgetCap | None:
    """The ex-ante cap per rollout: the flags, else aces.yml ``trial.cap_tokens/cap_usd`` (any flag replaces both)."""
    tokens, dollars = config.trial.cap_tokens, config.trial.cap_usd
    if not isinstance(flags.cap_tokens, NotGiven) or not isinstance(flags.cap_usd, NotGiven):
        tokens = pick(flags.cap_tokens, None, None)
        dollars = pick(flags.cap_usd, None, None)
    return None if tokens is None and dollars is None else BudgetCap(dollars=dollars, tokens=tokens)


def _gate(config: AcesConfig, flags: TrialFlags) -> Bands:
    """aces.yml's bands with the gate flags (``--pass-band``, ``--fail-band``, ``--lift-metric``) laid over them."""
    return resolve_bands(config, GateFlags(flags.lift_metric, flags.pass_band, flags.fail_band), field="--fail-band")


def resolve_trial(config: AcesConfig, flags: TrialFlags) -> TrialConfig:
    """A trial's whole config: ``flags`` over aces.yml (``run:``, ``trial:``, ``gate:``, ``judge:``) over defaults."""
    run = resolve_run(config, flags.run)
    trial = config.trial
    design = TrialDesign(
        runs=trial_runs(config, flags.run),
        seed=run.seed,
        coupling=one_of(pick(flags.coupling, trial.coupling, "independent"), _COUPLINGS, "trial.coupling", config),
        mode=one_of(pick(flags.mode, trial.mode, "isolation"), _MODES, "trial.mode", config),
        against=flags.against,
        aa=flags.aa,
        metadata_only=flags.metadata_only,
        stress=pick(flags.stress, trial.stress, ()),
        sequential=flags.sequential,
        budget_cap=_budget_cap(config, flags),
    )
    gate = _gate(config, flags)
    return TrialConfig(
        run=run,
        design=design,
        gate=gate,
        judge=resolve_judge(config, flags.judge),
        decoys=pick(flags.decoys, trial.decoys or None, None),
        supporting=pick(flags.supporting, trial.supporting, ()),
        evals=flags.evals,
        target_lift=pick(flags.target_lift, trial.target_lift, DEFAULT_TARGET_LIFT),
        reports=flags.reports,
        triggers=TriggerOptions(
            flags.host, trial.min_recall if flags.min_recall is None else flags.min_recall, gate.underpowered_fails
        ),
    )
