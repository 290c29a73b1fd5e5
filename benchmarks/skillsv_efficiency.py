"""SkillSV estimator efficiency: error against the exact values as a function of rollouts spent.

Planted games (``benchmarks/skillsv_games.py``) of 8–40 units with known μ-exact values, scored by a
noisy Bernoulli oracle: every request the oracle receives is a rollout, paid for. Each estimator runs
at several K (orders) on the same games, with the same oracle and seeds; for each run we record the
rollouts it paid for and its error against the exact values: RMSE over the execution units of φ_del
(net effect) and φ_pad (content value), and the Spearman ρ of the net effects. Figures are means
over ``--seeds`` games per size (each seed draws a new game and a new oracle).

Estimators:

* ``published``: the paper's Algorithm 1 as published: K orders, b = 8, τ = 0.05 (one hit), an
  independent stratified window per order, per-chain anchors, no coalition cache;
* ``permutation``: plain permutation sampling, every coalition scored on its own window (no
  pairing), no truncation, no cache;
* ``chain``: the previous defaults of ``aces-ci value`` (Algorithm 1's estimator with the coalition
  cache, balanced windows and anchors on the whole panel);
* ``ours``: the defaults of ``aces-ci value`` (the pooled estimator, ``aces_ci/skillsv/_pooled.py``);
* ``ours-…`` / ``ours+…``: ours with one lever switched off or on (``--ablations``);
* ``ours-window-B[-untruncated]``: ours at window b with K · 8 / b orders (``--windows``).

The headline per size: the rollouts ours needs to reach Algorithm 1's RMSE at each K, interpolated
on ours' RMSE-versus-rollouts curve (log-log), as a share of Algorithm 1's rollouts; and ours'
rollouts against the full two-operator audit 2 · K · (n + 1) · M.

``--coverage``: the share of units whose 95% bootstrap interval (``summarize``, 400 replicates)
holds the exact value, for published and ours. ``--bias``: the pooled estimator's bias, from 2,000
chains on each of a few games with a deterministic oracle (the expected score) and with the noisy
one, against its standard error at K = 16. The *bound* columns: the least noise variance × rollouts
that any unbiased estimator can reach on the game when each score is one noisy coalition score
(Σ_D ‖a(D)‖)² / n over the reachable prefixes D, with a_i(D) the weight of V(D) in φ_i(μ), relative
to Algorithm 1's 2 (n + 1) (its two scores per unit per chain), next to the same figure for the
pooled estimator's weights on chains; the *floor* per K: the least share of Algorithm 1's rollouts
at which an unbiased estimator can match both its RMSEs (:func:`floor_share`). Each variant's slope
on the exact values and its Spearman ρ at Algorithm 1's rollouts tell a pull toward a common value
(which lowers RMSE) from information (which also raises ρ). ``--decompose``: the share of each
variant's error left when the oracle scores with its expectation (no rollout noise).

Usage::

    .venv/bin/python benchmarks/skillsv_efficiency.py [--sizes 8,16,24,40] [--orders 4,8,16,32]
        [--seeds 20] [--tasks 80] [--ablations] [--windows 1,2,4,8] [--only A,B] [--coverage]
        [--decompose] [--bias] [--noise fresh|seeded|expected] [--profile spread|concentrated]
        [--json FILE] [--small]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aces_ci.skillsv import (
    Estimator,
    EstimatorSettings,
    ExactGame,
    OrderOdds,
    TooLargeForExact,
    published_settings,
    summarize,
    unit_samples,
)
from benchmarks.skillsv_games import BernoulliOracle, PlantedGame, planted_game


@dataclass(frozen=True)
class Variant:
    settings: Callable[[int, int], EstimatorSettings]
    """(K, seed) → settings."""
    shrinkage: float | None = None
    """The pooled surrogate's shrinkage; None: the default."""
    james_stein: bool = False
    """Shrink the unit values themselves toward their mean (a biased lever, measured, not in the product)."""


