"""The pruned candidate: the skill without the units SkillSV says to cut, rendered by ρ_del.

A unit is cut when its decision is ``delete`` (harmful: the interval lies below 0 and reaches past
−δ) or ``negligible`` (an equivalence test puts it inside ±δ while it costs context). Every other decision —
``keep``, ``compress`` and ``unresolved`` — keeps the unit: the evidence does not allow removing it.
The trigger unit ``m`` (the frontmatter) is never cut.

The result must be a feasible coalition (downward closed under D), so the two kinds of cut meet
the dependencies differently:

* a **negligible** unit that a unit not being cut requires is spared: under precedence a
  prerequisite's value goes to the units that need it, so its own near-zero value says nothing
  about whether the skill needs it (a script a kept rule runs);
* a **harmful** unit is removed with its reverse-dependency closure: whatever requires it goes too,
  transitively, and is listed with the unit that pulled it out, so the author sees why.

ρ_del then renders the kept coalition from the original bytes: a kept unit's text is untouched.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..skillsv import TRIGGER_ID, CompiledSkill, render


@dataclass(frozen=True)
class Removal:
    """One unit a candidate removes, and why."""

    unit: str
    decision: str
    """Its SkillSV decision (``delete``, ``negligible``; another decision when the closure took it)."""
    because_of: str | None = None
    """The removed unit it requires, when only the reverse-dependency closure removed it."""


@dataclass(frozen=True)
class Pruning:
    """The coalition the pruned candidate keeps, what it removes, what it spared, and its rendered tree."""

    kept: frozenset[str]
    removed: tuple[Removal, ...]
    spared: tuple[str, ...]
    """Negligible units kept because a kept unit requires them."""
    files: Mapping[str, bytes]


def _closure(game: CompiledSkill, harmful: set[str]) -> dict[str, str | None]:
    """Every unit that goes with the harmful ones, mapped to the removed unit it requires (None: harmful itself)."""
    gone: dict[str, str | None] = dict.fromkeys(harmful)
    changed = True
    while changed:
        changed = False
        for edge in game.edges:
            if edge.target in gone and edge.source not in gone and edge.source != TRIGGER_ID:
                gone[edge.source] = edge.target
                changed = True
    return gone


def prune(game: CompiledSkill, decisions: Mapping[str, str]) -> Pruning:
    """The pruned candidate of ``decisions`` (unit id → SkillSV decision); see the module docstring."""
    harmful = {u for u, d in decisions.items() if d == "delete" and u != TRIGGER_ID and u in game.player_ids}
    gone = _closure(game, harmful)
    null = {u for u, d in decisions.items() if d == "negligible" and u != TRIGGER_ID and u in game.player_ids}
    null -= set(gone)
    spared: set[str] = set()
    changed = True
    while changed:  # a null unit stays while anything that stays requires it
        changed = False
        staying = set(game.player_ids) - set(gone) - (null - spared)
        for edge in game.edges:
            if edge.source in staying and edge.target in null and edge.target not in spared:
                spared.add(edge.target)
                changed = True
    for unit in null - spared:
        gone[unit] = None
    kept = frozenset(unit for unit in game.player_ids if unit not in gone)
    removed = tuple(
        Removal(unit, decisions.get(unit, "unvalued"), gone[unit]) for unit in game.player_ids if unit in gone
    )
    spared_in_order = tuple(unit for unit in game.player_ids if unit in spared)
    return Pruning(kept, removed, spared_in_order, render(game, kept, "del"))
