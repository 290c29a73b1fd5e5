"""Unitization (paper, Appendix C.1): cut SKILL.md and the skill's files into valuation units.

* The frontmatter is the trigger unit ``m``.
* Each top-level list item opens a body unit; its indented continuation (sub-bullets, code,
  tables, paragraphs) stays with it: markdown-it's list-item range already holds it, and blank
  lines never end a unit.
* A region between ``<!-- skillsv:protected -->`` and ``<!-- /skillsv:protected -->`` (an optimizer's
  atomically rewritten block) is one protected unit.
* Any other top-level block (paragraph, code, table, HTML, blockquote) is a protected unit of its
  own, flagged as a fallback: it is valued whole because no rule says how to cut it.
* Each other staged file (``scripts/``, ``references/``, ``assets/``, …) is a resource unit.
* Headings and thematic breaks are scaffold, not players: each becomes a scaffold segment that is
  rendered iff a unit under it survives.

The lines between blocks (blank lines, link reference definitions) are appended to the segment
before them, so the segments tile SKILL.md exactly and ρ_del(N) is the file byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..skill import Block, Skill
from ._model import TRIGGER_ID, Segment, Span, Unit, UnitKind
from ._tokens import count_tokens

PROTECT_OPEN = re.compile(r"^\s*<!--\s*skillsv:protected\s*-->\s*$", re.IGNORECASE)
PROTECT_CLOSE = re.compile(r"^\s*<!--\s*/skillsv:protected\s*-->\s*$", re.IGNORECASE)
_PREVIEW_CHARS = 72


@dataclass
class SectionNode:
    """A heading and what lies under it: unit ids and subsections, in document order."""

    title: str
    level: int
    line: int
    children: list[str | SectionNode] = field(default_factory=list)

    def unit_ids(self) -> list[str]:
        found: list[str] = []
        for child in self.children:
            found.extend([child] if isinstance(child, str) else child.unit_ids())
        return found


@dataclass(frozen=True)
class CutUnit:
    """A unit as cut, with what the dependency rules read about it."""

    unit: Unit
    text: str
    """Its text (newlines normalised), resources decoded leniently; empty for binary files."""
    blocks: tuple[Block, ...] = ()
    """Top-level blocks of SKILL.md inside it (none for resources)."""
    section: SectionNode | None = None
    """The innermost section it sits in (None: before the first heading, or a resource)."""
    list_id: int | None = None
    """Which top-level list a list-item unit belongs to (adjacent items of one list share it)."""
    ordered: bool = False
    binary: bool = False


@dataclass(frozen=True)
class Unitized:
    """The result of unitization: units in document order, the segment tiling, the heading tree."""

    units: tuple[CutUnit, ...]
    segments: tuple[Segment, ...]
    root: SectionNode
    """The heading tree of SKILL.md; its direct children are what precedes the first heading."""


def preview(text: str) -> str:
    """The first words of ``text`` on one line."""
    flat = " ".join(text.split())
    return flat if len(flat) <= _PREVIEW_CHARS else flat[: _PREVIEW_CHARS - 1].rstrip() + "…"


def _text_of(lines: Sequence[str], start: int, end: int) -> str:
    return "\n".join(lines[start - 1 : end])


def _list_key(block: Block) -> tuple[bool, str]:
    """Items continue one list while the ordered flag and the marker's delimiter character agree."""
    return block.ordered, block.marker[-1:] if block.marker else ""


class _Cutter:
    """One pass over SKILL.md's top-level blocks."""

    def __init__(self, skill: Skill, skill_file: str) -> None:
        self.skill_file = skill_file
        self.lines = skill.skill_md.lines
        self.root = SectionNode("", 0, 0)
        self.stack: list[SectionNode] = [self.root]
        self.units: list[CutUnit] = []
        # (start, end, owner or None, kind, section for scaffold)
        self.ranges: list[tuple[int, int, str | None, str, SectionNode | None]] = []
        self.next_list_id = 0

    def _new_id(self) -> str:
        return f"u{len(self.units) + 1}"

    def _add_unit(
        self,
        kind: UnitKind,
        start: int,
        end: int,
        blocks: tuple[Block, ...],
        *,
        fallback: bool = False,
        list_id: int | None = None,
        ordered: bool = False,
    ) -> None:
        unit_id = self._new_id()
        text = _text_of(self.lines, start, end)
        unit = Unit(unit_id, kind, (Span(self.skill_file, start, end),), count_tokens(text), preview(text), fallback)
        section = self.stack[-1] if len(self.stack) > 1 else None
        self.units.append(CutUnit(unit, text, blocks, section, list_id, ordered))
        self.stack[-1].children.append(unit_id)
        self.ranges.append((start, end, unit_id, "unit", None))

    def _open_section(self, block: Block) -> None:
        while len(self.stack) > 1 and self.stack[-1].level >= block.level:
            self.stack.pop()
        title = " ".join(_text_of(self.lines, block.start, block.start).strip().lstrip("#").split())
        if block.end > block.start:  # setext: the text line(s), then the underline
            title = " ".join(_text_of(self.lines, block.start, block.end - 1).split())
        node = SectionNode(title.rstrip("#").strip(), block.level, block.start)
        self.stack[-1].children.append(node)
        self.stack.append(node)
        self.ranges.append((block.start, block.end, None, "heading", node))

    def cut(self, blocks: Sequence[Block]) -> None:
        index = 0
        previous_list: tuple[int, tuple[bool, str]] | None = None  # (list id, key) of the item just before
        while index < len(blocks):
            block = blocks[index]
            if block.kind == "html" and PROTECT_OPEN.match(_text_of(self.lines, block.start, block.start)):
                close = next(
                    (
                        j
                        for j in range(index + 1, len(blocks))
                        if blocks[j].kind == "html"
                        and PROTECT_CLOSE.match(_text_of(self.lines, blocks[j].end, blocks[j].end))
                    ),
                    len(blocks) - 1,
                )
                self._add_unit("protected", block.start, blocks[close].end, tuple(blocks[index : close + 1]))
                index, previous_list = close + 1, None
                continue
            if block.kind == "heading":
                self._open_section(block)
                previous_list = None
            elif block.kind == "thematic_break":
                self.ranges.append((block.start, block.end, None, "thematic_break", self.stack[-1]))
                previous_list = None
            elif block.kind == "list_item":
                key = _list_key(block)
                if previous_list is None or previous_list[1] != key:
                    self.next_list_id += 1
                    previous_list = (self.next_list_id, key)
                self._add_unit(
                    "body", block.start, block.end, (block,), list_id=previous_list[0], ordered=block.ordered
                )
            else:
                self._add_unit("protected", block.start, block.end, (block,), fallback=True)
                previous_list = None
            index += 1