PAPER_TOLERANCE = 0.05
"""τ of Algorithm 1; ours leaves truncation off (it pulls values toward 0)."""


def _ours(k: int, seed: int, /, **changes: object) -> EstimatorSettings:
    return replace(EstimatorSettings(orders=k, seed=seed), **changes)  # type: ignore[arg-type]


VARIANTS: dict[str, Variant] = {
    "published": Variant(lambda k, seed: published_settings(k, seed=seed)),
    "permutation": Variant(lambda k, seed: replace(published_settings(k, seed=seed), paired=False, tolerance=None)),
    "chain": Variant(lambda k, seed: _ours(k, seed, pooling="chain", antithetic=False, pairs_per_window=1)),
    "ours": Variant(_ours),
}
ABLATIONS: dict[str, Variant] = {
    "ours-antithetic": Variant(lambda k, seed: _ours(k, seed, antithetic=False)),
    "ours-shared-windows": Variant(lambda k, seed: _ours(k, seed, pairs_per_window=1)),
    "ours+truncation": Variant(lambda k, seed: _ours(k, seed, tolerance=PAPER_TOLERANCE)),
    "ours-shrinkage": Variant(_ours, shrinkage=0.0),
    "ours+shrinkage-3": Variant(_ours, shrinkage=3.0),
    "ours-reuse": Variant(lambda k, seed: _ours(k, seed, reuse=False)),
    "ours-panel-anchors": Variant(lambda k, seed: _ours(k, seed, panel_anchors=False)),
    "chain+antithetic": Variant(lambda k, seed: _ours(k, seed, pooling="chain", pairs_per_window=1)),
    "ours+james-stein": Variant(_ours, james_stein=True),
    "ours+stratified": Variant(lambda k, seed: _ours(k, seed, stratified=True)),
}


def window_variants(windows: Sequence[int]) -> dict[str, Variant]:
    """Ours at window b with K · 8 / b orders (the rollouts of ours at K), truncated and not.

    At fixed rollouts K · b, rollout noise depends only on K · b while order variance falls with K,
    so a smaller window with more orders trades nothing but the truncation gate, which compares a
    b-case window mean with the full skill's and so fires on noise more often as b shrinks.
    """
    base = EstimatorSettings().window
    out: dict[str, Variant] = {}
    for b in windows:
        factor = base / b

        def settings(k: int, seed: int, b: int = b, factor: float = factor, **changes: object) -> EstimatorSettings:
            return _ours(max(2, round(k * factor)), seed, window=b, **changes)

        if b != base:
            out[f"ours-window-{b}"] = Variant(partial(settings, tolerance=PAPER_TOLERANCE))
        out[f"ours-window-{b}-untruncated"] = Variant(partial(settings, tolerance=None))
    return out


NO_COVERAGE = ("permutation", "chain")
"""Variants whose bootstrap intervals ``--coverage`` does not check (not what ``aces-ci value`` reports)."""


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's ρ with average ranks for ties."""

    def ranks(values: Sequence[float]) -> np.ndarray:
        array = np.asarray(values, dtype=float)
        order = np.argsort(array, kind="stable")
        out = np.empty(len(array))
        out[order] = np.arange(len(array), dtype=float)
        for value in np.unique(array):
            tied = array == value
            out[tied] = out[tied].mean()
        return out

    ra, rb = ranks(a), ranks(b)
    if ra.std() == 0 or rb.std() == 0:
        return 0.0
    return float(np.corrcoef(ra, rb)[0, 1])


@dataclass
class Point:
    rollouts: float
    rmse_del: float
    rmse_pad: float
    spearman: float
    mse_del: float
    mse_pad: float
    slope: float
    """Least-squares slope of the φ_del estimates on the exact values: 1 for an estimator that is
    unbiased in scale; below 1, a pull toward a common value (what lowers RMSE without information)."""
    coverage: float | None = None


@dataclass(frozen=True)
class Regime:
    noise: str
    profile: str


