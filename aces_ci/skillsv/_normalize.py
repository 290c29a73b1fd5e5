"""Graph normalisation (paper, Appendix C.3): no edge out of ``m``, cycles contracted.

Section references were already resolved to primary units by the rules. What is left here: drop
any content edge that leaves the trigger (it must stay the unique minimal unit), then contract
every strongly connected component of D into one composite player. A cycle means the text makes
two units need each other, so no feasible coalition can hold one without the other; valuing
them jointly is the only honest reading, and the contraction is recorded because it lowers the
resolution of the valuation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ._model import TRIGGER_ID, Contraction, Edge, Unit, UnitKind
from ._rules import RULE_ORDER
from ._units import preview


@dataclass(frozen=True)
class Normalized:
    players: tuple[Unit, ...]
    edges: tuple[Edge, ...]
    contractions: tuple[Contraction, ...]
    player_of: dict[str, str]
    """Unit id → the player holding it (itself, or its composite)."""


def strongly_connected(nodes: Sequence[str], edges: Sequence[Edge]) -> list[list[str]]:
    """Tarjan's components, iteratively (no recursion limit), each in ``nodes`` order, components in
    order of their first member."""
    successors: dict[str, list[str]] = {node: [] for node in nodes}
    for edge in edges:
        successors[edge.source].append(edge.target)
    position = {node: index for index, node in enumerate(nodes)}
    index_of: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for root in nodes:
        if root in index_of:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, child_index = work.pop()
            if child_index == 0:
                index_of[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            children = successors[node]
            if child_index < len(children):
                work.append((node, child_index + 1))
                child = children[child_index]
                if child not in index_of:
                    work.append((child, 0))
                elif child in on_stack:
                    low[node] = min(low[node], index_of[child])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index_of[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component, key=position.__getitem__))
    return sorted(components, key=lambda component: position[component[0]])


def _composite(composite_id: str, members: list[Unit]) -> Unit:
    kinds = {member.kind for member in members}
    kind: UnitKind = "resource" if kinds == {"resource"} else ("body" if "body" in kinds else "protected")
    return Unit(
        id=composite_id,
        kind=kind,
        spans=tuple(span for member in members for span in member.spans),
        tokens=sum(member.tokens for member in members),
        preview=preview(" + ".join(member.preview for member in members)),
        fallback=all(member.fallback for member in members),
        members=tuple(members),
    )


def normalize(units: Sequence[Unit], edges: Sequence[Edge]) -> Normalized:
    kept = [edge for edge in edges if edge.source not in (TRIGGER_ID, edge.target)]
    ids = [unit.id for unit in units]
    by_id = {unit.id: unit for unit in units}
    player_of = {unit_id: unit_id for unit_id in ids}
    contractions: list[Contraction] = []
    composites: dict[str, Unit] = {}
    for component in strongly_connected(ids, kept):
        if len(component) < 2:
            continue
        composite_id = f"c{len(contractions) + 1}"
        members = set(component)
        inner = tuple(edge for edge in kept if edge.source in members and edge.target in members)
        contractions.append(Contraction(composite_id, tuple(component), inner))
        composites[component[0]] = _composite(composite_id, [by_id[m] for m in component])
        for member in component:
            player_of[member] = composite_id
    players = tuple(
        composites.get(unit.id, unit) for unit in units if player_of[unit.id] == unit.id or unit.id in composites
    )
    best: dict[tuple[str, str], Edge] = {}
    for edge in kept:
        source, target = player_of[edge.source], player_of[edge.target]
        if source == target:
            continue
        mapped = Edge(source, target, edge.rule, edge.evidence)
        key = (source, target)
        if key not in best or RULE_ORDER[mapped.rule] < RULE_ORDER[best[key].rule]:
            best[key] = mapped
    order = {player.id: position for position, player in enumerate(players)}
    normalized_edges = tuple(sorted(best.values(), key=lambda e: (order[e.source], order[e.target])))
    return Normalized(players, normalized_edges, tuple(contractions), player_of)
