"""Does ``aces-ci value`` decide? Keep / cut calls, severe errors and coverage on planted games.

RMSE rewards pulling every value toward 0; an author needs decisions. For each planted game
(:mod:`benchmarks.skillsv_games`: solo units, an OR pair, an AND pair, a harmful unit, a dead unit, a
unit that needs a resource) and each budget in rollouts per unit, this runs the default estimator
with K raised in steps of 2 until the planned scores fill the budget (``planned_scores``, exact), on
a Bernoulli oracle with fresh noise, and scores the decisions against the μ-exact net effects:

* **severe**: a unit kept whose exact net effect is below −δ, or cut (delete / negligible) whose
  exact net effect is above +δ — per skill;
* **right call**: among units with |exact| ≥ 0.05, the share kept when positive, cut when negative;
* **dead → negligible**: the share of planted dead units decided ``negligible``;
* **unresolved**: the share of units left unresolved;
* **coverage**: the share of 95% intervals holding the exact net effect.

``--estimator interaction`` (benchmark only, not in ``aces-ci value``) reads the *same* runs through a
regression instead of the pooled chain estimator: every scored prefix of every chain on every case of
its window is a row, V = α_case + Σ β_i x_i + Σ β_ij x_i x_j (unit effects and every pairwise
interaction, a small ridge on the pairs), and φ is the fit's μ-exact value (``unanimity_values`` of
the terms: exact for games whose interactions involve at most two units). Its interval resamples
chains and cases together, as the chain estimator's does.

    python benchmarks/skillsv_decisions.py --sizes 16,24 --budgets 60,250 --seeds 5 [--estimator interaction]
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aces_ci.skillsv import (
    DEFAULT_MARGIN,
    DecisionRules,
    Estimate,
    EstimateRun,
    Estimator,
    EstimatorSettings,
    Interval,
    decide,
    planned_scores,
    summarize,
    unanimity_values,
)
from benchmarks.skillsv_games import BernoulliOracle, PlantedGame, planted_game

EFFECTIVE = 0.05
"""|exact net effect| from which a unit has a right keep / cut call (issue 23)."""


@dataclass(frozen=True)
class Outcome:
    units: int
    severe: int
    effective: int
    right: int
    dead: int
    dead_negligible: int
    unresolved: int
    covered: int
    rollouts: int


def design(units: int, budget: int, seed: int) -> tuple[EstimatorSettings, PlantedGame, int]:
    """The default settings with K raised until the planned scores fill ``budget``."""
    game = planted_game(units, seed)
    settings = EstimatorSettings(seed=seed, orders=4)
    while True:
        bigger = replace(settings, orders=settings.orders + 2)
        if planned_scores(game.structure, game.tasks, bigger) > budget:
            break
        settings = bigger
    return settings, game, planned_scores(game.structure, game.tasks, settings)


RIDGE = 1.0
"""Ridge on the pairwise interactions (rows are 0/1 scores: a unit's worth of shrinkage toward 0)."""


def interaction_values(run: EstimateRun, replicates: int = 200) -> dict[str, Estimate]:
    """φ_del from a unit-plus-pairwise regression on every scored prefix (see the module docstring)."""
    structure, execution = run.structure, run.execution
    slot = {player: k for k, player in enumerate(execution)}
    pairs = list(itertools.combinations(range(len(execution)), 2))
    rows: list[np.ndarray] = []
    targets: list[float] = []
    row_chain: list[int] = []
    row_task: list[int] = []
    for chain in run.chains:
        levels = chain.levels["del"] if chain.levels is not None else None
        if levels is None:
            continue
        present = np.zeros(len(execution))
        for step in range(levels.shape[0]):
            if step > 0:
                present[slot[chain.order[step - 1]]] = 1.0
            for column, task in enumerate(chain.window):
                score = levels[step, column]
                if np.isnan(score):
                    continue
                pair_terms = np.array([present[i] * present[j] for i, j in pairs])
                rows.append(np.concatenate([present, pair_terms]))
                targets.append(float(score))
                row_chain.append(chain.pair)
                row_task.append(task)
    x, y = np.array(rows), np.array(targets)
    tasks = np.array(row_task)
    task_ids = sorted(set(row_task))
    dummies = (tasks[:, None] == np.array(task_ids)[None, :]).astype(float)
    design_matrix = np.hstack([dummies, x])
    penalty = np.zeros(design_matrix.shape[1])
    penalty[len(task_ids) + len(execution) :] = RIDGE
    clusters = sorted(set(row_chain))
    chain_index = np.array([clusters.index(c) for c in row_chain])
    task_index = np.array([task_ids.index(t) for t in row_task])

    def fit(weights: np.ndarray) -> np.ndarray:
        weighted = design_matrix * weights[:, None]
        gram = design_matrix.T @ weighted + np.diag(penalty + 1e-9)
        beta = np.linalg.solve(gram, weighted.T @ y)[len(task_ids) :]
        terms = [(frozenset({structure.players[execution[k]]}), float(beta[k])) for k in range(len(execution))]
        terms += [
            (
                frozenset({structure.players[execution[i]], structure.players[execution[j]]}),
                float(beta[len(execution) + n]),
            )
            for n, (i, j) in enumerate(pairs)
        ]
        phi = unanimity_values(structure, run.settings.distribution, terms)
        return np.array([phi[player] for player in execution])

    point = fit(np.ones(len(y)))
    rng = np.random.default_rng([run.settings.seed, 23])
    boot = []
    for _ in range(replicates):
        chain_w = np.bincount(rng.integers(0, len(clusters), len(clusters)), minlength=len(clusters))
        task_w = np.bincount(rng.integers(0, len(task_ids), len(task_ids)), minlength=len(task_ids))
        boot.append(fit((chain_w[chain_index] * task_w[task_index]).astype(float)))
    samples = np.array(boot)
    lo, hi = np.percentile(samples, [2.5, 97.5], axis=0)
    return {
        structure.players[player]: Estimate(float(point[k]), Interval(float(lo[k]), float(hi[k])), len(run.chains))
        for k, player in enumerate(execution)
    }


def measure(units: int, per_unit: int, seed: int, margin: float = DEFAULT_MARGIN, estimator: str = "pooled") -> Outcome:
    settings, game, _ = design(units, per_unit * units, seed)
    exact = game.exact(settings.distribution)["del"]
    run = Estimator(game.structure, game.tasks, BernoulliOracle(game, seed), settings).estimate()
    valuation = summarize(run, replicates=400)
    if estimator == "interaction":
        fitted = interaction_values(run)
        rules = DecisionRules(margin=margin)
        valuation = replace(
            valuation,
            units=tuple(
                replace(unit, net_effect=fitted[unit.unit], decision=decide(fitted[unit.unit], None, None, rules)[0])
                for unit in valuation.units
            ),
        )
    severe = effective = right = dead = dead_negligible = unresolved = covered = 0
    for unit in valuation.units:
        truth = exact[unit.unit]
        cut = unit.decision in ("delete", "negligible")
        severe += (unit.decision == "keep" and truth < -margin) or (cut and truth > margin)
        if abs(truth) >= EFFECTIVE:
            effective += 1
            right += (truth > 0 and unit.decision in ("keep", "compress")) or (truth < 0 and cut)
        if game.roles.get(unit.unit) == "dead":
            dead += 1
            dead_negligible += unit.decision == "negligible"
        unresolved += unit.decision == "unresolved"
        ci = unit.net_effect.ci if unit.net_effect is not None else None
        covered += ci is not None and ci.lo <= truth <= ci.hi
    return Outcome(
        len(valuation.units), severe, effective, right, dead, dead_negligible, unresolved, covered, run.meter.evaluated
    )


def _share(hits: int, total: int) -> str:
    """``2/4``: a share with what it is out of; ``–`` when there is nothing to count."""
    return f"{hits}/{total}" if total else "– (none)"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="16,24")
    parser.add_argument("--budgets", default="60,250", help="rollouts per unit")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--estimator", choices=("pooled", "interaction"), default="pooled")
    args = parser.parse_args(argv)
    print(
        "| units | rollouts/unit | rollouts | severe / skill | right call (|φ| ≥ 0.05) | dead → negligible "
        "| unresolved | coverage |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for units in (int(x) for x in args.sizes.split(",")):
        for per_unit in (int(x) for x in args.budgets.split(",")):
            results = [measure(units, per_unit, seed, estimator=args.estimator) for seed in range(args.seeds)]
            total = sum(r.units for r in results)
            print(
                f"| {units} | {per_unit} | {sum(r.rollouts for r in results) / len(results):,.0f} "
                f"| {sum(r.severe for r in results) / len(results):.2f} "
                f"| {_share(sum(r.right for r in results), sum(r.effective for r in results))} "
                f"| {_share(sum(r.dead_negligible for r in results), sum(r.dead for r in results))} "
                f"| {sum(r.unresolved for r in results) / total:.2f} "
                f"| {sum(r.covered for r in results) / total:.3f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