def james_stein(samples: np.ndarray) -> np.ndarray:
    """Positive-part James–Stein of the units' means toward their grand mean.

    The noise of a unit's mean is read from the spread of its chains taken in windows of four
    (two antithetic pairs share a window, so four chains are the independent draw). Biased toward
    the mean by construction: what it buys in RMSE is what an estimator that gives up unbiasedness
    could reach, not what ``aces-ci value`` reports.
    """
    means = samples.mean(axis=0)
    groups = samples.shape[0] // 4
    if groups < 2 or len(means) < 4:
        return means
    grouped = samples[: groups * 4].reshape(groups, 4, -1).mean(axis=1)
    noise = float(np.mean(grouped.var(axis=0, ddof=1))) / groups
    center = float(means.mean())
    spread = float(((means - center) ** 2).sum())
    factor = max(0.0, 1.0 - (len(means) - 3) * noise / spread) if spread > 0 else 0.0
    return center + factor * (means - center)


def _estimate(run: object, variant: Variant, odds: OrderOdds) -> dict[str, np.ndarray]:
    shrinkage = {} if variant.shrinkage is None else {"shrinkage": variant.shrinkage}
    samples = {op: unit_samples(run, op, odds, **shrinkage).values for op in ("del", "pad")}  # type: ignore[arg-type]
    if variant.james_stein:
        return {op: james_stein(values) for op, values in samples.items()}
    return {op: values.mean(axis=0) for op, values in samples.items()}


def _coverage(run: object, units: list[str], truth: dict[str, np.ndarray]) -> float:
    valuation = summarize(run, replicates=400)  # type: ignore[arg-type]
    by_unit = {u.unit: u for u in valuation.units}
    hits = []
    for op, field in (("del", "net_effect"), ("pad", "content_value")):
        for unit, value in zip(units, truth[op], strict=True):
            estimate = getattr(by_unit[unit], field)
            if estimate is not None and estimate.ci is not None:
                hits.append(estimate.ci.lo - 1e-12 <= value <= estimate.ci.hi + 1e-12)
    return float(np.mean(hits))


def measure(
    size: int,
    *,
    seeds: int,
    tasks: int,
    orders: Sequence[int],
    variants: dict[str, Variant],
    regime: Regime,
    coverage: bool = False,
) -> dict[str, list[Point]]:
    """Mean metrics per variant and K, over ``seeds`` planted games of ``size`` execution units."""
    sums: dict[str, list[list[float]]] = {name: [[0.0] * 8 for _ in orders] for name in variants}
    for seed in range(seeds):
        game = planted_game(size, seed, tasks, regime.profile)
        exact = game.exact("layer")
        units = sorted(exact["del"])
        truth = {op: np.array([exact[op][u] for u in units]) for op in ("del", "pad")}
        odds = OrderOdds(game.structure, "layer")
        for name, variant in variants.items():
            for position, k in enumerate(orders):
                oracle = BernoulliOracle(game, seed=10_000 + seed, noise=regime.noise)
                run = Estimator(game.structure, game.tasks, oracle, variant.settings(k, seed)).estimate()
                slots = [run.execution.index(game.structure.index[u]) for u in units]
                estimate = {op: values[slots] for op, values in _estimate(run, variant, odds).items()}
                row = sums[name][position]
                squares = {op: float(np.mean((estimate[op] - truth[op]) ** 2)) for op in ("del", "pad")}
                row[0] += oracle.calls
                row[1] += math.sqrt(squares["del"])
                row[2] += math.sqrt(squares["pad"])
                row[3] += spearman(estimate["del"], truth["del"])
                row[4] += squares["del"]
                row[5] += squares["pad"]
                row[6] += float(np.polyfit(truth["del"], estimate["del"], 1)[0])
                if coverage and name not in NO_COVERAGE:
                    row[7] += _coverage(run, units, truth)
    out: dict[str, list[Point]] = {}
    for name, rows in sums.items():
        covered = coverage and name not in NO_COVERAGE
        out[name] = [Point(*(value / seeds for value in row[:7]), row[7] / seeds if covered else None) for row in rows]
    return out


