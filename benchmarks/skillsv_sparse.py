"""Why the budgeted design is half-coalitions with a sparse, cross-fitted model: an ablation on planted games.

For each planted game (``decidable_game``) this draws N ρ_del rows twice — prefixes of μ-orders cut at a
uniform position (round five's design) and half-coalitions (each unit in with probability ½, in
complementary pairs, closed under the requirements: round six's) — scores them on the Bernoulli oracle,
and fits each three ways: **ols** (every pair, the fixed ridge, the two-way sandwich: round five's
model), **sparse** (automatic relevance determination on the pairs, then the sandwich as if its ridge
were fixed — fitted and judged on the same rows) and **cross-fitted** (``_cross_fitted``: each half
with the penalty the other half learned; ``aces-ci value``'s model under a budget). It prints per cell
the median sd of the values, the sd of the standardised errors (value − exact) / sd (1 when the
interval is honest), coverage, right keep / cut calls (|φ| ≥ 0.05), dead → negligible and severe calls.

    python benchmarks/skillsv_sparse.py --sizes 16,24 --seeds 10
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy import stats

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aces_ci.skillsv import DEFAULT_MARGIN, Estimator, EstimatorSettings
from aces_ci.skillsv._estimate import half_coalitions
from aces_ci.skillsv._interaction import (
    _cross_fitted,
    _Design,
    _fit,
    _moments,
    _relevance,
    _Rows,
    _sandwich_sd,
    value_matrix,
)
from aces_ci.skillsv._orders import OrderSampler
from benchmarks.skillsv_games import BernoulliOracle, PlantedGame, decidable_game

FITS = ("ols", "sparse", "cross-fitted")


def draw_rows(game: PlantedGame, execution: Sequence[int], design: str, count: int, seed: int) -> _Rows:
    """``count`` (coalition, case) rows of one design, scored by fresh Bernoulli draws."""
    structure = game.structure
    rng = np.random.default_rng(seed)
    sampler = OrderSampler(structure, "layer")
    masks: list[int] = []
    while len(masks) < count:
        if design == "half-coalitions":
            masks += half_coalitions(structure, execution, structure.index["m"], rng)
        else:
            order = sampler.order(rng.random(structure.draws))
            masks.append(sum(1 << p for p in order[: int(rng.integers(1, len(order) + 1))]))
    tasks = rng.permutation(np.arange(count) % len(game.base))
    scores = np.array(
        [
            float(rng.random() < game.probability(structure.members(mask), "del", int(task)))
            for mask, task in zip(masks[:count], tasks, strict=True)
        ]
    )
    return _Rows(np.array(masks[:count], dtype=np.int64), tasks, scores, np.full(count, 2), np.zeros(count, dtype=bool))


def fits(game: PlantedGame, design_name: str, rows_share: float, seed: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(values, sds) per fit, on one design's rows for one game."""
    budget = 250 * (game.structure.size - 1)
    run = Estimator(
        game.structure, game.tasks, BernoulliOracle(game, seed), EstimatorSettings(orders=4, seed=seed)
    ).estimate()
    design = _Design(run.execution, len(run.tasks))
    rows = draw_rows(game, run.execution, design_name, int(rows_share * budget), 1000 + seed)
    matrix = value_matrix(run, design)
    every = np.ones(len(rows.scores), dtype=bool)
    beta, factor = _fit(design, rows, every)
    out = {"ols": (matrix @ beta, _sandwich_sd(design, rows, beta, factor, matrix))}
    ridge = _relevance(design, _moments(design, rows, every))[0]
    beta, factor = _fit(design, rows, every, ridge)
    out["sparse"] = (matrix @ beta, _sandwich_sd(design, rows, beta, factor, matrix))
    values, sds, _ = _cross_fitted(run, design, rows, matrix, seed)  # the units' rows, then the pairs tested
    out["cross-fitted"] = (values[: len(matrix)], sds[: len(matrix)])
    return out


@dataclass
class Cell:
    """One (size, design, fit) cell's tallies over seeds."""

    z: list[float] = field(default_factory=list)
    sd: list[float] = field(default_factory=list)
    covered: int = 0
    units: int = 0
    effective: int = 0
    right: int = 0
    dead: int = 0
    negligible: int = 0
    severe: int = 0

    def add(self, game: PlantedGame, name: str, value: float, sd: float, t: float) -> None:
        truth = game.exact("layer")["del"][name]
        lo, hi = value - t * sd, value + t * sd
        negligible = lo > -DEFAULT_MARGIN and hi < DEFAULT_MARGIN
        cut, keep = negligible or hi < 0, not negligible and lo > 0
        self.z.append((value - truth) / sd)
        self.sd.append(sd)
        self.covered += lo <= truth <= hi
        self.units += 1
        self.severe += (keep and truth < -DEFAULT_MARGIN) or (cut and truth > DEFAULT_MARGIN)
        if abs(truth) >= 0.05:
            self.effective += 1
            self.right += (truth > 0 and keep) or (truth < 0 and cut)
        if game.roles.get(name) == "dead":
            self.dead += 1
            self.negligible += negligible

    def row(self, head: str, seeds: int) -> str:
        right = f"{self.right}/{self.effective} ({self.right / self.effective:.0%})"
        dead = f"{self.negligible}/{self.dead} ({self.negligible / self.dead:.0%})"
        return (
            f"| {head} | {np.median(self.sd):.4f} | {np.std(self.z):.2f} | {self.covered / self.units:.3f} "
            f"| {right} | {dead} | {self.severe / seeds:.2f} |"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="16,24")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--rows", type=float, default=0.875, help="ρ_del rows as a share of 250 per unit")
    args = parser.parse_args(argv)
    print(
        "| units | design | fit | median sd | sd of z | coverage | right keep/cut | dead → negligible "
        "| severe / skill |"
    )
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|")
    for units in (int(x) for x in args.sizes.split(",")):
        for design_name in ("prefixes", "half-coalitions"):
            cells = {fit: Cell() for fit in FITS}
            for seed in range(args.seeds):
                game = decidable_game(units, seed)
                names = [p for p in game.structure.players if p != "m"]
                t = float(stats.t.ppf(0.975, len(game.base) - 1))
                for fit, (values, sds) in fits(game, design_name, args.rows, seed).items():
                    for name, value, sd in zip(names, values, sds, strict=True):
                        cells[fit].add(game, name, float(value), float(sd), t)
            for fit, cell in cells.items():
                print(cell.row(f"{units} | {design_name} | {fit}", args.seeds), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
