"""μ-exact values against the closed-form games of the reference notes, and the samplers against them."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Mapping

import numpy as np
import pytest

from aces_ci.skillsv import (
    ExactGame,
    GameStructure,
    OrderDistribution,
    OrderSampler,
    repair_hierarchy,
    unanimity_values,
)

Terms = list[tuple[str, float]]


def _structure(players: str, requires: Mapping[str, str], hierarchy: object) -> GameStructure:
    return GameStructure(tuple(players), {k: frozenset(v) for k, v in requires.items()}, hierarchy)  # type: ignore[arg-type]


def _soum(terms: Terms) -> Callable[[frozenset[str]], float]:
    return lambda members: sum(c for t, c in terms if set(t) <= members)


def _values(structure: GameStructure, game: Callable[[frozenset[str]], float], mu: OrderDistribution) -> list[float]:
    exact = ExactGame(structure, mu)
    return exact.values({mask: game(structure.members(mask)) for mask in exact.reachable})


A = _structure("abc", {"b": "a"}, ("a", "b", "c"))
A_DOWNSETS = {"": 0, "a": 0.2, "c": 0.1, "ab": 0.6, "ac": 0.3, "abc": 1.0}
B = _structure("012345", {"1": "0", "2": "0", "3": "1", "5": "24"}, tuple("012345"))
B_TERMS: Terms = [("0", 0.3), ("01", 0.2), ("02", 0.1), ("013", 0.1), ("4", 0.1), ("0245", 0.2), ("14", -0.1)]
D_TREE = (("0", "1"), ("2", ("3", "4")))
D_TERMS: Terms = [("0", 1), ("23", 2), ("14", 1), ("01234", 1)]
E_PRIME = _structure("0123456", {"1": "0", "3": "0", "4": "3"}, (("0", "1"), ("2", ("3", "4")), ("5", "6")))
E_PRIME_TERMS: Terms = [("0", 1), ("23", 2), ("14", 1), ("0123456", 1), ("5", 0.5), ("35", -0.5), ("26", 0.25)]


@pytest.mark.parametrize(
    ("mu", "expected"),
    [("uniform", [1 / 5, 3 / 5, 1 / 5]), ("layer", [1 / 5, 5 / 8, 7 / 40])],
)
def test_faigle_kern_toy_game_a(mu: OrderDistribution, expected: list[float]) -> None:
    game = lambda members: A_DOWNSETS["".join(sorted(members))]  # noqa: E731
    assert _values(A, game, mu) == pytest.approx(expected, abs=1e-9)
    assert _values(A, _soum([("ab", 1.0)]), "uniform") == pytest.approx([0, 1, 0], abs=1e-9)


def test_six_unit_dag_b_under_uniform_orders() -> None:
    expected = [3 / 10, 37 / 260, 1 / 10, 1 / 10, 3 / 52, 1 / 5]
    assert _values(B, _soum(B_TERMS), "uniform") == pytest.approx(expected, abs=1e-9)
    assert sum(_values(B, _soum(B_TERMS), "layer")) == pytest.approx(0.9, abs=1e-9)  # efficiency under any μ


@pytest.mark.parametrize("mu", ["layer", "uniform"])
def test_winter_value_d_and_pc_winter_e(mu: OrderDistribution) -> None:
    winter = _structure("01234", {}, D_TREE)
    assert _values(winter, _soum(D_TERMS), mu) == pytest.approx([5 / 4, 3 / 4, 5 / 4, 9 / 8, 5 / 8], abs=1e-9)
    pc_winter = _structure("01234", {"1": "0", "4": "3"}, D_TREE)
    assert _values(pc_winter, _soum(D_TERMS), mu) == pytest.approx([1, 1, 5 / 4, 1, 3 / 4], abs=1e-9)


def test_cross_block_constraint_e_prime_under_uniform_orders() -> None:
    expected = [1, 0, 3 / 2, 2 / 3, 4 / 3, 1 / 2, 1 / 4]
    assert _values(E_PRIME, _soum(E_PRIME_TERMS), "uniform") == pytest.approx(expected, abs=1e-9)


def _weighted_vote(quota: float, weights: dict[str, float]) -> Callable[[frozenset[str]], float]:
    return lambda members: float(sum(weights[p] for p in members) >= quota)


def _airport(costs: dict[str, float]) -> Callable[[frozenset[str]], float]:
    return lambda members: max([costs[p] for p in members], default=0)


FLAT_GAMES = [
    ("glove", "012", lambda s: min(len(s & {"0", "1"}), len(s & {"2"})), [1 / 6, 1 / 6, 2 / 3]),
    ("voting [51;50,49,1]", "012", _weighted_vote(51, {"0": 50, "1": 49, "2": 1}), [2 / 3, 1 / 6, 1 / 6]),
    ("voting [6;4,3,2,1]", "0123", _weighted_vote(6, {"0": 4, "1": 3, "2": 2, "3": 1}), [5 / 12, 1 / 4, 1 / 4, 1 / 12]),
    ("airport (1,2,3)", "012", _airport({"0": 1, "1": 2, "2": 3}), [1 / 3, 5 / 6, 11 / 6]),
    ("miner n=5", "01234", lambda s: len(s) // 2, [2 / 5] * 5),
]


@pytest.mark.parametrize(("name", "players", "game", "shapley"), FLAT_GAMES, ids=[g[0] for g in FLAT_GAMES])
@pytest.mark.parametrize("mu", ["layer", "uniform"])
def test_flat_games_reduce_to_shapley(
    name: str, players: str, game: Callable[[frozenset[str]], float], shapley: list[float], mu: OrderDistribution
) -> None:
    flat = _structure(players, {}, tuple(players))
    assert _values(flat, game, mu) == pytest.approx(shapley, abs=1e-9)


def test_the_layer_sampler_is_not_uniform_and_the_uniform_one_is() -> None:
    """Appendix D.4: y requires x in a flat block {x, y, z}."""
    structure = _structure("xyz", {"y": "x"}, ("x", "y", "z"))
    names = lambda order: "".join(structure.players[i] for i in order)  # noqa: E731
    for mu, expected in (
        ("layer", {"zxy": 1 / 2, "xyz": 1 / 4, "xzy": 1 / 4}),
        ("uniform", dict.fromkeys(("zxy", "xyz", "xzy"), 1 / 3)),
    ):
        exact = ExactGame(structure, mu)
        for order, probability in expected.items():
            assert exact.order_probability([structure.index[p] for p in order]) == pytest.approx(probability)
        rng = np.random.default_rng(5)
        sampler = OrderSampler(structure, mu)
        counts = Counter(names(sampler.sample(rng)) for _ in range(6000))
        assert set(counts) == set(expected)
        for order, probability in expected.items():
            assert counts[order] / 6000 == pytest.approx(probability, abs=0.03)


@pytest.mark.parametrize("mu", ["layer", "uniform"])
def test_samplers_draw_exactly_the_feasible_orders_with_their_exact_probabilities(mu: OrderDistribution) -> None:
    sampler = OrderSampler(E_PRIME, mu)
    exact = ExactGame(E_PRIME, mu)
    feasible = []
    for order in itertools.permutations(range(7)):
        probability = exact.order_probability(list(order))
        if probability > 0:
            feasible.append((order, probability))
    assert len(feasible) == 12  # the reference notes' count
    assert sum(p for _, p in feasible) == pytest.approx(1.0)
    rng = np.random.default_rng(11)
    draws = 12_000
    counts = Counter(tuple(sampler.sample(rng)) for _ in range(draws))
    assert set(counts) == {order for order, _ in feasible}
    for order, probability in feasible:
        assert counts[order] / draws == pytest.approx(probability, abs=0.015)
    # antithetic partners are each distributed as μ
    partner = Counter(tuple(sampler.order(1.0 - rng.random(E_PRIME.draws))) for _ in range(draws))
    for order, probability in feasible:
        assert partner[order] / draws == pytest.approx(probability, abs=0.015)


@pytest.mark.parametrize("mu", ["layer", "uniform"])
@pytest.mark.parametrize("seed", range(4))
def test_unanimity_closed_form_matches_enumeration_on_random_structured_games(mu: OrderDistribution, seed: int) -> None:
    rng = np.random.default_rng(seed)
    players = [f"p{i}" for i in range(9)]
    hierarchy = (players[0], tuple(players[1:4]), (players[4], tuple(players[5:7])), tuple(players[7:]))
    requires = {p: {players[0]} for p in players[1:]}
    for _ in range(4):
        a, b = rng.choice(range(1, 9), size=2, replace=False)
        if a > b:
            requires[players[a]].add(players[b])  # edges to earlier players only: no cycle
    needs = {k: frozenset(v) for k, v in requires.items()}
    repaired, _ = repair_hierarchy(hierarchy, needs)
    structure = GameStructure(tuple(players), needs, repaired)
    terms = [
        (
            frozenset(str(p) for p in rng.choice(players, size=int(rng.integers(1, 4)), replace=False)),
            float(rng.normal()),
        )
        for _ in range(8)
    ]
    enumerated = _values(structure, lambda s: sum(c for t, c in terms if t <= s), mu)
    assert unanimity_values(structure, mu, terms) == pytest.approx(enumerated, abs=1e-9)