def rollouts_to_reach(curve: Sequence[Point], target: float, metric: str = "rmse_del") -> float | None:
    """Rollouts at which ``curve`` reaches RMSE ``target``, log-log interpolated; None outside the curve."""
    points = sorted((p.rollouts, getattr(p, metric)) for p in curve)
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        if y0 >= target >= y1 and y0 != y1:
            t = (math.log(y0) - math.log(target)) / (math.log(y0) - math.log(y1))
            return math.exp(math.log(x0) + t * (math.log(x1) - math.log(x0)))
    if points and points[0][1] <= target:
        return points[0][0] * (points[0][1] / target) ** 2  # below the curve's first point: 1/√R extrapolation
    return None


@dataclass(frozen=True)
class Bound:
    """What rollout noise alone costs on one game (see :func:`information_bound`)."""

    bound: float
    """Least noise variance × rollouts per unit of any unbiased estimator, ÷ Algorithm 1's 2 (n + 1)."""
    pooled: float
    """The same for the pooled weights on μ-chains (every prefix of a chain scored on the same cases)."""
    floor_del: float
    """(Σ_D ‖a(D)‖ σ_D)² / n under ρ_del, σ_D the coalition's Bernoulli standard deviation averaged
    over cases: the least mean squared error × rollouts that any unbiased estimator can reach."""
    floor_pad: float
    """The same under ρ_pad, with V(N) (the same bytes as under ρ_del) left out: counted once."""


def information_bound(game: PlantedGame) -> Bound | None:
    """What any unbiased estimator must pay for rollout noise on ``game``; None if too many prefixes.

    φ_i(μ) = Σ_D a_i(D) V(D) over the prefixes D that μ reaches, a_i(D) = q(D) (P(last = i | D) −
    P(next = i | D)), q(D) the chance an order passes through D. An estimator unbiased on every game
    must put expected weight a_i(D) on its scores of D; m_{D,t} scores of D on case t, each one
    rollout with Bernoulli variance σ_{D,t}², give Σ_i Var ≥ Σ_{D,t} ‖a(D)‖² σ_{D,t}² / (M² m_{D,t}),
    least at m_{D,t} ∝ ‖a(D)‖ σ_{D,t} (Cauchy–Schwarz): (Σ_D ‖a(D)‖ σ_D)² / R for R rollouts, σ_D
    the mean of σ_{D,t} over the M cases. Case difficulty is taken as cancelled for free (paired
    designs do cancel it) and every case as scored, so the bound is on the Bernoulli noise alone
    (Cramér–Rao gives the same for a nonlinear unbiased estimator on a design fixed in advance).
    ``bound`` and ``pooled`` take σ_D constant, as ratios to Algorithm 1's two scores per unit per
    chain; ``floor_*`` are absolute, for comparing with a measured error.
    """
    structure = game.structure
    try:
        exact = ExactGame(structure, "layer")
    except TooLargeForExact:
        return None
    odds = OrderOdds(structure, "layer")
    trigger = structure.index["m"]
    execution = [p for p in range(structure.size) if p != trigger]
    n = len(execution)
    bound = pooled = 0.0
    floors = {"del": 0.0, "pad": 0.0}
    for state, reach in exact.probability.items():
        if not state >> trigger & 1:
            continue
        a = np.zeros(structure.size)
        for player, p in odds.preceding(state).items():
            a[player] += reach * p
        for player, p in odds.following(state).items():
            a[player] -= reach * p
        norm2 = float((a[execution] ** 2).sum())
        if norm2 == 0.0:
            continue
        bound += math.sqrt(norm2)
        pooled += norm2 / reach
        members = frozenset(structure.members(state))
        for op in floors:
            if op == "pad" and state == structure.full:
                continue
            p_case = game.probabilities(members, op)
            floors[op] += math.sqrt(norm2) * float(np.mean(np.sqrt(p_case * (1 - p_case))))
    algorithm_1 = 2 * (n + 1)
    return Bound(
        bound**2 / n / algorithm_1, pooled * (n + 1) / n / algorithm_1, floors["del"] ** 2 / n, floors["pad"] ** 2 / n
    )


