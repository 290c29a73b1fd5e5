"""The compiled game G = (N, D, H) of one skill, as plain frozen data.

Players are the valuation units after strongly connected components were contracted; a composite
player keeps its members (the units the compiler cut) so reports can still point at their lines.
Everything a renderer needs is here too: the source bytes of every staged file and, for SKILL.md,
the segments that tile the file line by line, each owned by one player or one scaffold span.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

UnitKind = Literal["trigger", "body", "protected", "resource"]
RuleId = Literal["R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9"]
Operator = Literal["del", "pad"]
OPERATORS: tuple[Operator, ...] = ("del", "pad")

RULE_NAMES: dict[str, str] = {
    "R1": "link",
    "R2": "path",
    "R3": "heading-ref",
    "R4": "def-use",
    "R5": "example-ref",
    "R6": "trigger",
    "R7": "table-cont",
    "R8": "list-cont",
    "R9": "lead-in",
}
"""The dependency rules of the SkillSV paper's Table 5."""

TRIGGER_ID = "m"
"""Id of the frontmatter trigger unit: every other unit requires it."""

HierarchyNode: TypeAlias = "str | tuple[HierarchyNode, ...]"
"""A unit id (a leaf) or a sampling block: a tuple of nodes whose units appear contiguously in an order."""


@dataclass(frozen=True)
class Span:
    """Lines ``start``–``end`` (1-based, inclusive) of ``file`` (a path inside the skill)."""

    file: str
    start: int
    end: int


@dataclass(frozen=True)
class Unit:
    """One valuation unit: a player of the game (or, inside a composite, one of its members)."""

    id: str
    kind: UnitKind
    spans: tuple[Span, ...]
    """Where its text lives; one span, except for a composite (one per member)."""
    tokens: int
    preview: str
    """The first words of its text, for people."""
    fallback: bool = False
    """A protected unit made of top-level content no unit rule covers: flagged in the report."""
    members: tuple[Unit, ...] = ()
    """For a contracted strongly connected component: the units it joins (kept and removed together)."""

    @property
    def file(self) -> str:
        return self.spans[0].file

    @property
    def lines(self) -> tuple[int, int]:
        return (self.spans[0].start, self.spans[0].end)


@dataclass(frozen=True)
class Edge:
    """``source`` requires ``target``: a feasible coalition holding ``source`` holds ``target``."""

    source: str
    target: str
    rule: RuleId
    evidence: str


@dataclass(frozen=True)
class Contraction:
    """A dependency cycle contracted into one composite player; valuation cannot separate its members."""

    id: str
    members: tuple[str, ...]
    edges: tuple[Edge, ...]
    """The edges among the members that formed the cycle."""


@dataclass(frozen=True)
class Repair:
    """One expansion of the dependency–hierarchy compatibility pass (paper, Appendix C.4)."""

    node: str
    """The hierarchy node repaired, named by its path of headings and folders."""
    cycle: tuple[str, ...]
    """The witnessing cycle of blocks in the quotient graph (each block named by its first unit)."""
    expanded: tuple[str, ...]
    """The blocks on the cycle that were opened into their child blocks."""


@dataclass(frozen=True)
class Segment:
    """A run of lines of SKILL.md owned by one player, or a scaffold span (heading, thematic break).

    Segments tile the file: every line belongs to exactly one, and their bytes in order are the file.
    """

    start: int
    end: int
    owner: str | None
    """The player whose text this is; None for scaffold."""
    scaffold_of: frozenset[str] = frozenset()
    """For scaffold: the players under it; it is rendered iff one of them is kept."""
    kind: Literal["unit", "heading", "thematic_break"] = "unit"


@dataclass(frozen=True)
class UnitGroup:
    """A section of SKILL.md, SKILL.md itself, or a folder: where values are summed up the hierarchy."""

    label: str
    file: str
    line: int
    units: tuple[str, ...]
    """The players under it."""


@dataclass(frozen=True)
class CompiledSkill:
    """G = (N, D, H) for one skill, with what is needed to render any feasible coalition."""

    name: str
    skill_dir: str
    tokenizer: str
    players: tuple[Unit, ...]
    edges: tuple[Edge, ...]
    """Edges between players after normalisation, one per (source, target) pair."""
    hierarchy: tuple[HierarchyNode, ...]
    """The repaired hierarchy: the root block."""
    contractions: tuple[Contraction, ...] = ()
    repairs: tuple[Repair, ...] = ()
    segments: tuple[Segment, ...] = ()
    """SKILL.md line by line."""
    skill_file: str = "SKILL.md"
    resource_files: Mapping[str, str] = field(default_factory=dict)
    """Resource file path → the player that owns it."""
    groups: tuple[UnitGroup, ...] = ()
    """Sections and folders in document order, for aggregating values."""
    source: Mapping[str, bytes] = field(default_factory=dict, repr=False)
    """The staged files of the original skill (what ρ(N) must reproduce), ``evals/`` excluded."""

    @property
    def player_ids(self) -> tuple[str, ...]:
        return tuple(unit.id for unit in self.players)

    def player(self, player_id: str) -> Unit:
        for unit in self.players:
            if unit.id == player_id:
                return unit
        raise KeyError(player_id)

    def requires(self) -> dict[str, frozenset[str]]:
        """Each player's direct prerequisites."""
        needs: dict[str, set[str]] = {unit.id: set() for unit in self.players}
        for edge in self.edges:
            needs[edge.source].add(edge.target)
        return {key: frozenset(value) for key, value in needs.items()}
