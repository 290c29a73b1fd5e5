"""``aces-ci compile``'s text: the units SkillSV cut a skill into, the edges that tie them, and the hierarchy.

For the author: which units exist, which edges tie them, which content could not be cut and is valued
whole. The JSON of the same game is :func:`aces_ci.skillsv.compiled_json`.
"""

from __future__ import annotations

from typing import TextIO

from tabulate import tabulate

from ..safe_text import inline
from ..skillsv import RULE_NAMES, CompiledSkill, HierarchyNode


def hierarchy_text(node: HierarchyNode) -> str:
    """``[m, [u1, u2], r1]``: the nested blocks on one line."""
    if isinstance(node, str):
        return node
    return "[" + ", ".join(hierarchy_text(child) for child in node) + "]"


def render_compile_text(game: CompiledSkill, out: TextIO) -> None:
    """The compiled game for a terminal: a summary line, the units' table, the dependencies and the hierarchy."""
    kinds = [unit.kind for unit in game.players]
    fallbacks = sum(1 for unit in game.players if unit.fallback)
    content_edges = [edge for edge in game.edges if edge.rule != "R6"]
    out.write(
        f"{inline(game.name)}: {len(game.players)} units ({kinds.count('body')} body, "
        f"{kinds.count('protected')} protected of which {fallbacks} fallback, "
        f"{kinds.count('resource')} resource, 1 trigger) · "
        f"{len(content_edges)} dependencies (+{len(game.edges) - len(content_edges)} on m by R6) · "
        f"{len(game.contractions)} contractions · {len(game.repairs)} hierarchy repairs · "
        f"tokens by {game.tokenizer}\n\n"
    )
    rows = []
    for unit in game.players:
        where = f"{inline(unit.file)}:{unit.lines[0]}" + (f"-{unit.lines[1]}" if unit.lines[1] != unit.lines[0] else "")
        if unit.members:
            where += f" (+{len(unit.members) - 1} more spans)"
        kind = unit.kind + ("*" if unit.fallback else "")
        rows.append([unit.id, kind, where, f"{unit.tokens:,}", inline(unit.preview)])
    out.write(tabulate(rows, headers=["unit", "kind", "where", "tokens", "preview"], disable_numparse=True) + "\n")
    if fallbacks:
        out.write("* fallback: top-level content outside a list item, valued as one protected unit\n")
    out.write(
        f"\ndependencies (a → b: a requires b; every unit also requires m by R6, not listed): {len(content_edges)}\n"
    )
    for edge in content_edges:
        out.write(f"  {edge.source} → {edge.target}  {edge.rule} {RULE_NAMES[edge.rule]}: {inline(edge.evidence)}\n")
    for contraction in game.contractions:
        out.write(f"\ncycle contracted into {contraction.id}: {', '.join(contraction.members)} (valued together)\n")
        for edge in contraction.edges:
            out.write(f"  {edge.source} → {edge.target}  {edge.rule}: {inline(edge.evidence)}\n")
    out.write(f"\nhierarchy (each [...] is a block evaluated contiguously):\n  {hierarchy_text(game.hierarchy)}\n")
    for repair in game.repairs:
        out.write(
            f"  repaired at {repair.node}: cycle {' → '.join(repair.cycle)} → {repair.cycle[0]}; "
            f"opened {', '.join(repair.expanded)}\n"
        )
