"""Dependency extraction (paper, Appendix C.2, Table 5): rules R1–R9, each edge with its evidence.

An edge ``u → v`` means *u requires v*: a coalition that keeps u must keep v, so that no kept text
points at a removed file, uses an undefined symbol or hangs without its lead-in. Every rule is a
deterministic surface reading of the artifact; R3, R8 and R9 are the weaker heuristics the paper
marks with a dagger, and their evidence says what matched so an author can audit them.
"""

from __future__ import annotations

import posixpath
import re
import textwrap
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..skill import Link, find_mentions, parse_markdown
from ._model import TRIGGER_ID, Edge, RuleId
from ._symbols import SymbolTable, inline_uses, language_of_info, language_of_path, symbols
from ._units import CutUnit, SectionNode, Unitized

_HEADING_MIN_WORDS = 2
_HEADING_MIN_CHARS = 8
_EXAMPLE_MIN_CHARS = 4
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_DELIMITER = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")


def slug(title: str) -> str:
    """A heading's anchor as GitHub writes it: lower case, punctuation dropped, spaces to hyphens."""
    kept = re.sub(r"[^\w\- ]", "", title.strip().lower())
    return kept.replace(" ", "-")


@dataclass(frozen=True)
class _Context:
    units: tuple[CutUnit, ...]
    skill_file: str
    by_file: dict[str, str]
    """Resource path → unit id."""
    anchors: dict[str, SectionNode]
    sections: tuple[SectionNode, ...]


def _sections(root: SectionNode) -> Iterator[SectionNode]:
    for child in root.children:
        if isinstance(child, SectionNode):
            yield child
            yield from _sections(child)


def primary(section: SectionNode) -> str | None:
    """The unit a reference to ``section`` requires: its own first unit, else its first descendant unit."""
    direct = [child for child in section.children if isinstance(child, str)]
    if direct:
        return direct[0]
    units = section.unit_ids()
    return units[0] if units else None


def _anchors(root: SectionNode) -> dict[str, SectionNode]:
    anchors: dict[str, SectionNode] = {}
    counts: dict[str, int] = {}
    for section in _sections(root):
        base = slug(section.title)
        seen = counts.get(base, 0)
        counts[base] = seen + 1
        anchors[base if seen == 0 else f"{base}-{seen}"] = section
    return anchors


def _where(cut: CutUnit, line: int) -> str:
    return f"{cut.unit.file}:{line}"


