"""Definitions and uses of code symbols, for the def-use rule R4.

Two languages are read: Python (with :mod:`ast`, falling back to identifiers when a snippet does
not parse, as snippets in prose often do not) and POSIX shell (assignments, functions, ``$VAR``
expansions and command names, by pattern). Inline code in prose (`` `OUTPUT_PATH` ``) counts as a
use. Only distinctive names take part: at least three characters, not a Python builtin or keyword,
not a variable every shell has; a symbol defined in more than one unit is ambiguous and emits no
edge, because requiring every definer would forbid coalitions the text does not forbid.
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re
from dataclasses import dataclass
from typing import Literal

Language = Literal["python", "shell"]

PYTHON_INFOS = frozenset({"python", "py", "python3", "ipython", "pycon"})
SHELL_INFOS = frozenset({"bash", "sh", "shell", "zsh", "console", "shell-session", "ksh"})
_PYTHON_SUFFIXES = (".py",)
_SHELL_SUFFIXES = (".sh", ".bash", ".zsh")

_IGNORED = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)
_SHELL_COMMON = frozenset(
    {
        "PATH", "HOME", "PWD", "USER", "SHELL", "TMPDIR", "LANG", "IFS", "OLDPWD", "PS1", "TERM",
        "echo", "cat", "set", "then", "else", "elif", "done", "esac", "for", "while", "case", "function",
        "local", "export", "return", "exit", "read", "test", "true", "false", "shift", "source",
    }
)  # fmt: skip
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SHELL_ASSIGN = re.compile(r"^\s*(?:export\s+|local\s+|readonly\s+)?([A-Za-z_][A-Za-z0-9_]*)=", re.MULTILINE)
_SHELL_FUNC = re.compile(r"^\s*(?:function\s+([A-Za-z_][\w-]*)|([A-Za-z_][\w-]*)\s*\(\s*\))", re.MULTILINE)
_SHELL_EXPANSION = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
_SHELL_COMMAND = re.compile(r"(?:^|[|;&]|\$\()\s*([A-Za-z_][\w-]*)", re.MULTILINE)
_INLINE_CODE = re.compile(r"`([^`\n]+)`")
_MIN_LENGTH = 3


@dataclass(frozen=True)
class Occurrence:
    name: str
    line: int
    """1-based line in the file."""


@dataclass(frozen=True)
class SymbolTable:
    """What one piece of code defines and uses (uses exclude what it defines itself)."""

    defines: tuple[Occurrence, ...] = ()
    uses: tuple[Occurrence, ...] = ()


def language_of_info(info: str) -> Language | None:
    word = info.split(maxsplit=1)[0].lower() if info.split() else ""
    if word in PYTHON_INFOS:
        return "python"
    if word in SHELL_INFOS:
        return "shell"
    return None


def language_of_path(path: str) -> Language | None:
    if path.endswith(_PYTHON_SUFFIXES):
        return "python"
    if path.endswith(_SHELL_SUFFIXES):
        return "shell"
    return None


def _distinctive(name: str) -> bool:
    return len(name) >= _MIN_LENGTH and name not in _IGNORED and name not in _SHELL_COMMON


def _python(code: str, first_line: int, module: str | None) -> SymbolTable:
    defines: dict[str, int] = {}
    uses: dict[str, int] = {}
    if module:
        defines[module] = first_line
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        # A snippet with prompts or ellipses: every identifier is a candidate use.
        for number, line in enumerate(code.split("\n")):
            for match in _IDENT.finditer(line):
                uses.setdefault(match.group(), first_line + number)
        return _table(defines, uses)
    _module_defines(tree, first_line, defines)
    local: set[str] = set(defines)
    for item in ast.walk(tree):
        _read_node(item, first_line, uses, local)
    imported = _imported(tree)
    return _table(defines, {name: line for name, line in uses.items() if name not in local or name in imported})


def _module_defines(tree: ast.Module, first_line: int, defines: dict[str, int]) -> None:
    """Module-level definitions into ``defines``: what another unit can use."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defines.setdefault(node.name, first_line + node.lineno - 1)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        defines.setdefault(leaf.id, first_line + node.lineno - 1)


def _read_node(item: ast.AST, first_line: int, uses: dict[str, int], local: set[str]) -> None:
    """One node's names: those it reads into ``uses`` (first line), those it binds into ``local``."""
    if isinstance(item, ast.Name):
        if isinstance(item.ctx, ast.Store):
            local.add(item.id)
        else:
            uses.setdefault(item.id, first_line + item.lineno - 1)
    elif isinstance(item, ast.Import):
        for alias in item.names:
            uses.setdefault(alias.name.split(".")[0], first_line + item.lineno - 1)
            local.add((alias.asname or alias.name).split(".")[0])
    elif isinstance(item, ast.ImportFrom) and item.module and item.level == 0:
        uses.setdefault(item.module.split(".")[0], first_line + item.lineno - 1)
        for alias in item.names:
            uses.setdefault(alias.name, first_line + item.lineno - 1)
            local.add(alias.asname or alias.name)
    elif isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        local.add(item.name)
    elif isinstance(item, ast.arg):
        local.add(item.arg)


def _imported(tree: ast.Module) -> set[str]:
    """Names brought in by ``from X import name``: used from X even though bound locally."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            names.update(alias.name for alias in node.names)
    return names


def _shell(code: str, first_line: int, module: str | None) -> SymbolTable:
    defines: dict[str, int] = {}
    uses: dict[str, int] = {}
    if module:
        defines[module] = first_line

    def line_at(offset: int) -> int:
        return first_line + code.count("\n", 0, offset)

    for match in _SHELL_ASSIGN.finditer(code):
        defines.setdefault(match.group(1), line_at(match.start(1)))
    for match in _SHELL_FUNC.finditer(code):
        name = match.group(1) or match.group(2)
        defines.setdefault(name, line_at(match.start()))
    for pattern in (_SHELL_EXPANSION, _SHELL_COMMAND):
        for match in pattern.finditer(code):
            name = match.group(1)
            if name not in defines:
                uses.setdefault(name, line_at(match.start(1)))
    return _table(defines, uses)


def _table(defines: dict[str, int], uses: dict[str, int]) -> SymbolTable:
    return SymbolTable(
        tuple(Occurrence(name, line) for name, line in defines.items() if _distinctive(name)),
        tuple(Occurrence(name, line) for name, line in uses.items() if _distinctive(name) and name not in defines),
    )


def symbols(code: str, language: Language, first_line: int, module: str | None = None) -> SymbolTable:
    """Symbols of ``code`` (starting at ``first_line``); ``module`` names a script file's own module."""
    reader = _python if language == "python" else _shell
    return reader(code, first_line, module)


def inline_uses(text: str, first_line: int) -> tuple[Occurrence, ...]:
    """Identifiers in inline code spans and ``$VAR`` expansions of prose."""
    found: dict[str, int] = {}
    for number, line in enumerate(text.split("\n")):
        for span in _INLINE_CODE.finditer(line):
            for match in _IDENT.finditer(span.group(1)):
                found.setdefault(match.group(), first_line + number)
        for match in _SHELL_EXPANSION.finditer(line):
            found.setdefault(match.group(1), first_line + number)
    return tuple(Occurrence(name, line) for name, line in found.items() if _distinctive(name))
