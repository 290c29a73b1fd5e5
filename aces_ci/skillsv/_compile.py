"""The compiler C: a skill folder → G = (N, D, H), deterministically and with no model in the loop.

Four passes (paper, Appendix C): unitization, dependency extraction, graph normalisation,
dependency–hierarchy reconciliation. The skill is read twice, by the two readers of the house:
:func:`aces_ci.agents.render_skill_dir` gives the exact bytes an agent is staged with (``evals/``
excluded), which is what the renderers cut; :func:`aces_ci.skill.load_skill` gives the parsed
body with its block ranges, from which units are cut. Both number lines the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import __version__
from ..agents import render_skill_dir
from ..errors import InputError
from ..skill import SKILL_FILE, Skill, load_skill
from ._hierarchy import document_tree, place_composites, repaired_hierarchy
from ._model import TRIGGER_ID, CompiledSkill, HierarchyNode, Segment, Unit, UnitGroup
from ._normalize import normalize
from ._rules import extract_edges
from ._tokens import TOKENIZER
from ._units import SectionNode, unitize

COMPILE_SCHEMA_VERSION = 1
"""Version of the compile JSON (``schemas/skillsv-compile.schema.json``)."""


def _check_readable(skill: Skill) -> None:
    """Refuse what cannot be compiled faithfully, naming the file and line."""
    where = str(skill.dir / SKILL_FILE)
    if skill.skill_md.text is None:
        reason = skill.skill_md.problems[0].message if skill.skill_md.problems else "unreadable"
        raise InputError(f"SKILL.md cannot be compiled: {reason}", path=where)
    if skill.skill_md.truncated:
        raise InputError("SKILL.md is larger than the read limit; it cannot be cut into units", path=where)
    front = skill.frontmatter
    if not front.present or front.end_line == 0:
        problem = front.problems[0] if front.problems else None
        message = problem.message if problem else "no frontmatter"
        raise InputError(
            f"the trigger unit m is the frontmatter, and SKILL.md has none usable: {message}",
            path=where,
            line=problem.line if problem else 1,
        )


def _groups(root: SectionNode, player_of: dict[str, str], resources: dict[str, str]) -> tuple[UnitGroup, ...]:
    """SKILL.md, each of its sections (labelled by their heading path), each top-level folder."""

    def players(units: list[str]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(player_of[unit] for unit in units))

    groups = [UnitGroup(SKILL_FILE, SKILL_FILE, 1, players(root.unit_ids()))]

    def walk(section: SectionNode, label: str) -> None:
        for child in section.children:
            if isinstance(child, SectionNode):
                here = f"{label} > {child.title}"
                groups.append(UnitGroup(here, SKILL_FILE, child.line, players(child.unit_ids())))
                walk(child, here)

    walk(root, SKILL_FILE)
    folders: dict[str, list[str]] = {}
    for path, player in resources.items():
        if "/" in path:
            folders.setdefault(path.split("/", 1)[0] + "/", []).append(player)
    for folder, members in sorted(folders.items()):
        groups.append(UnitGroup(folder, folder, 1, tuple(dict.fromkeys(members))))
    return tuple(group for group in groups if group.units)


def compile_skill(skill_dir: Path) -> CompiledSkill:
    """Compile the skill in ``skill_dir``. Raises :class:`InputError` for a skill that cannot be staged."""
    rendered = render_skill_dir(skill_dir)
    resolved = skill_dir.resolve()
    skill = load_skill(resolved, resolved)
    _check_readable(skill)
    source = dict(rendered.files)
    unitized = unitize(skill, SKILL_FILE, source)
    edges = extract_edges(unitized, SKILL_FILE, skill.body.links)
    normalized = normalize([cut.unit for cut in unitized.units], edges)
    resource_units = {cut.unit.file: cut.unit.id for cut in unitized.units if cut.unit.kind == "resource"}
    resources = {path: normalized.player_of[unit_id] for path, unit_id in resource_units.items()}
    tree = document_tree(SKILL_FILE, unitized.root, resource_units)
    place_composites(tree, {c.id: c.members for c in normalized.contractions})
    requires: dict[str, set[str]] = {player.id: set() for player in normalized.players}
    for edge in normalized.edges:
        requires[edge.source].add(edge.target)
    hierarchy, repairs = repaired_hierarchy(tree, {key: frozenset(value) for key, value in requires.items()})
    segments = tuple(
        Segment(
            segment.start,
            segment.end,
            None if segment.owner is None else normalized.player_of[segment.owner],
            frozenset(normalized.player_of[unit] for unit in segment.scaffold_of),
            segment.kind,
        )
        for segment in unitized.segments
    )
    return CompiledSkill(
        name=rendered.name,
        skill_dir=str(resolved),
        tokenizer=TOKENIZER,
        players=normalized.players,
        edges=normalized.edges,
        hierarchy=hierarchy,
        contractions=normalized.contractions,
        repairs=repairs,
        segments=segments,
        skill_file=SKILL_FILE,
        resource_files=resources,
        groups=_groups(unitized.root, normalized.player_of, resources),
        source=source,
    )


def unit_json(unit: Unit) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": unit.id,
        "kind": unit.kind,
        "file": unit.file,
        "lines": list(unit.lines),
        "tokens": unit.tokens,
        "preview": unit.preview,
        "fallback": unit.fallback,
    }
    if unit.members:
        out["members"] = [unit_json(member) for member in unit.members]
    return out


def _hierarchy_json(node: HierarchyNode) -> Any:
    return node if isinstance(node, str) else [_hierarchy_json(child) for child in node]


def report_header(game: CompiledSkill, schema_version: int) -> dict[str, Any]:
    """The fields every SkillSV report opens with."""
    return {
        "schema_version": schema_version,
        "tool": {"name": "aces-ci", "version": __version__},
        "skill": game.name,
        "skill_dir": game.skill_dir,
        "tokenizer": game.tokenizer,
    }


def compiled_json(game: CompiledSkill) -> dict[str, Any]:
    """The compile report as JSON-ready data (``schemas/skillsv-compile.schema.json``)."""
    return {
        **report_header(game, COMPILE_SCHEMA_VERSION),
        "trigger": TRIGGER_ID,
        "units": [unit_json(unit) for unit in game.players],
        "edges": [
            {"from": edge.source, "to": edge.target, "rule": edge.rule, "evidence": edge.evidence}
            for edge in game.edges
        ],
        "hierarchy": _hierarchy_json(game.hierarchy),
        "contractions": [
            {
                "id": contraction.id,
                "members": list(contraction.members),
                "edges": [
                    {"from": e.source, "to": e.target, "rule": e.rule, "evidence": e.evidence}
                    for e in contraction.edges
                ],
            }
            for contraction in game.contractions
        ],
        "repairs": [
            {"node": repair.node, "cycle": list(repair.cycle), "expanded": list(repair.expanded)}
            for repair in game.repairs
        ],
        "scaffold": [
            {"kind": s.kind, "file": game.skill_file, "lines": [s.start, s.end], "units": sorted(s.scaffold_of)}
            for s in game.segments
            if s.owner is None
        ],
    }