class _Extractor:
    def __init__(self, unitized: Unitized, skill_file: str, body_links: tuple[Link, ...]) -> None:
        units = unitized.units
        self.context = _Context(
            units=units,
            skill_file=skill_file,
            by_file={cut.unit.file: cut.unit.id for cut in units if cut.unit.kind == "resource"},
            anchors=_anchors(unitized.root),
            sections=tuple(_sections(unitized.root)),
        )
        self.body_links = body_links
        self.edges: list[Edge] = []
        self.by_line = {
            line: cut
            for cut in units
            if cut.unit.kind != "resource"
            for line in range(cut.unit.lines[0], cut.unit.lines[1] + 1)
        }

    def emit(self, source: str, target: str | None, rule: RuleId, evidence: str) -> None:
        if target is not None and target != source:
            self.edges.append(Edge(source, target, rule, evidence))

    # --- where a piece of text lives -------------------------------------------------------------
    def _unit_at(self, line: int) -> CutUnit | None:
        return self.by_line.get(line)

    def _links(self) -> Iterator[tuple[CutUnit, Link]]:
        """Every link and path mention with the unit holding it (SKILL.md and markdown resources)."""
        for link in self.body_links:
            cut = self._unit_at(link.line)
            if cut is not None and cut.unit.id != TRIGGER_ID:
                yield cut, link
        for cut in self.context.units:
            if cut.unit.kind != "resource" or cut.binary:
                continue
            if cut.unit.file.endswith((".md", ".markdown")):
                for link in parse_markdown(cut.text).links:
                    yield cut, link
            else:
                for number, line in enumerate(cut.text.split("\n"), start=1):
                    for mention in find_mentions(line):
                        yield cut, Link(mention, number, "mention", mention)

    def _resolve_file(self, holder: CutUnit, target: str) -> str | None:
        """The staged file ``target`` names, seen from the file holding it, else from the skill root."""
        bases = [posixpath.dirname(holder.unit.file), ""] if holder.unit.kind == "resource" else [""]
        for base in bases:
            joined = posixpath.normpath(posixpath.join(base, target))
            if joined == self.context.skill_file or joined in self.context.by_file:
                return joined
        return None

    # --- R1 link, R2 path ---------------------------------------------------------------------
    def links_and_paths(self) -> None:
        for holder, link in self._links():
            target = link.target.split("?", 1)[0]
            if "://" in target or target.startswith(("mailto:", "//")):
                continue
            path, _, anchor = target.partition("#")
            where = _where(holder, link.line)
            if link.kind == "mention":
                resolved = self._resolve_file(holder, path)
                if resolved is not None and resolved != self.context.skill_file:
                    self.emit(holder.unit.id, self.context.by_file[resolved], "R2", f"path '{link.target}' at {where}")
                continue
            resolved = self._resolve_file(holder, path) if path else self.context.skill_file
            if resolved is None:
                continue
            if resolved != self.context.skill_file:
                self.emit(
                    holder.unit.id,
                    self.context.by_file[resolved],
                    "R1",
                    f"link '{link.target}' at {where} → {resolved}",
                )
            elif anchor and anchor.lower() in self.context.anchors:
                section = self.context.anchors[anchor.lower()]
                if holder.unit.id not in section.unit_ids():
                    self.emit(
                        holder.unit.id,
                        primary(section),
                        "R1",
                        f"link '{link.target}' at {where} → section '{section.title}' "
                        f"({self.context.skill_file}:{section.line})",
                    )

    # --- R3 heading-ref -------------------------------------------------------------------------
    def heading_mentions(self) -> None:
        for section in self.context.sections:
            title = section.title
            if len(title.split()) < _HEADING_MIN_WORDS or len(title) < _HEADING_MIN_CHARS:
                continue
            pattern = re.compile(r"(?<!\w)" + re.escape(title) + r"(?!\w)")
            target = primary(section)
            for cut, line in self._matches(pattern, skip=set(section.unit_ids())):
                self.emit(
                    cut.unit.id,
                    target,
                    "R3",
                    f"mentions heading '{title}' ({self.context.skill_file}:{section.line}) at {_where(cut, line)}",
                )

    def _matches(self, pattern: re.Pattern[str], skip: set[str]) -> Iterator[tuple[CutUnit, int]]:
        """Each unit (not the trigger, not in ``skip``) whose text matches, with the line of its first match."""
        for cut in self.context.units:
            if cut.unit.id == TRIGGER_ID or cut.unit.id in skip or cut.binary:
                continue
            match = pattern.search(cut.text)
            if match:
                yield cut, cut.unit.lines[0] + cut.text.count("\n", 0, match.start())

    # --- R4 def-use ---------------------------------------------------------------------------
    def _tables(self, cut: CutUnit) -> Iterable[SymbolTable]:
        if cut.unit.kind == "resource":
            language = language_of_path(cut.unit.file)
            if language is not None and not cut.binary:
                module = posixpath.splitext(posixpath.basename(cut.unit.file))[0]
                yield symbols(cut.text, language, 1, module)
            return
        lines = cut.text.split("\n")
        start = cut.unit.lines[0]
        inside_fence: list[str] | None = None
        language = None
        fence_line = 0
        for number, line in enumerate(lines):
            stripped = line.strip()
            if inside_fence is None and stripped.startswith(("```", "~~~")):
                inside_fence, language, fence_line = [], language_of_info(stripped.lstrip("`~")), start + number + 1
            elif inside_fence is not None and stripped.startswith(("```", "~~~")):
                if language is not None:
                    yield symbols(textwrap.dedent("\n".join(inside_fence)), language, fence_line)
                inside_fence = None
            elif inside_fence is not None:
                inside_fence.append(line)
        prose = "\n".join(line for line in lines if not line.strip().startswith(("```", "~~~")))
        yield SymbolTable(uses=inline_uses(prose, start))

    def def_use(self) -> None:
        definers: dict[str, list[tuple[CutUnit, int]]] = {}
        uses: list[tuple[CutUnit, str, int]] = []
        for cut in self.context.units:
            if cut.unit.id == TRIGGER_ID:
                continue
            own: set[str] = set()
            for table in self._tables(cut):
                for occurrence in table.defines:
                    if occurrence.name not in own:
                        own.add(occurrence.name)
                        definers.setdefault(occurrence.name, []).append((cut, occurrence.line))
                uses.extend((cut, occurrence.name, occurrence.line) for occurrence in table.uses)
        for cut, name, line in uses:
            found = definers.get(name, [])
            if len(found) != 1 or found[0][0].unit.id == cut.unit.id:
                continue
            definer, def_line = found[0]
            self.emit(
                cut.unit.id,
                definer.unit.id,
                "R4",
                f"symbol {name} used at {_where(cut, line)}, defined at {_where(definer, def_line)}",
            )

    # --- R5 example-ref -------------------------------------------------------------------------
    def example_refs(self) -> None:
        examples = [
            cut
            for cut in self.context.units
            if cut.unit.kind == "resource" and "examples" in cut.unit.file.split("/")[:-1]
        ]
        for example in examples:
            stem = posixpath.splitext(posixpath.basename(example.unit.file))[0]
            if len(stem) < _EXAMPLE_MIN_CHARS:
                continue
            pattern = re.compile(r"(?<![\w/.-])" + re.escape(stem) + r"(?![\w-])")
            for cut, line in self._matches(pattern, skip={example.unit.id}):
                self.emit(
                    cut.unit.id,
                    example.unit.id,
                    "R5",
                    f"invokes example '{stem}' at {_where(cut, line)} → {example.unit.file}",
                )

    # --- R6 trigger -------------------------------------------------------------------------------
    def trigger(self) -> None:
        for cut in self.context.units:
            if cut.unit.id != TRIGGER_ID:
                self.emit(
                    cut.unit.id, TRIGGER_ID, "R6", "structural convention: every execution unit requires the trigger"
                )

    # --- R7 table-cont, R8 list-cont, R9 lead-in -------------------------------------------------
    def _body_runs(self) -> Iterator[list[CutUnit]]:
        """SKILL.md's body units grouped by the section they sit in, in document order."""
        run: list[CutUnit] = []
        current: object = None
        for cut in self.context.units:
            if cut.unit.kind in ("trigger", "resource"):
                continue
            if run and cut.section is not current:
                yield run
                run = []
            current = cut.section
            run.append(cut)
        if run:
            yield run

    def layout(self) -> None:
        for run in self._body_runs():
            self._table_continuations(run)
            self._list_continuations(run)
            self._lead_ins(run)

    def _table_continuations(self, run: list[CutUnit]) -> None:
        for index, cut in enumerate(run):
            first = cut.blocks[0] if cut.blocks else None
            lines = [line for line in cut.text.split("\n") if line.strip()]
            if first is None or first.kind != "paragraph" or not lines or not all(_TABLE_ROW.match(x) for x in lines):
                continue
            columns = _cells(lines[0])
            for earlier in reversed(run[:index]):
                header = _table_header(earlier)
                if header is not None:
                    header_line, header_columns = header
                    if header_columns == columns:
                        self.emit(
                            cut.unit.id,
                            earlier.unit.id,
                            "R7",
                            f"headerless table rows at {_where(cut, cut.unit.lines[0])} continue the table with "
                            f"header at {_where(earlier, header_line)}",
                        )
                    break

    def _list_continuations(self, run: list[CutUnit]) -> None:
        last_ordered: CutUnit | None = None
        for cut in run:
            if cut.list_id is None:
                last_ordered = None
            elif cut.ordered:
                last_ordered = cut
            elif last_ordered is not None:
                self.emit(
                    cut.unit.id,
                    last_ordered.unit.id,
                    "R8",
                    f"unordered item '{cut.blocks[0].marker}' at {_where(cut, cut.unit.lines[0])} refines ordered "
                    f"item '{last_ordered.blocks[0].marker}' at {_where(last_ordered, last_ordered.unit.lines[0])}",
                )

    def _lead_ins(self, run: list[CutUnit]) -> None:
        for index, lead in enumerate(run[:-1]):
            if not lead.text.rstrip().endswith(":"):
                continue
            follower = run[index + 1]
            if follower.list_id is not None and follower.list_id == lead.list_id:
                continue  # a sibling item of the same list is not introduced by it
            introduced = [follower]
            if follower.list_id is not None:
                for later in run[index + 2 :]:
                    if later.list_id != follower.list_id:
                        break
                    introduced.append(later)
            span = f"{_where(introduced[0], introduced[0].unit.lines[0])}–{introduced[-1].unit.lines[1]}"
            for cut in introduced:
                self.emit(
                    cut.unit.id,
                    lead.unit.id,
                    "R9",
                    f"lead-in ending in ':' at {_where(lead, lead.unit.lines[1])} introduces {span}",
                )


