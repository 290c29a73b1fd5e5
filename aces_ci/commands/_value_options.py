"""The valuation's flags, shared by ``value`` and ``compress``.

``compress`` values the skill on its attribution cases exactly as ``value`` values it, so the flags that
choose the cases, the oracle and the estimator are declared once, with one set of defaults
(:class:`aces_ci.config.ValueFlags`), and read back into one :class:`~aces_ci.config.ValueFlags`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..config import ValueFlags, given
from ..skillsv import ORDER_DISTRIBUTIONS
from ._run_options import _COUNT, _number, judge_flags, run_flags

DEFAULTS = ValueFlags()
"""The estimator's defaults, which the parser shows and uses (one place: :class:`aces_ci.config.ValueFlags`)."""
FRACTION = _number(float, 0)


def add_valuation_options(parser: argparse.ArgumentParser) -> None:
    """The cases, the oracle and the estimator's design: what a valuation needs whichever verb runs it."""
    parser.add_argument(
        "--evals",
        type=Path,
        metavar="FILE",
        help="the cases: any dataset `trial --evals` reads (default: the skill's evals/, as a trial reads it)",
    )
    parser.add_argument(
        "--oracle",
        metavar="SPEC",
        help="how a rendered skill is scored on a case: live (default) or python:MODULE:FUNC",
    )
    parser.add_argument(
        "--metric",
        default=DEFAULTS.metric,
        metavar="NAME",
        help="the live agent's score of a case: a metric of the grading seam, or composite / outcome (the means "
        "of the rollout-level metrics the case is graded on; default accuracy)",
    )
    parser.add_argument(
        "--orders", choices=ORDER_DISTRIBUTIONS, default=DEFAULTS.distribution, help="μ: default layer (the paper's)"
    )
    parser.add_argument(
        "-K", "--chains", type=_COUNT, default=DEFAULTS.chains, metavar="K", help="orders to sample (default 12)"
    )
    parser.add_argument(
        "--window", type=_COUNT, default=DEFAULTS.window, metavar="B", help="cases per order's window (default 8)"
    )
    parser.add_argument(
        "--pooling",
        choices=("pooled", "chain"),
        default=DEFAULTS.pooling,
        help="pooled: every scored prefix informs every unit (default); chain: Algorithm 1's adjacent differences",
    )
    parser.add_argument(
        "--estimator",
        choices=("interaction", "chain"),
        help="net effects from the pairwise interaction model or the chains alone (default: aces.yml value.estimator)",
    )
    parser.add_argument("--operators", choices=("both", "del"), default=DEFAULTS.operators, help="del: deletion only")
    parser.add_argument(
        "--margin",
        type=FRACTION,
        metavar="DELTA",
        help=(
            "δ: a net effect an equivalence test puts inside ±δ (its 90%% interval) is negligible "
            "(default: aces.yml value.margin, else 0.05)"
        ),
    )


def valuation_flags(args: argparse.Namespace) -> ValueFlags:
    """The flags :func:`add_valuation_options` declared (and the run and judge flags), as given; a verb with
    more estimator flags (``value``) replaces its own fields on top."""
    return ValueFlags(
        run=run_flags(args, args.cache_dir, args.no_cache),
        judge=judge_flags(args),
        evals=args.evals,
        oracle=args.oracle,
        metric=args.metric,
        distribution=args.orders,
        chains=args.chains,
        window=args.window,
        pooling=args.pooling,
        operators=args.operators,
        margin=given(args.margin),
        estimator=given(args.estimator),
    )