def floor_share(floor: Bound, published: Point) -> float:
    """The least share of Algorithm 1's rollouts at which an unbiased estimator matches both its RMSEs.

    Matching φ_del's mean squared error needs floor_del / MSE_del rollouts on ρ_del and φ_pad's
    floor_pad / MSE_pad on ρ_pad (V(N) counted once); any order variance or bias only adds.
    """
    return (floor.floor_del / published.mse_del + floor.floor_pad / published.mse_pad) / published.rollouts


def report(
    size: int,
    *,
    tasks: int,
    orders: Sequence[int],
    results: dict[str, list[Point]],
    out: list[str],
    regime: Regime,
    floor: Bound | None = None,
) -> dict[str, object]:
    out.append(f"\n### {size} units, {tasks} tasks, {regime.noise} noise, {regime.profile} values\n")
    covered = any(p.coverage is not None for curve in results.values() for p in curve)
    header = "| estimator | K | rollouts | RMSE φ_del | RMSE φ_pad | Spearman ρ (del) | slope on exact (del) |"
    out.append(header + (" 95% CI coverage |" if covered else ""))
    out.append("|---|---:|---:|---:|---:|---:|---:|" + ("---:|" if covered else ""))
    for name, curve in results.items():
        for k, point in zip(orders, curve, strict=True):
            cell = "" if not covered else (" - |" if point.coverage is None else f" {point.coverage:.3f} |")
            out.append(
                f"| {name} | {k} | {point.rollouts:,.0f} | {point.rmse_del:.4f} | {point.rmse_pad:.4f} "
                f"| {point.spearman:.3f} | {point.slope:.2f} |{cell}"
            )
    summary: dict[str, object] = {}
    ours, published = results["ours"], results["published"]
    out.append(
        "\n| K | Algorithm 1 rollouts | ours' rollouts at the same RMSE φ_del (share) | same for φ_pad "
        "| full audit ÷ ours | floor for any unbiased estimator (both) |"
    )
    out.append("|---:|---:|---:|---:|---:|---:|")
    shares = []
    floors = []
    for k, base, mine in zip(orders, published, ours, strict=True):
        need_del = rollouts_to_reach(ours, base.rmse_del, "rmse_del")
        need_pad = rollouts_to_reach(ours, base.rmse_pad, "rmse_pad")
        full_audit = 2 * k * (size + 2) * tasks
        share_del = need_del / base.rollouts if need_del else None
        share_pad = need_pad / base.rollouts if need_pad else None
        shares.append((k, share_del, share_pad))
        least = floor_share(floor, base) if floor is not None else None
        floors.append((k, least))
        shown = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
        out.append(
            f"| {k} | {base.rollouts:,.0f} | {shown(share_del)} | {shown(share_pad)} "
            f"| {full_audit / mine.rollouts:.1f}× | {shown(least)} |"
        )
    summary["shares"] = shares
    summary["floor_shares"] = floors
    others = [name for name in results if name not in VARIANTS]
    if others:
        out.append(
            "\nOther variants, rollouts to reach Algorithm 1's RMSE φ_del at each K, as a share of its rollouts:\n"
        )
        out.append("| variant | " + " | ".join(f"K = {k}" for k in orders) + " |")
        out.append("|---|" + "---:|" * len(orders))
        for name in others:
            cells = []
            for base in published:
                need = rollouts_to_reach(results[name], base.rmse_del, "rmse_del")
                cells.append("-" if need is None else f"{need / base.rollouts:.2f}")
            out.append(f"| {name} | " + " | ".join(cells) + " |")
    out.append(
        "\nSpearman ρ (φ_del) at Algorithm 1's rollouts of each K (log-interpolated on each curve; "
        "RMSE rewards a pull toward zero, ρ at equal cost does not):\n"
    )
    out.append("| estimator | " + " | ".join(f"K = {k}" for k in orders) + " |")
    out.append("|---|" + "---:|" * len(orders))
    ranks: dict[str, list[float | None]] = {}
    for name, curve in results.items():
        ranks[name] = [value_at(curve, base.rollouts, "spearman") for base in published]
        out.append(f"| {name} | " + " | ".join("-" if v is None else f"{v:.3f}" for v in ranks[name]) + " |")
    summary["spearman_at_published_rollouts"] = ranks
    return summary


