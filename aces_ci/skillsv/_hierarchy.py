"""The hierarchy H and its repair against D (paper, Section 3.1 and Appendix C.4).

H is the document tree: the skill folder holds the trigger, SKILL.md and the other files and
folders; SKILL.md holds its sections, each section its units and subsections. Every internal node
is a sampling block: its units appear contiguously in an insertion order, so a unit is judged
against whole sections rather than interleaved fragments.

D and H are compiled independently and may disagree: a unit of one block may need a unit of a
sibling block that itself needs the first. At each node, bottom-up, the compatibility pass builds
the quotient graph of its child blocks (c′ → c when a unit under c requires one under c′); while
it has a cycle, every block on one deterministic witnessing cycle is opened into its own repaired
child blocks. Each expansion and its cycle are recorded. The result admits a feasible order at
every node, while every contiguity constraint not implicated in a conflict is kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ._model import TRIGGER_ID, HierarchyNode, Repair
from ._units import SectionNode


@dataclass
class Block:
    """A hierarchy node while it is being built: a label (for repair records) and its children."""

    label: str
    children: list[Block | str | None] = field(default_factory=list)

    def leaves(self) -> list[str]:
        found: list[str] = []
        for child in self.children:
            if isinstance(child, Block):
                found.extend(child.leaves())
            elif child is not None:
                found.append(child)
        return found


def _from_sections(section: SectionNode, label: str) -> Block:
    block = Block(label)
    for child in section.children:
        if isinstance(child, str):
            block.children.append(child)
        else:
            block.children.append(_from_sections(child, f"{label} > {child.title or '(untitled)'}"))
    return block


def document_tree(skill_file: str, root_section: SectionNode, resource_units: Mapping[str, str]) -> Block:
    """H before normalisation: ``[m, SKILL.md…, file or folder…]``, folders and files by name."""
    root = Block("(skill)", [TRIGGER_ID, _from_sections(root_section, skill_file)])
    folders: dict[str, Block] = {"": root}
    for path in sorted(resource_units):
        parts = path.split("/")
        parent = root
        for depth in range(1, len(parts)):
            folder = "/".join(parts[:depth])
            if folder not in folders:
                folders[folder] = Block(f"{folder}/")
                parent.children.append(folders[folder])
            parent = folders[folder]
        parent.children.append(resource_units[path])
    return root


def _path_to(block: Block, leaf: str) -> list[tuple[Block, int]] | None:
    for index, child in enumerate(block.children):
        if child == leaf:
            return [(block, index)]
        if isinstance(child, Block):
            below = _path_to(child, leaf)
            if below is not None:
                return [(block, index), *below]
    return None


def place_composites(root: Block, contractions: Mapping[str, Sequence[str]]) -> None:
    """Put each composite where its members were: in their lowest common block, before the child
    that held its first member; the members' own leaves are removed."""
    for composite, members in contractions.items():
        paths = [path for path in (_path_to(root, member) for member in members) if path is not None]
        if not paths:
            continue
        depth = 0
        while all(len(path) > depth + 1 for path in paths) and len({id(path[depth + 1][0]) for path in paths}) == 1:
            depth += 1
        holder, position = paths[0][depth]
        for path in paths:
            owner, index = path[-1]
            owner.children[index] = None
        holder.children.insert(position, composite)


def _clean(node: Block | str | None) -> HierarchyNode | None:
    """Nested tuples without empty blocks; a block of one child is that child."""
    if node is None or isinstance(node, str):
        return node
    children = [cleaned for cleaned in map(_clean, node.children) if cleaned is not None]
    if not children:
        return None
    return children[0] if len(children) == 1 else tuple(children)


def _relabel(node: Block | str | None) -> Block | str | None:
    """Drop empty blocks and collapse single-child blocks, keeping labels for what remains."""
    if node is None or isinstance(node, str):
        return node
    children: list[Block | str | None] = [child for child in map(_relabel, node.children) if child is not None]
    if not children:
        return None
    if len(children) == 1:
        return children[0]
    return Block(node.label, children)


