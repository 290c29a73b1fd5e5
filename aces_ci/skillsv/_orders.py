"""Order distributions μ over feasible insertion orders (paper, Appendix D).

Both distributions factor over the repaired hierarchy: a feasible order is, at every block, an
order of its children that respects the block's quotient graph, with each child emitted whole
(contiguity). They differ in how a block orders its children:

* ``layer`` (μ_layer, the paper's Algorithm 2): repeatedly draw uniformly among the children whose
  prerequisite children are already emitted. Not uniform over feasible orders (Appendix D.4).
* ``uniform``: draw each eligible child with probability proportional to the number of ways to
  finish the block after it (linear extensions of the rest, counted by memoised recursion over the
  downsets of the block's children). Because the count of a child's own inner orders does not
  depend on where the child is placed, independent uniform choices per block give the uniform
  distribution over all feasible orders.

An order is a deterministic function of a vector of uniform draws (one slot per child of every
block, at fixed offsets), so the antithetic partner of an order is the order of ``1 − u``: marginally
distributed exactly as μ, and negatively coupled with its partner where the order matters.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from ._structure import GameStructure, Node

OrderDistribution = Literal["layer", "uniform"]
ORDER_DISTRIBUTIONS: tuple[OrderDistribution, ...] = ("layer", "uniform")

MAX_BLOCK_STATES = 1 << 20
"""Downsets one block's uniform count may visit; past it, uniform μ is refused (use ``layer``)."""


class UniformIntractable(ValueError):
    """Counting the linear extensions of a block would visit too many downsets."""


class OrderSampler:
    """Draws feasible orders (lists of player indices) from μ_layer or uniform μ."""

    def __init__(self, structure: GameStructure, distribution: OrderDistribution) -> None:
        self.structure = structure
        self.distribution = distribution
        self._counts: dict[int, dict[int, int]] = {}

    def order(self, draws: np.ndarray) -> list[int]:
        """The order a vector of ``structure.draws`` uniforms in [0, 1) picks."""
        out: list[int] = []
        self._emit(self.structure.root, draws, out)
        return out

    def sample(self, rng: np.random.Generator) -> list[int]:
        return self.order(rng.random(self.structure.draws))

    def _emit(self, node: Node, draws: np.ndarray, out: list[int]) -> None:
        placed = 0
        size = len(node.children)
        for step in range(size):
            eligible = [j for j in range(size) if not placed >> j & 1 and node.before[j] & ~placed == 0]
            if not eligible:
                raise AssertionError(
                    "a block's quotient graph has a cycle; the compatibility pass should have opened it"
                )
            chosen = self._pick(node, placed, eligible, float(draws[node.offset + step]))
            placed |= 1 << chosen
            child = node.children[chosen]
            if isinstance(child, int):
                out.append(child)
            else:
                self._emit(child, draws, out)

    def _pick(self, node: Node, placed: int, eligible: list[int], u: float) -> int:
        if self.distribution == "layer" or not node.has_arcs:
            return eligible[min(int(u * len(eligible)), len(eligible) - 1)]
        weights = [self.completions(node, placed | 1 << j) for j in eligible]
        target = u * sum(weights)
        running = 0
        for j, weight in zip(eligible, weights, strict=True):
            running += weight
            if target < running:
                return j
        return eligible[-1]

    def completions(self, node: Node, placed: int) -> int:
        """Orders of the children of ``node`` not in ``placed`` that respect its quotient graph."""
        size = len(node.children)
        if not node.has_arcs:
            return math.factorial(size - placed.bit_count())
        memo = self._counts.setdefault(id(node), {})
        return _count(node, placed, (1 << size) - 1, memo)


def _count(node: Node, placed: int, full: int, memo: dict[int, int]) -> int:
    if placed == full:
        return 1
    known = memo.get(placed)
    if known is not None:
        return known
    if len(memo) >= MAX_BLOCK_STATES:
        raise UniformIntractable(
            f"uniform μ needs the linear extensions of a block of {len(node.children)} children, more than "
            f"{MAX_BLOCK_STATES:,} downsets; use --orders layer"
        )
    total = 0
    for j in range(len(node.children)):
        if not placed >> j & 1 and node.before[j] & ~placed == 0:
            total += _count(node, placed | 1 << j, full, memo)
    memo[placed] = total
    return total
