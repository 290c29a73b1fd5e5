"""μ-exact values by enumeration: every coalition an order can pass through, weighted exactly.

φ_i(μ) = Σ_S P_μ(the order passes through prefix S and inserts i next) · [V(S ∪ i) − V(S)].

The sum runs over the prefixes μ can reach (downsets of D that respect H's contiguity), so it needs
V on those coalitions only: ``reachable`` lists them (for one batch of oracle calls), ``values``
combines. The next-unit probabilities are computed here on the whole state, independently of the
per-block samplers in :mod:`._orders` (the tests check one against the other): for μ_layer by the
descent of Algorithm 2 from the innermost open block, for uniform μ by counting completions of
the state (``g(S ∪ i) / g(S)``). For games of up to ~14 units, the paper's scale for exact checks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ._orders import OrderDistribution, OrderSampler
from ._structure import GameStructure, Node, bits

MAX_EXACT_STATES = 1 << 17
"""Coalitions exact mode may enumerate (each one is an oracle evaluation per task)."""


class TooLargeForExact(ValueError):
    """The game reaches more coalitions than exact mode enumerates."""


def _mask(child: Node | int) -> int:
    return 1 << child if isinstance(child, int) else child.mask


def _layer_next(node: Node, state: int) -> list[tuple[int, float]]:
    """Next-player probabilities of Algorithm 2 from ``state``, descending from ``node``."""
    for child in node.children:
        inside = _mask(child) & state
        if inside and inside != _mask(child) and isinstance(child, Node):
            return _layer_next(child, state)
    placed = 0
    for position, child in enumerate(node.children):
        if _mask(child) & state == _mask(child):
            placed |= 1 << position
    eligible = [
        position
        for position in range(len(node.children))
        if not placed >> position & 1 and node.before[position] & ~placed == 0
    ]
    out: list[tuple[int, float]] = []
    for position in eligible:
        child = node.children[position]
        if isinstance(child, int):
            out.append((child, 1.0 / len(eligible)))
        else:
            out.extend((player, p / len(eligible)) for player, p in _layer_next(child, state))
    return out


class ExactGame:
    """The reachable states of μ from ``start`` and their transition probabilities."""

    def __init__(self, structure: GameStructure, distribution: OrderDistribution, start: int = 0) -> None:
        self.structure = structure
        self.distribution = distribution
        self.start = start
        self._completions: dict[int, int] = {}
        self.probability: dict[int, float] = {}
        """P_μ(the order passes through this prefix)."""
        self.transitions: dict[int, list[tuple[int, float]]] = {}
        self._enumerate()

    def _support(self, state: int) -> list[tuple[int, float]]:
        if state == self.structure.full:
            return []
        return _layer_next(self.structure.root, state)

    def _g(self, state: int) -> int:
        """Feasible completions of ``state`` (for uniform μ)."""
        known = self._completions.get(state)
        if known is not None:
            return known
        support = self._support(state)
        total = 1 if not support else sum(self._g(state | 1 << player) for player, _ in support)
        self._completions[state] = total
        return total

    def _next(self, state: int) -> list[tuple[int, float]]:
        support = self._support(state)
        if self.distribution == "layer" or not support:
            return support
        total = self._g(state)
        return [(player, self._g(state | 1 << player) / total) for player, _ in support]

    def _enumerate(self) -> None:
        layer = {self.start: 1.0}
        while layer:
            following: dict[int, float] = {}
            for state, probability in sorted(layer.items()):
                self.probability[state] = probability
                if len(self.probability) > MAX_EXACT_STATES:
                    raise TooLargeForExact(
                        f"more than {MAX_EXACT_STATES:,} feasible coalitions; "
                        "exact mode is for games of up to ~14 units"
                    )
                moves = self._next(state)
                self.transitions[state] = moves
                for player, q in moves:
                    successor = state | 1 << player
                    following[successor] = following.get(successor, 0.0) + probability * q
            layer = following

    @property
    def reachable(self) -> list[int]:
        """Every prefix coalition μ can pass through, smallest first."""
        return sorted(self.probability, key=lambda state: (state.bit_count(), state))

    def values(self, value: Mapping[int, float]) -> list[float]:
        """φ_i(μ) for every player (zero for those already in ``start``), given V on ``reachable``."""
        phi = [0.0] * self.structure.size
        for state, probability in self.probability.items():
            for player, q in self.transitions[state]:
                phi[player] += probability * q * (value[state | 1 << player] - value[state])
        return phi

    def order_probability(self, order: list[int]) -> float:
        """P_μ(order), for tests that enumerate orders by brute force."""
        state, probability = self.start, 1.0
        for player in order:
            moves = dict(self.transitions.get(state, []))
            if player not in moves:
                return 0.0
            probability *= moves[player]
            state |= 1 << player
        return probability


def _last_in_block(sampler: OrderSampler, node: Node, last: int, others: int) -> float:
    """P(child ``last`` of ``node`` is emitted after every child in the mask ``others``), under μ."""
    if not node.has_arcs:  # children are exchangeable: each of the k + 1 is last with equal chance
        return 1.0 / (others.bit_count() + 1)
    size = len(node.children)
    probability = {0: 1.0}
    answer = 0.0
    for _ in range(size):
        following: dict[int, float] = {}
        for placed, p in probability.items():
            eligible = [j for j in range(size) if not placed >> j & 1 and node.before[j] & ~placed == 0]
            if sampler.distribution == "layer" or not node.has_arcs:
                weights = [1.0] * len(eligible)
            else:
                weights = [float(sampler.completions(node, placed | 1 << j)) for j in eligible]
            total = sum(weights)
            for j, weight in zip(eligible, weights, strict=True):
                q = p * weight / total
                if j == last:
                    if others & ~placed == 0:
                        answer += q
                    continue  # what happens after ``last`` is placed no longer matters
                following[placed | 1 << j] = following.get(placed | 1 << j, 0.0) + q
        probability = following
    return answer


def _last_of(sampler: OrderSampler, node: Node, term: int, player: int) -> float:
    """P(``player`` is the last member of the coalition mask ``term`` to enter), within ``node``."""
    holder = -1
    others = 0
    for position, child in enumerate(node.children):
        mask = _mask(child)
        if mask >> player & 1:
            holder = position
        elif mask & term:
            others |= 1 << position
    child = node.children[holder]
    inner = 1.0 if isinstance(child, int) else _last_of(sampler, child, term & child.mask, player)
    return inner * (_last_in_block(sampler, node, holder, others) if others else 1.0)


def unanimity_values(
    structure: GameStructure, distribution: OrderDistribution, terms: Sequence[tuple[frozenset[str], float]]
) -> list[float]:
    """φ(μ) of V(S) = Σ c_T · [T ⊆ S] for any size: φ_i = Σ_{T ∋ i} c_T · P_μ(i is the last of T to enter).

    Exact for games written as unanimity terms, where enumeration is out of reach (the benchmark's
    40-unit games); the tests check it against :class:`ExactGame` on small games.
    """
    sampler = OrderSampler(structure, distribution)
    phi = [0.0] * structure.size
    for members, coefficient in terms:
        term = structure.mask_of(members)
        for player in bits(term):
            phi[player] += coefficient * _last_of(sampler, structure.root, term, player)
    return phi


def last_entry(
    structure: GameStructure, distribution: OrderDistribution, masks: Sequence[int]
) -> list[dict[int, float]]:
    """Per coalition mask T, P_μ(i is the last of T to enter) for each member i: a unanimity term's split."""
    sampler = OrderSampler(structure, distribution)
    return [{player: _last_of(sampler, structure.root, mask, player) for player in bits(mask)} for mask in masks]