def _find_cycle(successors: Sequence[Sequence[int]]) -> list[int] | None:
    """The first cycle a depth-first search in index order meets, as a list of node indices."""
    state = [0] * len(successors)  # 0 new, 1 on the path, 2 done
    for start in range(len(successors)):
        if state[start]:
            continue
        path: list[int] = []
        work: list[tuple[int, int]] = [(start, 0)]
        while work:
            node, next_child = work.pop()
            if next_child == 0:
                state[node] = 1
                path.append(node)
            if next_child < len(successors[node]):
                work.append((node, next_child + 1))
                child = successors[node][next_child]
                if state[child] == 1:
                    return path[path.index(child) :]
                if state[child] == 0:
                    work.append((child, 0))
                continue
            state[node] = 2
            path.pop()
    return None


def _name(node: Block | str) -> str:
    if isinstance(node, str):
        return node
    leaves = node.leaves()
    return f"[{leaves[0]}…{leaves[-1]}]" if len(leaves) > 1 else f"[{leaves[0]}]"


def _repair(node: Block | str, requires: Mapping[str, frozenset[str]], repairs: list[Repair]) -> Block | str:
    if isinstance(node, str):
        return node
    children: list[Block | str] = [_repair(child, requires, repairs) for child in node.children if child is not None]
    while True:
        owner = {leaf: index for index, child in enumerate(children) for leaf in _leaves(child)}
        successors: list[set[int]] = [set() for _ in children]
        for index, child in enumerate(children):
            for unit in _leaves(child):
                for needed in requires.get(unit, ()):
                    before = owner.get(needed)
                    if before is not None and before != index:
                        successors[before].add(index)
        cycle = _find_cycle([sorted(s) for s in successors])
        if cycle is None:
            return Block(node.label, list(children))
        opened = [index for index in cycle if isinstance(children[index], Block)]
        if not opened:  # only units on the cycle: D itself is cyclic, which normalisation rules out
            raise AssertionError(f"dependency cycle among units {[children[i] for i in cycle]}")
        repairs.append(
            Repair(node.label, tuple(_name(children[i]) for i in cycle), tuple(_name(children[i]) for i in opened))
        )
        expanded: list[Block | str] = []
        for index, child in enumerate(children):
            if index in opened and isinstance(child, Block):
                expanded.extend(c for c in child.children if c is not None)
            else:
                expanded.append(child)
        children = expanded


def _leaves(node: Block | str) -> list[str]:
    return [node] if isinstance(node, str) else node.leaves()


def repaired_hierarchy(
    root: Block, requires: Mapping[str, frozenset[str]]
) -> tuple[tuple[HierarchyNode, ...], tuple[Repair, ...]]:
    """The repaired hierarchy as nested tuples (the root is always a tuple) and the repairs made."""
    tidy = _relabel(root)
    repairs: list[Repair] = []
    if tidy is None:
        return (), ()
    repaired = _repair(tidy, requires, repairs)
    cleaned = _clean(repaired)
    top: tuple[HierarchyNode, ...] = cleaned if isinstance(cleaned, tuple) else (cleaned,) if cleaned else ()
    return top, tuple(repairs)


def repair_hierarchy(
    hierarchy: HierarchyNode, requires: Mapping[str, frozenset[str]]
) -> tuple[tuple[HierarchyNode, ...], tuple[Repair, ...]]:
    """:func:`repaired_hierarchy` for a hierarchy written as nested tuples (blocks labelled by position)."""

    def block(node: HierarchyNode, label: str) -> Block | str:
        if isinstance(node, str):
            return node
        return Block(label, [block(child, f"{label}.{index}") for index, child in enumerate(node)])

    root = block(hierarchy, "root")
    return repaired_hierarchy(root if isinstance(root, Block) else Block("root", [root]), requires)
