"""μ's next-unit and last-unit odds at a prefix, against the whole-state enumeration of exact mode."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pytest

from aces_ci.skillsv import ExactGame, GameStructure, OrderDistribution, OrderOdds, repair_hierarchy
from benchmarks.skillsv_games import planted_game


def _structure(players: str, requires: Mapping[str, str], hierarchy: object) -> GameStructure:
    return GameStructure(tuple(players), {k: frozenset(v) for k, v in requires.items()}, hierarchy)  # type: ignore[arg-type]


def _random_structure(seed: int) -> GameStructure:
    rng = np.random.default_rng(seed)
    players = [f"p{i}" for i in range(10)]
    hierarchy = (players[0], tuple(players[1:4]), (players[4], tuple(players[5:7])), tuple(players[7:]))
    requires = {p: {players[0]} for p in players[1:]}
    for _ in range(5):
        a, b = rng.choice(range(1, 10), size=2, replace=False)
        if a > b:
            requires[players[a]].add(players[b])
    needs = {k: frozenset(v) for k, v in requires.items()}
    repaired, _ = repair_hierarchy(hierarchy, needs)
    return GameStructure(tuple(players), needs, repaired)


STRUCTURES = {
    "A": _structure("abc", {"b": "a"}, ("a", "b", "c")),
    "B": _structure("012345", {"1": "0", "2": "0", "3": "1", "5": "24"}, tuple("012345")),
    "E'": _structure("0123456", {"1": "0", "3": "0", "4": "3"}, (("0", "1"), ("2", ("3", "4")), ("5", "6"))),
    "flat": _structure("abcde", {}, tuple("abcde")),
    "random-0": _random_structure(0),
    "random-1": _random_structure(1),
    "random-2": _random_structure(2),
    "planted-16": planted_game(16, 3).structure,
}


@pytest.mark.parametrize("mu", ["layer", "uniform"])
@pytest.mark.parametrize("name", sorted(STRUCTURES))
def test_odds_match_the_enumerated_transitions_at_every_reachable_prefix(name: str, mu: OrderDistribution) -> None:
    structure = STRUCTURES[name]
    exact = ExactGame(structure, mu)
    odds = OrderOdds(structure, mu)
    for state, probability in exact.probability.items():
        following = odds.following(state)
        assert following == pytest.approx(dict(exact.transitions[state]), abs=1e-12)
        # P(last = x | state) = P(reach state − x) · T(state − x → x) / P(reach state)
        expected: dict[int, float] = {}
        for before, p_before in exact.probability.items():
            for player, step in exact.transitions[before]:
                if before | 1 << player == state:
                    expected[player] = p_before * step / probability
        assert odds.preceding(state) == pytest.approx(expected, abs=1e-12)
        assert sum(odds.preceding(state).values()) == pytest.approx(1.0 if state else 0.0)


@pytest.mark.parametrize("mu", ["layer", "uniform"])
def test_the_pooled_weights_recover_the_exact_values_of_any_game(mu: OrderDistribution) -> None:
    """Σ_S P(reach S) · (preceding_i(S) − following_i(S)) · V(S) = φ_i(μ) for every V on the reachable prefixes."""
    structure = STRUCTURES["E'"]
    exact = ExactGame(structure, mu)
    odds = OrderOdds(structure, mu)
    rng = np.random.default_rng(4)
    value = {state: float(rng.normal()) for state in exact.reachable}
    pooled = [0.0] * structure.size
    for state, probability in exact.probability.items():
        for player in range(structure.size):
            weight = odds.preceding(state).get(player, 0.0) - odds.following(state).get(player, 0.0)
            pooled[player] += probability * weight * value[state]
    assert pooled == pytest.approx(exact.values(value), abs=1e-12)


def test_a_prefix_no_order_passes_through_is_refused() -> None:
    structure = STRUCTURES["E'"]
    odds = OrderOdds(structure, "layer")
    two_open_blocks = structure.mask_of({"0", "2"})  # block [0, 1] and block [2, [3, 4]] both open
    with pytest.raises(ValueError, match="two blocks are open"):
        odds.following(two_open_blocks)
