"""The structure a valuation runs on: players, their prerequisites (D) and the repaired hierarchy (H).

Kept apart from :class:`~aces_ci.skillsv.CompiledSkill` so the samplers, the exact enumerator and
the estimator work the same on a compiled skill and on a game written down in a test (the
closed-form games of the reference notes) or a benchmark. Coalitions are bitmasks over the player
order: cheap to hash, so a cache key never depends on the order units were inserted in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ._model import CompiledSkill, HierarchyNode


@dataclass
class Node:
    """A sampling block: its children (sub-blocks or player indices), in document order.

    ``before[j]`` is the bitmask of child positions that must be emitted before child ``j`` (the
    quotient graph Q_h); ``offset`` is where this node's random draws sit in an order's draw vector.
    """

    children: list[Node | int]
    mask: int
    before: list[int]
    offset: int = 0

    @property
    def has_arcs(self) -> bool:
        return any(self.before)


@dataclass(frozen=True)
class GameStructure:
    """Players, D and H: everything that decides which coalitions and orders are feasible."""

    players: tuple[str, ...]
    requires: Mapping[str, frozenset[str]]
    hierarchy: tuple[HierarchyNode, ...]
    tokens: tuple[int, ...] = ()
    """Each player's length in tokens, aligned with ``players`` (empty: not known). Not part of D or H: the
    interaction model's ρ_pad length term reads it (:class:`~aces_ci.skillsv._interaction._Design`)."""
    index: Mapping[str, int] = field(init=False, repr=False)
    need_masks: tuple[int, ...] = field(init=False, repr=False)
    root: Node = field(init=False, repr=False)
    draws: int = field(init=False, repr=False)
    """Random numbers one order consumes (one per child of every block)."""

    def __post_init__(self) -> None:
        index = {player: position for position, player in enumerate(self.players)}
        if len(index) != len(self.players):
            raise ValueError("duplicate player ids")
        needs = []
        for player in self.players:
            mask = 0
            for needed in self.requires.get(player, ()):
                mask |= 1 << index[needed]
            needs.append(mask)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "need_masks", tuple(needs))
        root = self._build(self.hierarchy)
        seen = root.mask
        if seen != (1 << len(self.players)) - 1:
            missing = [p for p in self.players if not seen >> index[p] & 1]
            raise ValueError(f"players missing from the hierarchy: {missing}")
        object.__setattr__(self, "root", root)
        object.__setattr__(self, "draws", _assign_offsets(root, 0))

    def _build(self, node: HierarchyNode) -> Node:
        items = [node] if isinstance(node, str) else list(node)
        children: list[Node | int] = []
        for item in items:
            children.append(self.index[item] if isinstance(item, str) else self._build(item))
        masks = [1 << child if isinstance(child, int) else child.mask for child in children]
        before = []
        for position, child_mask in enumerate(masks):
            needed = 0
            for player in bits(child_mask):
                needed |= self.need_masks[player]
            preds = 0
            for other, other_mask in enumerate(masks):
                if other != position and needed & other_mask:
                    preds |= 1 << other
            before.append(preds)
        total = 0
        for child_mask in masks:
            total |= child_mask
        return Node(children, total, before)

    @property
    def size(self) -> int:
        return len(self.players)

    @property
    def full(self) -> int:
        return (1 << len(self.players)) - 1

    def mask_of(self, members: Iterable[str]) -> int:
        mask = 0
        for member in members:
            mask |= 1 << self.index[member]
        return mask

    def members(self, mask: int) -> frozenset[str]:
        return frozenset(self.players[i] for i in bits(mask))

    def is_feasible(self, mask: int) -> bool:
        """Downward closed under D."""
        return all(self.need_masks[i] & ~mask == 0 for i in bits(mask))

    def closure(self, mask: int) -> int:
        """The smallest feasible coalition holding ``mask``: every player it requires, directly or not."""
        while True:
            grown = mask
            for player in bits(mask):
                grown |= self.need_masks[player]
            if grown == mask:
                return mask
            mask = grown

    def closure_of_dependents(self, player: int) -> int:
        """``player`` and every player that requires it, directly or not (what removing it removes)."""
        removed = 1 << player
        changed = True
        while changed:
            changed = False
            for other, needs in enumerate(self.need_masks):
                if not removed >> other & 1 and needs & removed:
                    removed |= 1 << other
                    changed = True
        return removed

    @classmethod
    def of(cls, game: CompiledSkill) -> GameStructure:
        tokens = tuple(game.player(player).tokens for player in game.player_ids)
        return cls(game.player_ids, game.requires(), game.hierarchy, tokens)


def bits(mask: int) -> list[int]:
    """Indices of the set bits of ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _assign_offsets(node: Node, start: int) -> int:
    node.offset = start
    position = start + len(node.children)
    for child in node.children:
        if isinstance(child, Node):
            position = _assign_offsets(child, position)
    return position
