"""Which coalitions inform the interaction model best? Its values' standard errors under four designs.

The model's values are linear in its coefficients, φ = A β, so at a given set of scored coalitions
their sd under Bernoulli noise of variance σ² is σ √diag(A (X'X + Λ)⁻¹ X'X (X'X + Λ)⁻¹ A') — a
property of the design alone: nothing is scored. For a planted game (``decidable_game``) this compares,
at the same number N of (coalition, case) rows:

* **chains** — every prefix of K μ-orders on shared windows (round four's design; N its rows, the sd
  scaled by √(rows / N));
* **half** — each unit present with probability ½, closed under the requirements, in complementary
  pairs (the Data-Banzhaf / MSR design): in ±1 coding every main effect is orthogonal to the pair
  terms, and a unit's value is twice its main effect *when μ splits each pair term ½ / ½*;
* **half, unpaired** — the same without the complement;
* **prefixes** — one prefix of each μ-order, cut at a uniform position (``sample_share``'s design).

    python benchmarks/skillsv_designs.py --sizes 16,24 --rows 3000
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aces_ci.skillsv import Estimator, EstimatorSettings
from aces_ci.skillsv._estimate import half_coalitions
from aces_ci.skillsv._interaction import _Design, _rows, value_matrix
from aces_ci.skillsv._orders import OrderSampler
from benchmarks.skillsv_games import BernoulliOracle, PlantedGame, decidable_game

NOISE = 0.23
"""σ² of a Bernoulli score near p = 0.35–0.65, the games' range."""


def _sd(design: _Design, matrix: np.ndarray, masks: Sequence[int], tasks: Sequence[int]) -> np.ndarray:
    x = design.rows(np.array(masks, dtype=np.int64), np.array(tasks))
    gram = x.T @ x
    lever = np.linalg.solve(gram + design.penalty(), matrix.T).T
    return np.asarray(np.sqrt(NOISE * np.einsum("up,pq,uq->u", lever, gram, lever)))


def compare(game: PlantedGame, rows: int, seed: int) -> dict[str, float]:
    """Mean sd of the model's values per design, at ``rows`` rows (chains: scaled to it)."""
    structure = game.structure
    chains = EstimatorSettings(orders=20, seed=seed, operators=("del",), panel_anchors=False)
    run = Estimator(structure, game.tasks, BernoulliOracle(game, seed), chains).estimate()
    trigger = structure.index["m"]
    design = _Design(run.execution, len(run.tasks))
    matrix = value_matrix(run, design)
    rng = np.random.default_rng(seed)
    sampler = OrderSampler(structure, "layer")

    def half(paired: bool) -> list[int]:
        if paired:
            return list(half_coalitions(structure, run.execution, trigger, rng))
        return [half_coalitions(structure, run.execution, trigger, rng)[0] for _ in range(2)]

    def prefixes() -> list[int]:
        out = []
        for _ in range(2):
            order = sampler.order(rng.random(structure.draws))
            out.append(sum(1 << p for p in order[: int(rng.integers(1, len(order) + 1))]))
        return out

    draws: dict[str, Callable[[], list[int]]] = {
        "half": lambda: half(True),
        "half, unpaired": lambda: half(False),
        "prefixes": prefixes,
    }
    found = _rows(run, trigger, {})
    out = {"chains": float(_sd(design, matrix, found.masks, found.tasks).mean() * np.sqrt(len(found.scores) / rows))}
    for name, draw in draws.items():
        masks: list[int] = []
        tasks: list[int] = []
        for k in range(rows // 2):
            for mask in draw():
                masks.append(mask)
                tasks.append(k % len(run.tasks))
        out[name] = float(_sd(design, matrix, masks, tasks).mean())
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="16,24")
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args(argv)
    print("| units | rows | chains | half | half, unpaired | prefixes |")
    print("|---:|---:|---:|---:|---:|---:|")
    for units in (int(x) for x in args.sizes.split(",")):
        results = [compare(decidable_game(units, seed), args.rows, seed) for seed in range(args.seeds)]
        means = {name: np.mean([r[name] for r in results]) for name in results[0]}
        cells = " | ".join(f"{means[name]:.4f}" for name in ("chains", "half", "half, unpaired", "prefixes"))
        print(f"| {units} | {args.rows:,} | {cells} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