def _scaffold_players(node: SectionNode | None, root: SectionNode, body_ids: list[str]) -> frozenset[str]:
    """The units whose survival renders a scaffold span of section ``node``.

    A section with no unit under it falls back to its parent's, so every heading is rendered in the
    full skill; at the top, to every body unit (or, for a body of headings only, the trigger).
    """
    chain = _chain_to(root, node) if node is not None else [root]
    for section in reversed(chain):
        ids = section.unit_ids() if section is not root else body_ids
        if ids:
            return frozenset(ids)
    return frozenset({TRIGGER_ID})


def _chain_to(root: SectionNode, target: SectionNode) -> list[SectionNode]:
    """The sections from ``root`` down to ``target``."""
    path: list[SectionNode] = [root]

    def walk(node: SectionNode) -> bool:
        if node is target:
            return True
        for child in node.children:
            if isinstance(child, SectionNode):
                path.append(child)
                if walk(child):
                    return True
                path.pop()
        return False

    walk(root)
    return path


def _tile(
    ranges: list[tuple[int, int, str | None, str, SectionNode | None]],
    last_line: int,
    root: SectionNode,
    body_ids: list[str],
) -> tuple[Segment, ...]:
    """Segments covering lines 1..``last_line``: each range extended over the gap lines after it."""
    ordered = sorted(ranges, key=lambda item: item[0])
    segments: list[Segment] = []
    for position, (start, end, owner, kind, section) in enumerate(ordered):
        stop = ordered[position + 1][0] - 1 if position + 1 < len(ordered) else last_line
        stop = max(stop, end)
        if owner is not None:
            segments.append(Segment(start, stop, owner))
        else:
            scaffold_kind: Literal["heading", "thematic_break"] = "heading" if kind == "heading" else "thematic_break"
            segments.append(Segment(start, stop, None, _scaffold_players(section, root, body_ids), scaffold_kind))
    return tuple(segments)


def decoded_text(data: bytes) -> str | None:
    """A file's text as the units read it (UTF-8, leniently; newlines normalised); None for a binary file
    (a NUL byte in its first 8 KiB)."""
    if b"\x00" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")


def _resource_unit(index: int, rel: str, data: bytes) -> CutUnit:
    decoded = decoded_text(data)
    binary = decoded is None
    text = decoded or ""
    line_count = max(1, text.count("\n") + (0 if text.endswith("\n") or not text else 1))
    shown = f"{rel} (binary, {len(data):,} bytes)" if binary else f"{rel}: {preview(text)}"
    unit = Unit(f"r{index}", "resource", (Span(rel, 1, line_count),), count_tokens(text), preview(shown))
    return CutUnit(unit, text, binary=binary)


def unitize(skill: Skill, skill_file: str, source: Mapping[str, bytes]) -> Unitized:
    """Cut ``skill`` into units. ``source`` is the staged file tree; every file but ``skill_file`` is a resource."""
    lines = skill.skill_md.lines
    front_end = skill.frontmatter.end_line
    trigger_text = _text_of(lines, 1, front_end)
    trigger = Unit(
        TRIGGER_ID,
        "trigger",
        (Span(skill_file, 1, front_end),),
        count_tokens(trigger_text),
        preview(trigger_text.strip("-\n ")),
    )
    cutter = _Cutter(skill, skill_file)
    cutter.ranges.append((1, front_end, TRIGGER_ID, "unit", None))
    cutter.cut(skill.body.blocks)
    body_ids = [cut.unit.id for cut in cutter.units]
    segments = _tile(cutter.ranges, max(len(lines), front_end), cutter.root, body_ids)
    resources = [
        _resource_unit(index, rel, source[rel])
        for index, rel in enumerate(sorted(rel for rel in source if rel != skill_file), start=1)
    ]
    units = (CutUnit(trigger, trigger_text), *cutter.units, *resources)
    return Unitized(units, segments, cutter.root)
