"""The house's layering contract, read from the source with ``ast``: which room imports which.

A *room* is a direct child of ``aces_ci/`` (a package or a module). :data:`LAYERS` lists them from
the floor up; a room may import only rooms listed before it. Every import counts — at module level,
under ``if TYPE_CHECKING:``, inside a function — because each is an arrow a reader has to follow and
a lazy import is still a dependency. One exception, the package's face: ``aces_ci/__init__.py`` (the floor,
since every ``aces_ci.*`` import runs it first) may name any room under ``if TYPE_CHECKING:`` for type
checkers, while its PEP 562 ``__getattr__`` imports them by name on first use; a real import there
still points up and is refused. A second rule keeps rooms' insides private: outside its own
room, nobody imports ``aces_ci.<room>._module`` (tests included) when the room exports the name.

Run ``python -m tests.layering`` to print the room table of ARCHITECTURE.md as the code has it.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

LAYERS: tuple[str, ...] = (
    "__init__",
    "errors",
    "safe_text",
    "schemas",
    "atomic",
    "frozen",
    "redact",
    "skill",
    "evals",
    "models",
    "stats",
    "scan",
    "agents",
    "grading",
    "engine",
    "trials",
    "skillsv",
    "config",
    "compress",
    "report",
    "gate",
    "github",
    "app",
    "commands",
    "cli",
)
"""From the floor up: a room imports only rooms listed before it."""

FACE = "__init__"
"""The package's face, ``aces_ci/__init__.py``: the floor, naming the public API of every room lazily."""


@dataclass(frozen=True)
class Import:
    """One import statement of ours: who imports, what, and where."""

    file: Path
    line: int
    room: str
    """The importing room (for a test file: ``tests``)."""
    module: tuple[str, ...]
    """The imported module below ``aces_ci``, e.g. ``("scan", "_runner")``."""
    names: tuple[str, ...]
    """Names taken from it (``from m import a, b``); empty for ``import m``."""
    type_only: bool = False
    """Under ``if TYPE_CHECKING:``: for type checkers only, never run."""

    @property
    def target_room(self) -> str:
        return self.module[0] if self.module else "__init__"


def room_of(path: Path, package_root: Path) -> str:
    first = path.relative_to(package_root).parts[0]
    return first[:-3] if first.endswith(".py") else first


def _package_of(path: Path, package_root: Path) -> list[str]:
    """The dotted package (below ``aces_ci``) that a relative import in ``path`` starts from."""
    parts = list(path.relative_to(package_root).with_suffix("").parts)
    return parts[:-1]


def _type_checking_imports(tree: ast.Module) -> set[ast.AST]:
    """The import statements inside ``if TYPE_CHECKING:`` blocks (``TYPE_CHECKING`` or ``typing.TYPE_CHECKING``)."""
    found: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            for statement in node.body:
                found.update(n for n in ast.walk(statement) if isinstance(n, (ast.Import, ast.ImportFrom)))
    return found


def imports_in(path: Path, package_root: Path | None, room: str) -> Iterator[Import]:
    """Every import of ``aces_ci`` in one file; ``package_root`` resolves relative imports (None: tests)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    type_only = _type_checking_imports(tree)
    for node in ast.walk(tree):
        for found in _imports_of(node, path, package_root, room):
            yield replace(found, type_only=node in type_only)


def _imports_of(node: ast.AST, path: Path, package_root: Path | None, room: str) -> Iterator[Import]:
    """The imports of ``aces_ci`` one statement makes (none when it is not an import of ours)."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            parts = alias.name.split(".")
            if parts[0] == "aces_ci":
                yield Import(path, node.lineno, room, tuple(parts[1:]), ())
    elif isinstance(node, ast.ImportFrom):
        names = tuple(alias.name for alias in node.names)
        if node.level == 0:
            parts = (node.module or "").split(".")
            if parts[0] != "aces_ci":
                return
            module = parts[1:]
        else:
            if package_root is None:
                return  # a relative import between test modules
            base = _package_of(path, package_root)
            base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
            module = base + (node.module.split(".") if node.module else [])
        if module:
            yield Import(path, node.lineno, room, tuple(module), names)
        else:  # ``from aces_ci import scan`` / ``from .. import x``: each name may be a room
            for name in names:
                yield Import(path, node.lineno, room, (name,) if name in LAYERS else (), (name,))


def package_imports(package_root: Path) -> list[Import]:
    found = []
    for path in sorted(package_root.rglob("*.py")):
        found.extend(imports_in(path, package_root, room_of(path, package_root)))
    return found


def room_edges(imports: list[Import]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = defaultdict(set)
    for item in imports:
        if item.target_room != item.room:
            edges[item.room].add(item.target_room)
    return edges


def layering_violations(package_root: Path) -> list[str]:
    """Every import that points up (or sideways into an unknown room), as ``file:line: a → b``."""
    rank = {room: index for index, room in enumerate(LAYERS)}
    problems = []
    rooms = {room_of(path, package_root) for path in package_root.rglob("*.py")}
    for room in sorted(rooms - set(rank)):
        problems.append(f"{package_root / room}: room {room!r} is not in tests/layering.py LAYERS")
    for item in package_imports(package_root):
        target = item.target_room
        if target == item.room or target not in rank or item.room not in rank:
            continue
        if item.room == FACE and item.type_only:
            continue  # the face names every room for type checkers; its __getattr__ imports them on first use
        if rank[target] > rank[item.room]:
            problems.append(f"{item.file}:{item.line}: {item.room} imports {target}, which sits above it")
    return problems


def _exported(module: str) -> set[str]:
    imported = importlib.import_module(f"aces_ci.{module}")
    return set(getattr(imported, "__all__", ()))


def private_imports(package_root: Path, test_root: Path | None = None) -> list[str]:
    """Imports of another room's private modules where that room exports the name publicly.

    In the package every such import is refused (export the name instead). In tests a private
    module may be imported for what its room does not export — a test of the room's internals.
    """
    problems = []
    for item in package_imports(package_root):
        private = any(part.startswith("_") for part in item.module[1:])
        if private and item.target_room != item.room:
            problems.append(f"{item.file}:{item.line}: {item.room} imports {'.'.join(item.module)}, a private module")
    if test_root is not None:
        for path in sorted(test_root.rglob("*.py")):
            for item in imports_in(path, None, "tests"):
                if not any(part.startswith("_") for part in item.module[1:]) or not item.names:
                    continue
                public = _exported(item.target_room)
                shadowed = sorted(name for name in item.names if name in public)
                if shadowed:
                    problems.append(
                        f"{path}:{item.line}: imports {', '.join(shadowed)} from {'.'.join(item.module)}; "
                        f"use aces_ci.{item.target_room}"
                    )
    return problems


def room_table(package_root: Path) -> list[tuple[str, str]]:
    """(room, its imports of ours) in layer order, as ARCHITECTURE.md's table states them."""
    edges = room_edges(package_imports(package_root))
    present = {room_of(path, package_root) for path in package_root.rglob("*.py")}
    rows = []
    for room in LAYERS:
        if room == "__init__" or room not in present:
            continue
        targets = sorted(target for target in edges.get(room, ()) if target != "__init__")
        rows.append((room, ", ".join(targets) or "nothing"))
    return rows


if __name__ == "__main__":
    root = Path(__file__).resolve().parents[1] / "aces_ci"
    for room, imports in room_table(root):
        print(f"{room}: {imports}")
    sys.exit(1 if layering_violations(root) else 0)
