"""``aces-ci compile``: show how SkillSV cuts a skill into units, what needs what, and the hierarchy.

No model runs: the compiler is deterministic. The text output is for the author (which units
exist, which edges tie them, which content could not be cut and is valued whole); ``--json``
writes the game G = (N, D, H) in the shape of ``schemas/skillsv-compile.schema.json``.

Exit codes: 0 compiled; 2 the skill cannot be read or staged (no SKILL.md, no frontmatter, a
symlink leaving the skill, …), or the JSON file cannot be written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from tabulate import tabulate

from ..atomic import write_output
from ..errors import EXIT_PASS
from ..report import json_bytes
from ..skillsv import RULE_NAMES, CompiledSkill, HierarchyNode, compile_skill, compiled_json


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "compile",
        help="cut a skill into valuation units, dependencies and hierarchy (SkillSV)",
        description="Compile the skill in SKILL_DIR into SkillSV's structured game: units (the trigger m, "
        "one per top-level list item, protected and fallback blocks, one per file), the dependency edges "
        "between them with the rule and evidence of each, and the repaired document hierarchy.",
    )
    parser.add_argument("skill_dir", type=Path, metavar="SKILL_DIR", help="folder holding SKILL.md")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the compiled game as JSON to FILE")
    parser.set_defaults(run=run)


def hierarchy_text(node: HierarchyNode) -> str:
    """``[m, [u1, u2], r1]``: the nested blocks on one line."""
    if isinstance(node, str):
        return node
    return "[" + ", ".join(hierarchy_text(child) for child in node) + "]"


def render_compile_text(game: CompiledSkill, out: TextIO) -> None:
    kinds = [unit.kind for unit in game.players]
    fallbacks = sum(1 for unit in game.players if unit.fallback)
    content_edges = [edge for edge in game.edges if edge.rule != "R6"]
    out.write(
        f"{game.name}: {len(game.players)} units ({kinds.count('body')} body, {kinds.count('protected')} protected "
        f"of which {fallbacks} fallback, {kinds.count('resource')} resource, 1 trigger) · "
        f"{len(content_edges)} dependencies (+{len(game.edges) - len(content_edges)} on m by R6) · "
        f"{len(game.contractions)} contractions · {len(game.repairs)} hierarchy repairs · "
        f"tokens by {game.tokenizer}\n\n"
    )
    rows = []
    for unit in game.players:
        where = f"{unit.file}:{unit.lines[0]}" + (f"-{unit.lines[1]}" if unit.lines[1] != unit.lines[0] else "")
        if unit.members:
            where += f" (+{len(unit.members) - 1} more spans)"
        rows.append([unit.id, unit.kind + ("*" if unit.fallback else ""), where, f"{unit.tokens:,}", unit.preview])
    out.write(tabulate(rows, headers=["unit", "kind", "where", "tokens", "preview"], disable_numparse=True) + "\n")
    if fallbacks:
        out.write("* fallback: top-level content outside a list item, valued as one protected unit\n")
    out.write(
        f"\ndependencies (a → b: a requires b; every unit also requires m by R6, not listed): {len(content_edges)}\n"
    )
    for edge in content_edges:
        out.write(f"  {edge.source} → {edge.target}  {edge.rule} {RULE_NAMES[edge.rule]}: {edge.evidence}\n")
    for contraction in game.contractions:
        out.write(f"\ncycle contracted into {contraction.id}: {', '.join(contraction.members)} (valued together)\n")
        for edge in contraction.edges:
            out.write(f"  {edge.source} → {edge.target}  {edge.rule}: {edge.evidence}\n")
    out.write(f"\nhierarchy (each [...] is a block evaluated contiguously):\n  {hierarchy_text(game.hierarchy)}\n")
    for repair in game.repairs:
        out.write(
            f"  repaired at {repair.node}: cycle {' → '.join(repair.cycle)} → {repair.cycle[0]}; "
            f"opened {', '.join(repair.expanded)}\n"
        )


def run(args: argparse.Namespace) -> int:
    game = compile_skill(args.skill_dir)
    render_compile_text(game, sys.stdout)
    if args.json is not None:
        write_output(args.json, json_bytes(compiled_json(game)), "compile report")
    return EXIT_PASS
