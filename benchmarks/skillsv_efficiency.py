"""SkillSV estimator efficiency: error against the exact values as a function of rollouts spent.

Planted games (``benchmarks/skillsv_games.py``) of 8–40 units with known μ-exact values, scored by a
noisy Bernoulli oracle: every request the oracle receives is a fresh rollout (a fresh draw), so an
estimator that asks again pays again and learns something new, and one that reuses a cached score
pays nothing and learns nothing new. Each estimator runs at several K (orders); for each run we
record the rollouts it paid for and its error against the exact values: RMSE over the execution
units of φ_del (net effect) and φ_pad (content value), and the Spearman ρ of the net effects.
Figures are means over ``--seeds`` games per size (each seed draws a new game and a new oracle).

Estimators:

* ``published``: the paper's Algorithm 1 as published: K orders, b = 8, τ = 0.05 (one hit), an
  independent stratified window per order, per-chain anchors, no coalition cache;
* ``permutation``: plain permutation sampling, every coalition scored on its own window (no
  pairing), no truncation, no cache;
* ``ours``: the defaults of ``aces-ci value`` (coalition cache, balanced windows, anchors on the
  whole panel, the paper's one-hit gate at τ = 0.05, b = 8);
* ``ours-…`` / ``ours+…``: ours with one lever switched off or on (the ablations; ``--ablations``).

The headline per size: the rollouts ours needs to reach Algorithm 1's RMSE at each K, interpolated
on ours' RMSE-versus-rollouts curve (log-log), as a share of Algorithm 1's rollouts; and ours'
rollouts against the full two-operator audit 2 · K · (n + 1) · M.

Usage::

    .venv/bin/python benchmarks/skillsv_efficiency.py [--sizes 8,16,24,40] [--orders 4,8,16,32]
        [--seeds 20] [--tasks 80] [--ablations] [--json FILE] [--small]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import itertools

from aces_ci.skillsv import Estimator, EstimatorSettings, published_settings
from benchmarks.skillsv_games import BernoulliOracle, planted_game

Variant = Callable[[int, int], EstimatorSettings]
"""(K, seed) → settings."""

VARIANTS: dict[str, Variant] = {
    "published": lambda k, seed: published_settings(k, seed=seed),
    "permutation": lambda k, seed: replace(published_settings(k, seed=seed), paired=False, tolerance=None),
    "ours": lambda k, seed: EstimatorSettings(orders=k, seed=seed),
}
ABLATIONS: dict[str, Variant] = {
    "ours-no-reuse": lambda k, seed: replace(EstimatorSettings(orders=k, seed=seed), reuse=False),
    "ours+antithetic": lambda k, seed: replace(EstimatorSettings(orders=k, seed=seed), antithetic=True),
    "ours-independent-windows": lambda k, seed: replace(EstimatorSettings(orders=k, seed=seed), windows="independent"),
    "ours+two-hit-gate": lambda k, seed: replace(EstimatorSettings(orders=k, seed=seed), gate_hits=2),
    "ours-no-truncation": lambda k, seed: replace(EstimatorSettings(orders=k, seed=seed), tolerance=None),
    "ours-chain-anchors": lambda k, seed: replace(EstimatorSettings(orders=k, seed=seed), panel_anchors=False),
}


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


@dataclass(frozen=True)
class Regime:
    noise: str
    profile: str


def measure(
    size: int, *, seeds: int, tasks: int, orders: Sequence[int], variants: dict[str, Variant], regime: Regime
) -> dict[str, list[Point]]:
    """Mean metrics per variant and K, over ``seeds`` planted games of ``size`` execution units."""
    sums: dict[str, list[list[float]]] = {name: [[0.0] * 4 for _ in orders] for name in variants}
    for seed in range(seeds):
        game = planted_game(size, seed, tasks, regime.profile)
        exact = game.exact("layer")
        units = sorted(exact["del"])
        truth = {op: np.array([exact[op][u] for u in units]) for op in ("del", "pad")}
        for name, variant in variants.items():
            for position, k in enumerate(orders):
                oracle = BernoulliOracle(game, seed=10_000 + seed, noise=regime.noise)
                run = Estimator(game.structure, game.tasks, oracle, variant(k, seed)).estimate()
                slots = [run.execution.index(game.structure.index[u]) for u in units]
                estimate = {
                    op: np.array([c.marginals[op] for c in run.chains]).mean(axis=0)[slots] for op in ("del", "pad")
                }
                row = sums[name][position]
                row[0] += oracle.calls
                row[1] += math.sqrt(float(np.mean((estimate["del"] - truth["del"]) ** 2)))
                row[2] += math.sqrt(float(np.mean((estimate["pad"] - truth["pad"]) ** 2)))
                row[3] += spearman(estimate["del"], truth["del"])
    return {name: [Point(*(value / seeds for value in row)) for row in rows] for name, rows in sums.items()}


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


def report(
    size: int, *, tasks: int, orders: Sequence[int], results: dict[str, list[Point]], out: list[str], regime: Regime
) -> dict[str, object]:
    out.append(f"\n### {size} units, {tasks} tasks, {regime.noise} noise, {regime.profile} values\n")
    out.append("| estimator | K | rollouts | RMSE φ_del | RMSE φ_pad | Spearman ρ (del) |")
    out.append("|---|---:|---:|---:|---:|---:|")
    for name, curve in results.items():
        for k, point in zip(orders, curve, strict=True):
            out.append(
                f"| {name} | {k} | {point.rollouts:,.0f} | {point.rmse_del:.4f} | {point.rmse_pad:.4f} "
                f"| {point.spearman:.3f} |"
            )
    summary: dict[str, object] = {}
    ours, published = results["ours"], results["published"]
    out.append(
        "\n| K | Algorithm 1 rollouts | ours' rollouts at the same RMSE φ_del (share) | same for φ_pad "
        "| full audit ÷ ours |"
    )
    out.append("|---:|---:|---:|---:|---:|")
    shares = []
    for k, base, mine in zip(orders, published, ours, strict=True):
        need_del = rollouts_to_reach(ours, base.rmse_del, "rmse_del")
        need_pad = rollouts_to_reach(ours, base.rmse_pad, "rmse_pad")
        full_audit = 2 * k * (size + 2) * tasks
        share_del = need_del / base.rollouts if need_del else None
        share_pad = need_pad / base.rollouts if need_pad else None
        shares.append((k, share_del, share_pad))
        shown = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
        out.append(
            f"| {k} | {base.rollouts:,.0f} | {shown(share_del)} | {shown(share_pad)} "
            f"| {full_audit / mine.rollouts:.1f}× |"
        )
    summary["shares"] = shares
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="8,16,24,40")
    parser.add_argument("--orders", default="4,8,16,32")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--tasks", type=int, default=80)
    parser.add_argument("--ablations", action="store_true", help="also run ours with each lever off")
    parser.add_argument("--noise", choices=("fresh", "seeded"), default="fresh")
    parser.add_argument("--profile", choices=("spread", "concentrated"), default="spread")
    parser.add_argument("--small", action="store_true", help="a quick run: 8 units, K 4 and 8, 3 seeds")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    sizes = [8] if args.small else [int(s) for s in args.sizes.split(",")]
    orders = [4, 8] if args.small else [int(k) for k in args.orders.split(",")]
    seeds = 3 if args.small else args.seeds
    tasks = 40 if args.small else args.tasks
    variants = dict(VARIANTS, **(ABLATIONS if args.ablations else {}))
    lines: list[str] = []
    everything: dict[str, object] = {}
    started = time.perf_counter()
    regime = Regime(args.noise, args.profile)
    for size in sizes:
        results = measure(size, seeds=seeds, tasks=tasks, orders=orders, variants=variants, regime=regime)
        summary = report(size, tasks=tasks, orders=orders, results=results, out=lines, regime=regime)
        everything[str(size)] = {
            "points": {name: [vars(p) for p in curve] for name, curve in results.items()},
            **summary,
        }
        print("\n".join(lines), flush=True)
        lines.clear()
    print(f"\n{seeds} seeds per size, {time.perf_counter() - started:.0f} s")
    if args.json is not None:
        document = {"orders": orders, "seeds": seeds, "tasks": tasks, "regime": vars(regime), "sizes": everything}
        args.json.write_text(json.dumps(document, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
