"""Where an order goes next and where it came from: μ's transition odds at any prefix it can reach.

The pooled estimator (:mod:`._pooled`) uses every scored prefix of a chain for every unit, weighted
by two probabilities of the order distribution μ at that prefix S:

* ``following(S)``: P_μ(the next unit is i | the order has passed through S);
* ``preceding(S)``: P_μ(the last unit was i | the order has passed through S).

By the tower rule, E[V(S_j)·(1[π_j = i] − 1[π_{j+1} = i])] = E[V(S_j)·(preceding − following)], so
Σ_j V(S_j)·(preceding_i(S_j) − following_i(S_j)) is unbiased for φ_i(μ) — the chain estimator with
its two indicators replaced by their expectations given the prefix (Rao–Blackwell).

Both distributions factor over the repaired hierarchy (:mod:`._orders`): every block orders its
children independently and emits each whole, so a reachable prefix is, at each block on the path
of "open" blocks, a set of finished children and at most one child in progress. The odds are a
product along that path of per-block quantities: the step probability T(placed → j) of choosing
child j next, and the probability P(placed) that the block's first children are exactly ``placed``
(computed by memoised recursion over the block's downsets, or in closed form for a block without
arcs). The whole-state enumeration in :mod:`._exact` computes the same odds independently; the tests
check one against the other.
"""

from __future__ import annotations

import math

from ._orders import MAX_BLOCK_STATES, OrderDistribution, OrderSampler
from ._structure import GameStructure, Node


class OddsIntractable(ValueError):
    """A block has too many downsets for its prefix probabilities to be counted."""


def _mask(child: Node | int) -> int:
    return 1 << child if isinstance(child, int) else child.mask


class OrderOdds:
    """μ's next-unit and last-unit probabilities at reachable prefixes, memoised per prefix."""

    def __init__(self, structure: GameStructure, distribution: OrderDistribution) -> None:
        self.structure = structure
        self.distribution = distribution
        self.sampler = OrderSampler(structure, distribution)
        self._reach: dict[int, dict[int, float]] = {}
        self._following: dict[int, dict[int, float]] = {}
        self._preceding: dict[int, dict[int, float]] = {}

    # --- per block ---------------------------------------------------------------------------
    def _state(self, node: Node, state: int) -> tuple[int, int | None]:
        """(finished children as a bitmask of positions, the child in progress or None)."""
        placed = 0
        partial: int | None = None
        for position, child in enumerate(node.children):
            inside = _mask(child) & state
            if inside == _mask(child):
                placed |= 1 << position
            elif inside:
                if partial is not None:
                    raise ValueError("not a prefix μ can reach: two blocks are open at once")
                partial = position
        return placed, partial

    def _eligible(self, node: Node, placed: int) -> list[int]:
        return [j for j in range(len(node.children)) if not placed >> j & 1 and node.before[j] & ~placed == 0]

    def _step(self, node: Node, placed: int, child: int) -> float:
        """P(child ``child`` is emitted next | the block has emitted exactly ``placed``)."""
        if self.distribution == "layer" or not node.has_arcs:
            return 1.0 / len(self._eligible(node, placed))
        after = self.sampler.completions(node, placed | 1 << child)
        return after / self.sampler.completions(node, placed)

    def _reached(self, node: Node, placed: int) -> float:
        """P(the block's first ``popcount(placed)`` children are exactly ``placed``)."""
        size = len(node.children)
        if not node.has_arcs:
            return 1.0 / math.comb(size, placed.bit_count())
        memo = self._reach.setdefault(id(node), {0: 1.0})
        return self._reached_memo(node, placed, memo)

    def _reached_memo(self, node: Node, placed: int, memo: dict[int, float]) -> float:
        known = memo.get(placed)
        if known is not None:
            return known
        if len(memo) >= MAX_BLOCK_STATES:
            raise OddsIntractable(
                f"a block of {len(node.children)} children with dependencies has more than "
                f"{MAX_BLOCK_STATES:,} downsets"
            )
        total = 0.0
        for j in range(len(node.children)):
            rest = placed & ~(1 << j)
            if placed >> j & 1 and node.before[j] & ~rest == 0 and self._is_downset(node, rest):
                total += self._reached_memo(node, rest, memo) * self._step(node, rest, j)
        memo[placed] = total
        return total

    @staticmethod
    def _is_downset(node: Node, placed: int) -> bool:
        position = 0
        remaining = placed
        while remaining:
            if remaining & 1 and node.before[position] & ~placed:
                return False
            remaining >>= 1
            position += 1
        return True

    # --- the two distributions ----------------------------------------------------------------
    def _next(self, node: Node, state: int) -> list[tuple[int, float]]:
        placed, partial = self._state(node, state)
        if partial is not None:
            child = node.children[partial]
            assert isinstance(child, Node)
            return self._next(child, state)
        out: list[tuple[int, float]] = []
        for j in self._eligible(node, placed):
            step = self._step(node, placed, j)
            child = node.children[j]
            if isinstance(child, int):
                out.append((child, step))
            else:
                out.extend((player, step * p) for player, p in self._next(child, state))
        return out

    def _last(self, node: Node, state: int) -> list[tuple[int, float]]:
        placed, partial = self._state(node, state)
        if partial is not None:
            child = node.children[partial]
            assert isinstance(child, Node)
            return self._last(child, state)
        total = self._reached(node, placed)
        out: list[tuple[int, float]] = []
        for j in range(len(node.children)):
            rest = placed & ~(1 << j)
            if not placed >> j & 1 or node.before[j] & ~rest or not self._is_downset(node, rest):
                continue
            weight = self._reached(node, rest) * self._step(node, rest, j) / total
            if weight == 0.0:
                continue
            child = node.children[j]
            if isinstance(child, int):
                out.append((child, weight))
            else:
                out.extend((player, weight * p) for player, p in self._last(child, state))
        return out

    def following(self, state: int) -> dict[int, float]:
        """P_μ(next player | the order passed through ``state``); empty at the full coalition."""
        known = self._following.get(state)
        if known is None:
            known = {} if state == self.structure.full else dict(self._next(self.structure.root, state))
            self._following[state] = known
        return known

    def preceding(self, state: int) -> dict[int, float]:
        """P_μ(last player | the order passed through ``state``); empty at ∅."""
        known = self._preceding.get(state)
        if known is None:
            known = {} if state == 0 else dict(self._last(self.structure.root, state))
            self._preceding[state] = known
        return known
