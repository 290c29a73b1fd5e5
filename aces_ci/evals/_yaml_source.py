"""Parse YAML datasets (``evals/evals.yaml``) with the same bounded loader as frontmatter and aces.yml.

:mod:`aces_ci.skill` composes the document into nodes and walks them (depth, size once aliases
are expanded, self-referencing anchors) before anything is constructed; here the walk also records
the line of every value and every duplicate key. The frontmatter loader stops at 64 KiB and accepts
only mappings, while a dataset may be a flat list and run to megabytes, so the bounds are wider.
"""

from __future__ import annotations

from typing import Any

import yaml

from ..skill import (
    ComposedYaml,
    ParseProblem,
    YamlRefused,
    YamlSyntaxError,
    YamlValueError,
    compose_yaml,
    construct_yaml,
    iter_yaml_nodes,
)
from ._document import MAX_DEPTH, MAX_LINE_ENTRIES, Document, JsonPath

MAX_EXPANDED_VALUES = 250_000
"""Values counted with every alias expanded; a billion-laughs document passes this at once."""
_MERGE_TAG = "tag:yaml.org,2002:merge"
_MERGE_KEY = "<<"
_REFUSALS = {
    "too-many-values": ("too-large", f"more than {MAX_EXPANDED_VALUES:,} values once aliases are expanded: not read"),
    "too-deep": ("too-deep", f"values nested deeper than {MAX_DEPTH} levels: not read"),
    "recursive-anchor": ("recursive-anchor", "an anchor refers to itself: not read"),
}


class _Refused(Exception):
    """The node graph is outside our bounds; parsing stops with this problem."""

    def __init__(self, problem: ParseProblem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def _key_text(key: object) -> str:
    """A mapping key as JSON would spell it: YAML may give ``on:`` as True and ``1:`` as 1."""
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


def _measure(composed: ComposedYaml) -> tuple[dict[JsonPath, int], list[ParseProblem]]:
    """The line of each value (an object member: of its key) and the duplicate keys; raises :class:`_Refused`."""

    def key_text(node: yaml.Node) -> str:
        # A merge key (``<<: *base``) has no constructor of its own: the mapping absorbs its value.
        if not isinstance(node, yaml.ScalarNode) or node.tag == _MERGE_TAG:
            return _MERGE_KEY
        return _key_text(composed.key_value(node))

    lines: dict[JsonPath, int] = {}
    problems: list[ParseProblem] = []
    seen: dict[JsonPath, dict[str, int]] = {}
    for visit in iter_yaml_nodes(composed.root, max_values=MAX_EXPANDED_VALUES, max_depth=MAX_DEPTH, key_text=key_text):
        line = visit.line
        if visit.key is not None:
            if not isinstance(visit.key, yaml.ScalarNode):
                message = "a mapping key must be a plain value, not a list or mapping"
                raise _Refused(ParseProblem("yaml-syntax", message, line))
            key = str(visit.path[-1])
            # Each path is walked once (an alias is walked again under another path), so the keys
            # seen under one parent path are the keys of one mapping.
            keys = seen.setdefault(visit.path[:-1], {})
            if key in keys and visit.key.tag != _MERGE_TAG:
                message = (
                    f"key {key!r} appears twice in one mapping (first at line {keys[key]}); YAML keeps only the last"
                )
                problems.append(ParseProblem("duplicate-key", message, line))
            keys.setdefault(key, line)
        if len(lines) < MAX_LINE_ENTRIES:
            lines.setdefault(visit.path, line)
    return lines, problems


def _with_string_keys(value: Any) -> Any:
    """Every mapping key as a string, as in JSON (depth is already bounded by the walk)."""
    if isinstance(value, dict):
        return {_key_text(k): _with_string_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_string_keys(item) for item in value]
    return value


def _syntax_problem(exc: YamlSyntaxError | YamlValueError) -> ParseProblem:
    """A YAML error as a problem at its line; the message names the fault, never the value."""
    if isinstance(exc, YamlSyntaxError) and exc.kind == "too-deep":
        return ParseProblem("too-deep", _REFUSALS["too-deep"][1], 1)
    line = exc.line if isinstance(exc, YamlSyntaxError) or exc.line is not None else exc.context_line
    return ParseProblem("yaml-syntax", f"invalid YAML: {exc.problem or exc.error_type}", line)


def parse_yaml(text: str) -> Document:
    """Parse one YAML document into plain values, bounded, with the line of every value."""
    if not text.strip():
        return Document(None, problems=(ParseProblem("empty", "the file is empty", 1),), parsed=False)
    try:
        composed = compose_yaml(text)
    except YamlSyntaxError as exc:
        return Document(None, problems=(_syntax_problem(exc),), parsed=False)
    if composed is None:
        return Document(None, problems=(ParseProblem("empty", "the file holds no YAML document", 1),), parsed=False)
    lines: dict[JsonPath, int] = {}
    problems: list[ParseProblem] = []
    try:
        lines, problems = _measure(composed)
        data = construct_yaml(composed)
    except _Refused as refused:
        return Document(None, lines, (*problems, refused.problem), parsed=False)
    except YamlRefused as exc:
        code, message = _REFUSALS[exc.kind]
        return Document(None, lines, (*problems, ParseProblem(code, message, exc.line)), parsed=False)
    except YamlValueError as exc:
        if exc.yaml_error:
            problem = _syntax_problem(exc)
        else:  # e.g. a timestamp such as 2024-13-45
            problem = ParseProblem("yaml-syntax", f"YAML value cannot be read: {exc.problem}", None)
        return Document(None, lines, (*problems, problem), parsed=False)
    return Document(_with_string_keys(data), lines, tuple(problems))