def _cells(row: str) -> int:
    return len(row.strip().strip("|").split("|"))


def _table_header(cut: CutUnit) -> tuple[int, int] | None:
    """(line, column count) of the last table header in a unit's text, or None."""
    lines = cut.text.split("\n")
    found = None
    for number in range(1, len(lines)):
        if _TABLE_DELIMITER.match(lines[number]) and "|" in lines[number] and "|" in lines[number - 1]:
            found = (cut.unit.lines[0] + number - 1, _cells(lines[number - 1]))
    return found


RULE_ORDER = {rule: position for position, rule in enumerate(("R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9"))}


def extract_edges(unitized: Unitized, skill_file: str, body_links: tuple[Link, ...]) -> tuple[Edge, ...]:
    """Every dependency edge, one per (source, target): the strongest rule's (lowest id), its first evidence."""
    extractor = _Extractor(unitized, skill_file, body_links)
    extractor.links_and_paths()
    extractor.heading_mentions()
    extractor.def_use()
    extractor.example_refs()
    extractor.trigger()
    extractor.layout()
    best: dict[tuple[str, str], Edge] = {}
    for edge in extractor.edges:
        key = (edge.source, edge.target)
        if key not in best or RULE_ORDER[edge.rule] < RULE_ORDER[best[key].rule]:
            best[key] = edge
    order = {cut.unit.id: position for position, cut in enumerate(unitized.units)}
    return tuple(sorted(best.values(), key=lambda e: (order[e.source], order[e.target])))
