"""The SkillSV benchmarks run (their small variants) and report what they claim to measure."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from aces_ci.skillsv import GameStructure
from benchmarks import skillsv_efficiency
from benchmarks.skillsv_games import PlantedGame, planted_game


def test_the_efficiency_benchmark_small_variant(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    assert skillsv_efficiency.main(["--small", "--json", str(out)]) == 0
    document = json.loads(out.read_text())
    points = document["sizes"]["8"]["points"]
    assert set(points) == {"published", "permutation", "chain", "ours"}
    for curve in points.values():
        assert [p["rollouts"] for p in curve] == sorted(p["rollouts"] for p in curve)  # more orders cost more
        assert curve[-1]["rmse_del"] < curve[0]["rmse_del"]  # and err less
    assert len(document["sizes"]["8"]["shares"]) == 2


def _flat_game(units: int, rate: float) -> PlantedGame:
    """n units that only require the trigger, in one flat block, every coalition scoring ``rate``."""
    players = ("m", *(f"u{i}" for i in range(units)))
    structure = GameStructure(players, {p: frozenset({"m"}) for p in players[1:]}, players)
    tasks = 6
    return PlantedGame(structure, (), {}, 0.0, np.full(tasks, rate), np.zeros((1, tasks)))


def test_the_noise_bound_matches_its_closed_form_on_a_flat_game() -> None:
    # Flat μ: a prefix of j units is reached with chance 1/C(n, j), and its weight on unit i is
    # 1/j inside it and −1/(n − j) outside, so Σ_D ‖a(D)‖ = Σ_j √(1/j + 1/(n − j)) (ends: √(1/n)).
    n, rate = 6, 0.3
    total = 2 * math.sqrt(1 / n) + sum(math.sqrt(1 / j + 1 / (n - j)) for j in range(1, n))
    bound = skillsv_efficiency.information_bound(_flat_game(n, rate))
    assert bound is not None
    assert bound.bound == pytest.approx(total**2 / n / (2 * (n + 1)), rel=1e-9)
    assert bound.floor_del == pytest.approx(total**2 * rate * (1 - rate) / n, rel=1e-9)
    # under ρ_pad, V(N) is the ρ_del score already paid for: its weight is not counted again
    assert bound.floor_pad == pytest.approx((total - math.sqrt(1 / n)) ** 2 * rate * (1 - rate) / n, rel=1e-9)


def test_window_variants_spend_the_same_rollouts_on_more_orders() -> None:
    variants = skillsv_efficiency.window_variants([2, 8])
    assert set(variants) == {"ours-window-2", "ours-window-2-untruncated", "ours-window-8-untruncated"}
    small = variants["ours-window-2"].settings(8, 1)
    assert (small.orders, small.window, small.tolerance) == (32, 2, 0.05)
    assert variants["ours-window-8-untruncated"].settings(8, 1).tolerance is None


def test_the_decomposition_finds_algorithm_1_error_is_rollout_noise(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    argv = ["--small", "--windows", "2", "--only", "ours-window-2", "--decompose", "--json", str(out)]
    assert skillsv_efficiency.main(argv) == 0
    size = json.loads(out.read_text())["sizes"]["8"]
    shares = size["decomposition"]
    assert set(shares) == {"published", "ours", "ours-window-2"}
    assert all(0 <= share < 0.1 for share in shares["published"])  # a noiseless oracle leaves ~nothing
    floors = [floor for _, floor in size["floor_shares"]]
    assert all(0 < floor < 1 for floor in floors)
    assert set(size["spearman_at_published_rollouts"]) == set(shares)


def test_a_planted_games_probabilities_agree_case_by_case() -> None:
    game = planted_game(12, seed=2, tasks=10)
    players = game.structure.players
    for members in (frozenset(), frozenset({"m"}), frozenset(players[:7]), frozenset(players)):
        for op in ("del", "pad"):
            row = [game.probability(members, op, task) for task in range(10)]
            assert game.probabilities(members, op).tolist() == pytest.approx(row, abs=1e-12)


def test_the_decisions_and_sparse_benchmarks_run_their_smallest_cell(capsys: pytest.CaptureFixture[str]) -> None:
    """Round six's and seven's benchmarks stay runnable as the model's internals change (the sparse
    ablation once called the cross-fit with an argument it no longer took)."""
    from benchmarks import skillsv_decisions, skillsv_sparse

    assert skillsv_decisions.main(["--sizes", "16", "--budgets", "60", "--seeds", "1", "--default-only"]) == 0
    row = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| 16 | 60 |")]
    assert len(row) == 1 and "interaction + half-coalitions" in row[0]
    assert skillsv_sparse.main(["--sizes", "16", "--seeds", "1"]) == 0
    fits = [line.split("|")[3].strip() for line in capsys.readouterr().out.splitlines() if line.startswith("| 16 |")]
    assert fits.count("cross-fitted") == 2  # on prefixes and on half-coalitions
