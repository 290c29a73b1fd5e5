"""What the caller gave, setting by setting: the flags of a command (or a Python caller's choices) before resolution.

A setting the caller did not give is :data:`NOT_GIVEN`, distinct from ``None``, because ``None`` is
a value a caller can give ("no dollar cap", "no rollout cache", "the repository's other skills as
decoys") and must then win over aces.yml. The resolvers of :mod:`aces_ci.config._resolve` read these
objects against aces.yml and the defaults; commands build them from argparse at their top, so no
``argparse.Namespace`` travels below ``commands/``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias, TypeVar

if TYPE_CHECKING:
    from ..skillsv import ValueEstimator

T = TypeVar("T")


class NotGiven(enum.Enum):
    """The type of :data:`NOT_GIVEN`: one member, so ``is NOT_GIVEN`` narrows for the type checker."""

    NOT_GIVEN = "not given"

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven.NOT_GIVEN
"""A setting the caller left to aces.yml and the defaults."""

Given: TypeAlias = T | NotGiven
"""A value the caller gave, or :data:`NOT_GIVEN`."""


def given(value: T | None) -> Given[T]:
    """An argparse value as given: argparse leaves an unpassed flag at None, which here means "not given"."""
    return NOT_GIVEN if value is None else value


def given_or(value: Given[T], otherwise: T) -> T:
    """The value given, else ``otherwise`` (what aces.yml or the default says)."""
    return otherwise if isinstance(value, NotGiven) else value


@dataclass(frozen=True)
class RunFlags:
    """The run settings a caller gave (``rollout``/``trial``/``value``/``ci``'s run flags)."""

    provider: Given[str] = NOT_GIVEN
    base_url: Given[str] = NOT_GIVEN
    model: Given[str] = NOT_GIVEN
    harness: Given[str] = NOT_GIVEN
    disclosure: Given[str] = NOT_GIVEN
    runs: Given[int] = NOT_GIVEN
    seed: Given[int] = NOT_GIVEN
    concurrency: Given[int] = NOT_GIVEN
    max_turns: Given[int] = NOT_GIVEN
    timeout_s: Given[float] = NOT_GIVEN
    budget_usd: Given[float | None] = NOT_GIVEN
    """None given: no dollar cap, whatever aces.yml says."""
    max_rollouts: Given[int | None] = NOT_GIVEN
    max_wall_s: Given[float | None] = NOT_GIVEN
    cache_dir: Given[Path | None] = NOT_GIVEN
    """None given: no rollout cache (``--no-cache``)."""
    journal: Path | None = None
    keep_workspaces: bool = False


@dataclass(frozen=True)
class JudgeFlags:
    """The judge a caller named (``--judge-*``, ``--no-judge``) over aces.yml ``judge:``."""

    provider: Given[str] = NOT_GIVEN
    model: Given[str] = NOT_GIVEN
    base_url: Given[str] = NOT_GIVEN
    off: bool = False
    """``--no-judge``: grade without one, even when aces.yml names one."""

    @property
    def named(self) -> tuple[str, ...]:
        """The judge flags given, as the command line spells them (a Python oracle refuses them)."""
        values = {"--judge-provider": self.provider, "--judge-model": self.model, "--judge-base-url": self.base_url}
        return tuple(flag for flag, value in values.items() if value is not NOT_GIVEN)


@dataclass(frozen=True)
class TrialReports:
    """Where a trial writes its reports (None: that report is not written)."""

    json: Path | None = None
    markdown: Path | None = None
    junit: Path | None = None
    html: Path | None = None
    """The self-contained HTML page of the result (the page ``aces-ci report`` renders from its JSON)."""


@dataclass(frozen=True)
class TrialFlags:
    """The protocol, gate and report settings a caller gave a trial (``aces-ci trial``'s flags, or ``ci``'s)."""

    run: RunFlags = field(default_factory=RunFlags)
    judge: JudgeFlags = field(default_factory=JudgeFlags)
    coupling: Given[str] = NOT_GIVEN
    mode: Given[str] = NOT_GIVEN
    against: str | None = None
    aa: bool = False
    metadata_only: bool = False
    stress: Given[tuple[int, ...]] = NOT_GIVEN
    sequential: bool = False
    cap_tokens: Given[int] = NOT_GIVEN
    cap_usd: Given[float] = NOT_GIVEN
    """Either cap given replaces both of aces.yml's (``trial.cap_tokens``/``cap_usd``)."""
    lift_metric: Given[str] = NOT_GIVEN
    pass_band: Given[float] = NOT_GIVEN
    fail_band: Given[float] = NOT_GIVEN
    decoys: Given[tuple[Path, ...] | None] = NOT_GIVEN
    """None given: the repository's other skills (``--decoys`` with no path), over aces.yml ``trial.decoys``."""
    supporting: Given[tuple[Path, ...]] = NOT_GIVEN
    evals: Path | None = None
    target_lift: Given[float] = NOT_GIVEN
    reports: TrialReports = field(default_factory=TrialReports)
    host: str = "claude-code"
    """The trigger trial lists the skills as this host does."""
    min_recall: float | None = None


@dataclass(frozen=True)
class ValueFlags:
    """What a caller gave ``aces-ci value``; the estimator's defaults live here, and the verb's parser reads them."""

    run: RunFlags = field(default_factory=RunFlags)
    judge: JudgeFlags = field(default_factory=JudgeFlags)
    evals: Path | None = None
    oracle: str | None = None
    """None or ``live``: the live agent; ``python:MODULE:FUNC``: a function."""
    metric: str = "accuracy"
    distribution: str = "layer"
    """μ, the order distribution (``--orders``)."""
    chains: int = 12
    window: int = 8
    tolerance: float | None = None
    gate_hits: int = 1
    pooling: str = "pooled"
    antithetic: bool = True
    pairs_per_window: int = 2
    operators: str = "both"
    """``both`` (ρ_del and ρ_pad) or ``del``."""
    exact: bool = False
    holdout: float = 0.0
    max_evaluations: int | None = None
    margin: Given[float] = NOT_GIVEN
    estimator: Given[ValueEstimator] = NOT_GIVEN
    """``--estimator``: the interaction model or the chains alone (aces.yml ``value.estimator``)."""