def value_at(curve: Sequence[Point], rollouts: float, metric: str) -> float | None:
    """``metric`` of ``curve`` at ``rollouts``, linear in log rollouts; None outside the curve."""
    points = sorted((p.rollouts, getattr(p, metric)) for p in curve)
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        if x0 <= rollouts <= x1 and x0 != x1:
            t = (math.log(rollouts) - math.log(x0)) / (math.log(x1) - math.log(x0))
            return float(y0 + t * (y1 - y0))
    return None


def bounds(size: int, *, seeds: int, tasks: int, profile: str) -> Bound | None:
    """:func:`information_bound` averaged over the games ``measure`` plays (the same seeds)."""
    figures = [f for f in (information_bound(planted_game(size, seed, tasks, profile)) for seed in range(seeds)) if f]
    if not figures:
        return None
    columns = zip(*((f.bound, f.pooled, f.floor_del, f.floor_pad) for f in figures), strict=True)
    return Bound(*(float(np.mean(column)) for column in columns))


def decomposition(
    expected: dict[str, list[Point]], noisy: dict[str, list[Point]], orders: Sequence[int], out: list[str]
) -> dict[str, list[float]]:
    """Share of each variant's mean squared error (φ_del) left when the oracle has no rollout noise."""
    out.append("\n| variant | " + " | ".join(f"K = {k}" for k in orders) + " |")
    out.append("|---|" + "---:|" * len(orders))
    shares: dict[str, list[float]] = {}
    for name, curve in noisy.items():
        shares[name] = [e.mse_del / n.mse_del for e, n in zip(expected[name], curve, strict=True)]
        out.append(f"| {name} | " + " | ".join(f"{share:.3f}" for share in shares[name]) + " |")
    return shares


