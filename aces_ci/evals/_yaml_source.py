"""Parse YAML datasets (``evals/evals.yaml``) with the same bounds as the JSON reader.

The document is first *composed* into nodes; the node graph is measured (depth, size once aliases
are expanded, self-referencing anchors, duplicate keys) and the line of every value recorded.
Only a document within bounds is constructed, with PyYAML's safe constructor. The frontmatter
loader of :mod:`aces_ci.skill` does the same for SKILL.md, but stops at 64 KiB and accepts only
mappings, while a dataset may be a flat list and run to megabytes.
"""

from __future__ import annotations

from typing import Any

import yaml

from ..skill import ParseProblem
from ._document import MAX_DEPTH, MAX_LINE_ENTRIES, Document, JsonPath

MAX_EXPANDED_VALUES = 250_000
"""Values counted with every alias expanded; a billion-laughs document passes this at once."""
_MERGE_TAG = "tag:yaml.org,2002:merge"


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


class _NodeMeasure:
    """Walks the composed nodes once: bounds, duplicate keys, and the line of each value."""

    def __init__(self, loader: yaml.SafeLoader) -> None:
        self.loader = loader
        self.lines: dict[JsonPath, int] = {}
        self.problems: list[ParseProblem] = []
        self._count = 0
        self._open: set[int] = set()

    def walk(self, node: yaml.Node, path: JsonPath) -> None:
        line = node.start_mark.line + 1
        self._count += 1
        if self._count > MAX_EXPANDED_VALUES:
            message = f"more than {MAX_EXPANDED_VALUES:,} values once aliases are expanded: not read"
            raise _Refused(ParseProblem("too-large", message, line))
        if len(path) > MAX_DEPTH:
            raise _Refused(ParseProblem("too-deep", f"values nested deeper than {MAX_DEPTH} levels: not read", line))
        if id(node) in self._open:
            raise _Refused(ParseProblem("recursive-anchor", "an anchor refers to itself: not read", line))
        if len(self.lines) < MAX_LINE_ENTRIES:
            self.lines.setdefault(path, line)
        self._open.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            for index, child in enumerate(node.value):
                self.walk(child, (*path, index))
        elif isinstance(node, yaml.MappingNode):
            self._walk_mapping(node, path)
        self._open.discard(id(node))

    def _walk_mapping(self, node: yaml.MappingNode, path: JsonPath) -> None:
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            line = key_node.start_mark.line + 1
            if not isinstance(key_node, yaml.ScalarNode):
                raise _Refused(
                    ParseProblem("yaml-syntax", "a mapping key must be a plain value, not a list or mapping", line)
                )
            # A merge key (``<<: *base``) has no constructor of its own: the mapping absorbs its value.
            merge = key_node.tag == _MERGE_TAG
            key = "<<" if merge else _key_text(self.loader.construct_object(key_node))
            if key in seen and not merge:
                message = (
                    f"key {key!r} appears twice in one mapping (first at line {seen[key]}); YAML keeps only the last"
                )
                self.problems.append(ParseProblem("duplicate-key", message, line))
            seen.setdefault(key, line)
            if len(self.lines) < MAX_LINE_ENTRIES:
                self.lines.setdefault((*path, key), line)
            self.walk(value_node, (*path, key))


def _with_string_keys(value: Any) -> Any:
    """Every mapping key as a string, as in JSON (depth is already bounded by the measure)."""
    if isinstance(value, dict):
        return {_key_text(k): _with_string_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_string_keys(item) for item in value]
    return value


def _syntax_problem(exc: yaml.YAMLError, text: str) -> ParseProblem:
    """A YAML error as a problem at its line; the message names the fault, never the value."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    position = getattr(exc, "position", None)  # ReaderError: a character YAML does not allow
    line: int | None = None
    if mark is not None:
        line = int(mark.line) + 1
    elif isinstance(position, int):
        line = text.count("\n", 0, position) + 1
    detail = getattr(exc, "problem", None) or getattr(exc, "reason", None) or type(exc).__name__
    return ParseProblem("yaml-syntax", f"invalid YAML: {detail}", line)


def parse_yaml(text: str) -> Document:
    """Parse one YAML document into plain values, bounded, with the line of every value."""
    if not text.strip():
        return Document(None, problems=(ParseProblem("empty", "the file is empty", 1),), parsed=False)
    try:
        # The reader rejects control characters as soon as it is built, so building it is inside the try.
        loader = yaml.SafeLoader(text)
    except yaml.YAMLError as exc:
        return Document(None, problems=(_syntax_problem(exc, text),), parsed=False)
    measure = _NodeMeasure(loader)
    try:
        node = loader.get_single_node()
        if node is None:
            return Document(None, problems=(ParseProblem("empty", "the file holds no YAML document", 1),), parsed=False)
        measure.walk(node, ())
        data = loader.construct_document(node)
    except _Refused as refused:
        return Document(None, measure.lines, (*measure.problems, refused.problem), parsed=False)
    except yaml.YAMLError as exc:
        return Document(None, measure.lines, (*measure.problems, _syntax_problem(exc, text)), parsed=False)
    except (ValueError, OverflowError) as exc:  # e.g. a timestamp such as 2024-13-45
        problem = ParseProblem("yaml-syntax", f"YAML value cannot be read: {exc}", None)
        return Document(None, measure.lines, (*measure.problems, problem), parsed=False)
    finally:
        loader.dispose()
    return Document(_with_string_keys(data), measure.lines, tuple(measure.problems))
