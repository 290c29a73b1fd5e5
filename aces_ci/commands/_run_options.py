"""The flags shared by every verb that runs rollouts (``rollout``, ``trial``, ``value``, ``ci``) and by the judge.

Declared here, read into :class:`~aces_ci.config.RunFlags`/:class:`~aces_ci.config.JudgeFlags` (every
flag not passed is :data:`~aces_ci.config.NOT_GIVEN`), and resolved against aces.yml and the defaults
by :mod:`aces_ci.config`, in one place. The argparse types of numeric flags live here too (a count, a
lift band, a positive cap, ``--stress``'s levels), so a bad number is a usage error (exit 2) naming its flag.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from ..agents import DISCLOSURES, HARNESSES
from ..config import NOT_GIVEN, JudgeFlags, RunFlags, given
from ..models import PROVIDERS


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


def band(text: str) -> float:
    """An argparse type: a lift band, a number in [-1, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not -1 <= value <= 1:
        raise argparse.ArgumentTypeError(f"a lift band lies in [-1, 1], got {value}")
    return value


def positive(parse: Callable[[str], float]) -> Callable[[str], Any]:
    """An argparse type: a finite number above 0."""

    def convert(text: str) -> Any:
        try:
            value = parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
        return value

    return convert


def stress_levels(text: str) -> tuple[int, ...]:
    """An argparse type: ``--stress``'s numbers of visible decoys, e.g. ``1,5,20``."""
    try:
        levels = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--stress takes numbers separated by commas, e.g. 1,5,20; got {text!r}"
        ) from None
    if not levels:
        raise argparse.ArgumentTypeError("--stress needs at least one number of visible decoys")
    return levels


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
    """Declare the run flags on ``parser``; every default is None (not given), so aces.yml can fill the gaps.

    ``without`` names flags the verb declares itself with another meaning (``ci``'s ``--cache-dir``
    is the scan's result cache); the verb then hands its own rollout-cache flags to :func:`run_flags`.
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


def run_flags(args: argparse.Namespace, cache_dir: Path | None, no_cache: bool) -> RunFlags:
    """The run flags given on the command line; ``cache_dir``/``no_cache`` are the verb's rollout-cache flags
    (``ci`` names them ``--rollout-cache``/``--no-rollout-cache``: its ``--cache-dir`` is the scan's)."""
    return RunFlags(
        provider=given(args.provider),
        base_url=given(args.base_url),
        model=given(args.model),
        harness=given(args.harness),
        disclosure=given(args.disclosure),
        runs=given(args.runs),
        seed=given(args.seed),
        concurrency=given(args.concurrency),
        max_turns=given(args.max_turns),
        timeout_s=given(args.timeout),
        budget_usd=given(args.budget_usd),
        max_rollouts=given(args.max_rollouts),
        max_wall_s=given(args.max_wall),
        cache_dir=None if no_cache else given(cache_dir),
        journal=args.journal,
        keep_workspaces=bool(args.keep_workspaces),
    )


def add_judge_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("judge (override aces.yml judge:)")
    group.add_argument("--judge-provider", choices=PROVIDERS, help="provider of the judge model")
    group.add_argument("--judge-model", metavar="ID", help="judge model id")
    group.add_argument("--judge-base-url", metavar="URL", help="judge API endpoint")
    group.add_argument("--no-judge", action="store_true", help="grade without a judge, even when aces.yml names one")


def judge_flags(args: argparse.Namespace) -> JudgeFlags:
    """The ``--judge-*`` flags given (an empty value counts as not given, as it always did)."""
    return JudgeFlags(
        provider=args.judge_provider or NOT_GIVEN,
        model=args.judge_model or NOT_GIVEN,
        base_url=args.judge_base_url or NOT_GIVEN,
        off=bool(args.no_judge),
    )