def bias(sizes: Sequence[int], *, tasks: int, games: int, out: list[str]) -> dict[str, object]:
    """The pooled estimator's bias: 2,000 chains per game, against its standard error at K = 16."""

    chains = 2000
    document: dict[str, object] = {}
    out.append("\n| units | oracle | τ | RMS bias over units (φ_del) | its standard error | sd of ours at K = 16 |")
    out.append("|---:|---|---|---:|---:|---:|")
    for size in sizes:
        for oracle_name in ("expected", "fresh"):
            for tolerance in (None, 0.05):
                squares, errors, spread = [], [], []
                for seed in range(games):
                    game = planted_game(size, seed, tasks)
                    exact = game.exact("layer")
                    oracle = (
                        BernoulliOracle(game, seed, noise="expected")
                        if oracle_name == "expected"
                        else BernoulliOracle(game, 50 + seed)
                    )
                    settings = EstimatorSettings(orders=chains, seed=seed, tolerance=tolerance)
                    run = Estimator(game.structure, game.tasks, oracle, settings).estimate()
                    samples = unit_samples(run, "del").values
                    truth = np.array([exact["del"][game.structure.players[p]] for p in run.execution])
                    pairs = samples.reshape(chains // 2, 2, -1).mean(axis=1)  # antithetic pairs: one sample each
                    se = pairs.std(axis=0) / math.sqrt(len(pairs))
                    squares.append(float(np.mean((samples.mean(axis=0) - truth) ** 2)))
                    errors.append(float(np.mean(se**2)))
                    spread.append(float(np.mean(pairs.std(axis=0) ** 2 / 8)))  # 8 pairs = K 16
                rms, se_rms, k16 = (math.sqrt(float(np.mean(v))) for v in (squares, errors, spread))
                shown = "off" if tolerance is None else f"{tolerance}"
                out.append(f"| {size} | {oracle_name} | {shown} | {rms:.4f} | {se_rms:.4f} | {k16:.4f} |")
                document[f"{size}/{oracle_name}/{shown}"] = {"rms_bias": rms, "standard_error": se_rms, "sd_k16": k16}
    return document


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="8,16,24,40")
    parser.add_argument("--orders", default="4,8,16,32")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--tasks", type=int, default=80)
    parser.add_argument("--ablations", action="store_true", help="also run ours with each lever off or on")
    parser.add_argument("--only", help="comma-separated variants to run (published and ours are always run)")
    parser.add_argument(
        "--coverage", action="store_true", help="bootstrap CI coverage of every variant but permutation and chain"
    )
    parser.add_argument(
        "--windows", help="comma-separated window sizes b: ours at b with K · 8 / b orders, truncated and not"
    )
    parser.add_argument(
        "--decompose", action="store_true", help="also run without rollout noise: the error's order/window part"
    )
    parser.add_argument("--bias", action="store_true", help="the pooled estimator's bias on 2,000 chains")
    parser.add_argument("--noise", choices=("fresh", "seeded", "expected"), default="fresh")
    parser.add_argument("--profile", choices=("spread", "concentrated"), default="spread")
    parser.add_argument("--small", action="store_true", help="a quick run: 8 units, K 4 and 8, 3 seeds")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    sizes = [8] if args.small else [int(s) for s in args.sizes.split(",")]
    orders = [4, 8] if args.small else [int(k) for k in args.orders.split(",")]
    seeds = 3 if args.small else args.seeds
    tasks = 40 if args.small else args.tasks
    variants = dict(VARIANTS, **(ABLATIONS if args.ablations else {}))
    if args.windows:
        variants.update(window_variants([int(b) for b in args.windows.split(",")]))
    if args.only:
        chosen = {"published", "ours", *args.only.split(",")}
        variants = {name: variant for name, variant in variants.items() if name in chosen}
    lines: list[str] = []
    everything: dict[str, object] = {}
    started = time.perf_counter()
    regime = Regime(args.noise, args.profile)
    for size in sizes:
        results = measure(
            size, seeds=seeds, tasks=tasks, orders=orders, variants=variants, regime=regime, coverage=args.coverage
        )
        bound = bounds(size, seeds=seeds, tasks=tasks, profile=args.profile)
        summary = report(size, tasks=tasks, orders=orders, results=results, out=lines, regime=regime, floor=bound)
        if bound is not None:
            lines.append(
                f"\nNoise variance × rollouts per unit, ÷ Algorithm 1's: bound for any unbiased estimator "
                f"{bound.bound:.3f}; the pooled weights on chains {bound.pooled:.3f} (mean of {seeds} games)"
            )
        if args.decompose:
            noiseless = Regime("expected", args.profile)
            expected = measure(size, seeds=seeds, tasks=tasks, orders=orders, variants=variants, regime=noiseless)
            lines.append(
                "\nShare of the mean squared error of φ_del left without rollout noise (scores = expectations):"
            )
            summary["decomposition"] = decomposition(expected, results, orders, lines)
        everything[str(size)] = {
            "points": {name: [vars(p) for p in curve] for name, curve in results.items()},
            "bound": None if bound is None else vars(bound),
            **summary,
        }
        print("\n".join(lines), flush=True)
        lines.clear()
    document: dict[str, object] = {
        "orders": orders,
        "seeds": seeds,
        "tasks": tasks,
        "regime": vars(regime),
        "sizes": everything,
    }
    if args.bias:
        document["bias"] = bias(sizes, tasks=tasks, games=3 if args.small else 5, out=lines)
        print("\n".join(lines), flush=True)
    print(f"\n{seeds} seeds per size, {time.perf_counter() - started:.0f} s")
    if args.json is not None:
        args.json.write_text(json.dumps(document, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
