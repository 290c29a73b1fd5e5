"""What Codex makes of a skill's ``agents/openai.yaml``: the checks behind SPEC015, as plain problems.

Codex reads the file beside SKILL.md for its UI (``interface``), the tools a skill needs
(``dependencies.tools``) and whether the model may pick the skill on its own
(``policy.allow_implicit_invocation``). It fails open, in two ways this module tells apart:

* a value of the wrong type anywhere (``display_name: 3``, ``tools: {}``) stops Codex's typed
  reader, and the **whole file** is ignored;
* a readable but unusable value (empty, over its length limit, a colour that is not ``#RRGGBB``,
  an icon outside ``assets/``, a dependency without ``type`` or ``value``) is ignored **alone**.

Keys Codex does not read are ignored silently; they are reported as notes because they are most
often typos. Sources: openai/codex ``codex-rs/core/src/skills/loader.rs`` (the reader, its limits
and its warnings) and openai/skills ``skill-creator/references/openai_yaml.md`` (the fields).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Literal

from ...skill import load_yaml_mapping

PATH = "agents/openai.yaml"
NAME_LIMIT = 64
TEXT_LIMIT = 1024
_STRING_FIELDS = {
    "interface": {
        "display_name": NAME_LIMIT,
        "short_description": TEXT_LIMIT,
        "icon_small": TEXT_LIMIT,
        "icon_large": TEXT_LIMIT,
        "brand_color": TEXT_LIMIT,
        "default_prompt": TEXT_LIMIT,
    },
    "tool": {
        "type": NAME_LIMIT,
        "value": TEXT_LIMIT,
        "description": TEXT_LIMIT,
        "transport": NAME_LIMIT,
        "command": TEXT_LIMIT,
        "url": TEXT_LIMIT,
    },
}
_TOP_KEYS = ("interface", "dependencies", "policy")
_POLICY_KEYS = ("allow_implicit_invocation",)
_ICONS = ("icon_small", "icon_large")
_HEX_COLOUR = re.compile(r"#[0-9A-Fa-f]{6}")
_WHOLE_FILE = "Codex cannot read the file and ignores all of it"

Effect = Literal["file-ignored", "field-ignored", "unknown-key"]


@dataclass(frozen=True)
class CodexProblem:
    """One thing Codex will not use, where it is (a line of the file), and how much Codex drops."""

    line: int | None
    message: str
    effect: Effect


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"a {type(value).__name__} value"


def _field_ignored(line: int | None, message: str) -> CodexProblem:
    return CodexProblem(line, message, "field-ignored")


def _file_ignored(line: int | None, field: str, kind: str, expected: str) -> CodexProblem:
    return CodexProblem(line, f"{field} is {kind}, not {expected}: {_WHOLE_FILE}", "file-ignored")


class _Lines:
    """Lines of nested keys, found in the text: the YAML loader records top-level keys only."""

    def __init__(self, text: str, top: dict[str, int]) -> None:
        self.lines = text.split("\n")
        self.top = top

    def of(self, key: str, after: int | None) -> int | None:
        """The first line after line ``after`` that holds ``key:`` (or ``- key:``), else ``after``."""
        if after is None:
            return None
        for number in range(after + 1, len(self.lines) + 1):
            stripped = self.lines[number - 1].strip().removeprefix("- ").lstrip()
            if stripped.split(":", 1)[0].strip().strip("'\"") == key and ":" in stripped:
                return number
        return after


def _unknown(
    keys: dict[Any, Any], known: tuple[str, ...] | dict[str, int], where: str, line_of: Callable[[str], int | None]
) -> Iterator[CodexProblem]:
    for key in keys:
        if key not in known:
            message = f"{where}{key} is not a field Codex reads; it is ignored"
            yield CodexProblem(line_of(str(key)), message, "unknown-key")


def _string_field(field: str, value: str, limit: int, line: int | None) -> Iterator[CodexProblem]:
    collapsed = " ".join(value.split())
    if not collapsed:
        yield CodexProblem(line, f"{field} is empty: Codex ignores it", "field-ignored")
    elif len(collapsed) > limit:
        yield _field_ignored(line, f"{field} is {len(collapsed):,} characters; Codex ignores it past {limit}")


def _icon(field: str, value: str, line: int | None, exists: Callable[[str], bool]) -> Iterator[CodexProblem]:
    path = PurePosixPath(value.strip())
    parts = [part for part in path.parts if part != "."]
    if path.is_absolute() or ".." in parts or not parts or parts[0] != "assets":
        message = f"{field} '{value}' must be a relative path under assets/: Codex shows no icon"
        yield CodexProblem(line, message, "field-ignored")
    elif not exists("/".join(parts)):
        yield CodexProblem(line, f"{field} '{value}' does not exist in the skill: Codex shows no icon", "field-ignored")


def _interface(interface: dict[Any, Any], lines: _Lines, exists: Callable[[str], bool]) -> Iterator[CodexProblem]:
    start = lines.top.get("interface")
    limits = _STRING_FIELDS["interface"]
    yield from _unknown(interface, limits, "interface.", lambda key: lines.of(key, start))
    for field, limit in limits.items():
        value = interface.get(field)
        line = lines.of(field, start)
        if value is None:
            continue
        if not isinstance(value, str):
            yield _file_ignored(line, f"interface.{field}", _kind(value), "a string")
            continue
        yield from _string_field(f"interface.{field}", value, limit, line)
        if field == "brand_color" and value.strip() and not _HEX_COLOUR.fullmatch(value.strip()):
            yield _field_ignored(line, f"interface.brand_color '{value}' is not #RRGGBB: Codex ignores it")
        if field in _ICONS and value.strip():
            yield from _icon(f"interface.{field}", value, line, exists)


def _tool(index: int, tool: object, line: int | None) -> Iterator[CodexProblem]:
    """One dependency; its problems are reported at its first line."""
    where = f"dependencies.tools[{index}]"
    if not isinstance(tool, dict):
        yield _file_ignored(line, where, _kind(tool), "a mapping")
        return
    limits = _STRING_FIELDS["tool"]
    yield from _unknown(tool, limits, f"{where}.", lambda key: line)
    for field, limit in limits.items():
        value = tool.get(field)
        if value is None:
            if field in ("type", "value"):
                yield CodexProblem(line, f"{where} has no '{field}': Codex drops this dependency", "field-ignored")
            continue
        if not isinstance(value, str):
            yield _file_ignored(line, f"{where}.{field}", _kind(value), "a string")
        else:
            yield from _string_field(f"{where}.{field}", value, limit, line)


def _dependencies(dependencies: dict[Any, Any], lines: _Lines) -> Iterator[CodexProblem]:
    start = lines.top.get("dependencies")
    yield from _unknown(dependencies, ("tools",), "dependencies.", lambda key: lines.of(key, start))
    tools = dependencies.get("tools")
    tools_line = lines.of("tools", start)
    if tools is None:
        return
    if not isinstance(tools, list):
        yield _file_ignored(tools_line, "dependencies.tools", _kind(tools), "a list")
        return
    line = tools_line
    for index, tool in enumerate(tools):
        line = lines.of("type", line) if isinstance(tool, dict) and "type" in tool else line
        yield from _tool(index, tool, line)


def _policy(policy: dict[Any, Any], lines: _Lines) -> Iterator[CodexProblem]:
    start = lines.top.get("policy")
    yield from _unknown(policy, _POLICY_KEYS, "policy.", lambda key: lines.of(key, start))
    value = policy.get("allow_implicit_invocation")
    if value is not None and not isinstance(value, bool):
        line = lines.of("allow_implicit_invocation", start)
        yield _file_ignored(line, "policy.allow_implicit_invocation", _kind(value), "true or false")


def codex_metadata_problems(text: str, exists: Callable[[str], bool]) -> list[CodexProblem]:
    """Everything in ``agents/openai.yaml`` (its ``text``) that Codex will not use; ``exists`` answers
    whether a path relative to the skill is a file of it (icons)."""
    data, key_lines, problems = load_yaml_mapping(text, first_line=1)
    found = [CodexProblem(p.line, f"{p.message}: {_WHOLE_FILE}", "file-ignored") for p in problems]
    if data is None:
        return found
    lines = _Lines(text, key_lines)
    found.extend(_unknown(data, _TOP_KEYS, "", key_lines.get))
    sections: dict[str, Callable[[dict[Any, Any]], Iterator[CodexProblem]]] = {
        "interface": lambda section: _interface(section, lines, exists),
        "dependencies": lambda section: _dependencies(section, lines),
        "policy": lambda section: _policy(section, lines),
    }
    for key, check in sections.items():
        section = data.get(key)
        if section is None:
            continue
        if not isinstance(section, dict):
            found.append(_file_ignored(key_lines.get(key), key, _kind(section), "a mapping"))
            continue
        found.extend(check(section))
    return found
