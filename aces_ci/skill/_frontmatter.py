"""Split SKILL.md into frontmatter and body, and load the frontmatter with a bounded, safe YAML load.

PyYAML's ``safe_load`` alone is not enough for untrusted input: an alias bomb (a few lines of
anchors expanding to billions of nodes) stalls whatever walks the result, deep nesting hits the
recursion limit, and duplicate keys are silently overwritten. Here the document is first
*composed* into nodes, those nodes are measured, and only a bounded document is constructed.
"""

from __future__ import annotations

from typing import Any

import yaml

from ._model import Frontmatter, ParseProblem

MAX_FRONTMATTER_BYTES = 64 * 1024
"""Frontmatter is metadata: the spec's fields fit in a few KiB. Beyond this we do not parse."""
MAX_EXPANDED_NODES = 10_000
"""Upper bound on nodes after alias expansion; a billion-laughs document exceeds it at once."""
MAX_DEPTH = 50
"""Nesting deeper than this is never metadata."""

_FENCE = "---"


class _Oversized(Exception):
    """The composed document is larger than our bounds after expanding aliases."""


def _expanded_size(node: yaml.Node, memo: dict[int, int], stack: set[int], depth: int) -> int:
    """Node count of ``node`` with every alias expanded, computed without expanding anything."""
    key = id(node)
    if key in memo:
        return memo[key]
    if key in stack:
        raise _Oversized("a recursive anchor refers to itself")
    if depth > MAX_DEPTH:
        raise _Oversized(f"nesting deeper than {MAX_DEPTH} levels")
    stack.add(key)
    total = 1
    if isinstance(node, yaml.SequenceNode):
        for child in node.value:
            total += _expanded_size(child, memo, stack, depth + 1)
            if total > MAX_EXPANDED_NODES:
                raise _Oversized(f"more than {MAX_EXPANDED_NODES:,} values once aliases are expanded")
    elif isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            total += _expanded_size(k, memo, stack, depth + 1) + _expanded_size(v, memo, stack, depth + 1)
            if total > MAX_EXPANDED_NODES:
                raise _Oversized(f"more than {MAX_EXPANDED_NODES:,} values once aliases are expanded")
    stack.discard(key)
    memo[key] = total
    return total


def _mark_line(mark: Any, first_line: int) -> int | None:
    return None if mark is None else first_line + int(mark.line)


def _reader_problem(exc: yaml.reader.ReaderError, text: str, first_line: int) -> ParseProblem:
    """PyYAML refuses control characters before parsing starts; say which and where."""
    line = first_line + text.count("\n", 0, max(0, exc.position))
    char = exc.character if isinstance(exc.character, str) else chr(exc.character)
    return ParseProblem("yaml-syntax", f"YAML cannot contain the control character U+{ord(char):04X}", line)


def load_yaml_mapping(text: str, first_line: int) -> tuple[dict[str, Any] | None, dict[str, int], list[ParseProblem]]:
    """Load ``text`` (which starts at ``first_line`` of its file) as a bounded YAML mapping.

    Returns the mapping (or None), the line of each top-level key, and the problems found.
    """
    problems: list[ParseProblem] = []
    if len(text.encode("utf-8", errors="replace")) > MAX_FRONTMATTER_BYTES:
        problems.append(
            ParseProblem(
                "frontmatter-too-large",
                f"frontmatter is larger than {MAX_FRONTMATTER_BYTES // 1024} KiB: not parsed",
                first_line,
            )
        )
        return None, {}, problems
    try:
        loader = yaml.SafeLoader(text)
    except yaml.reader.ReaderError as exc:
        problems.append(_reader_problem(exc, text, first_line))
        return None, {}, problems
    try:
        try:
            node = loader.get_single_node()
        except yaml.reader.ReaderError as exc:
            problems.append(_reader_problem(exc, text, first_line))
            return None, {}, problems
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            detail = exc.problem or exc.context or "invalid YAML"
            problems.append(ParseProblem("yaml-syntax", f"YAML syntax error: {detail}", _mark_line(mark, first_line)))
            return None, {}, problems
        except yaml.YAMLError as exc:
            problems.append(ParseProblem("yaml-syntax", f"YAML error: {type(exc).__name__}", first_line))
            return None, {}, problems
        except RecursionError:
            problems.append(ParseProblem("yaml-too-deep", "YAML nesting too deep to parse", first_line))
            return None, {}, problems
        if node is None:
            problems.append(ParseProblem("frontmatter-empty", "frontmatter is empty", first_line))
            return None, {}, problems
        try:
            _expanded_size(node, {}, set(), 0)
        except _Oversized as exc:
            problems.append(
                ParseProblem("yaml-bomb", f"frontmatter refused: {exc}", _mark_line(node.start_mark, first_line))
            )
            return None, {}, problems
        if not isinstance(node, yaml.MappingNode):
            kind = "a list" if isinstance(node, yaml.SequenceNode) else "a single value"
            problems.append(
                ParseProblem(
                    "not-mapping",
                    f"frontmatter must be a mapping of keys to values, found {kind}",
                    _mark_line(node.start_mark, first_line),
                )
            )
            return None, {}, problems
        # A repeated key's line is that of its last occurrence: the value YAML keeps, and so the one
        # every later finding about the field describes.
        key_lines: dict[str, int] = {}
        first_lines: dict[str, int] = {}
        for key_node, _ in node.value:
            key = str(key_node.value) if isinstance(key_node, yaml.ScalarNode) else repr(key_node.value)
            line = _mark_line(key_node.start_mark, first_line) or first_line
            if key in first_lines:
                problems.append(
                    ParseProblem(
                        "duplicate-key",
                        f"key '{key}' appears twice (first at line {first_lines[key]}); YAML keeps only the last",
                        line,
                    )
                )
            else:
                first_lines[key] = line
            key_lines[key] = line
        try:
            data = loader.construct_document(node)
        except yaml.MarkedYAMLError as exc:
            # Only the problem text: str(exc) quotes the offending line, which may hold a secret.
            detail = exc.problem or exc.context or "value cannot be constructed"
            problems.append(
                ParseProblem("yaml-syntax", f"YAML error: {detail}", _mark_line(exc.problem_mark, first_line))
            )
            return None, key_lines, problems
        except yaml.YAMLError as exc:
            problems.append(ParseProblem("yaml-syntax", f"YAML error: {type(exc).__name__}", first_line))
            return None, key_lines, problems
        except (RecursionError, ValueError, OverflowError) as exc:
            problems.append(
                ParseProblem("yaml-syntax", f"YAML value cannot be constructed: {type(exc).__name__}", first_line)
            )
            return None, key_lines, problems
    finally:
        loader.dispose()
    # Non-string keys (``123: x``) are kept under their string form: rules report them as unknown keys.
    mapping = {str(k): v for k, v in data.items()} if isinstance(data, dict) else None
    return mapping, key_lines, problems


def split_frontmatter(text: str) -> tuple[Frontmatter, str, int]:
    """Split SKILL.md text into its frontmatter and body.

    Returns the frontmatter, the body text, and the 1-based line at which the body starts.
    """
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != _FENCE:
        leading = next((i for i, ln in enumerate(lines) if ln.strip()), None)
        problem_line = (leading or 0) + 1
        if leading is not None and lines[leading].rstrip() == _FENCE:
            code, msg = "frontmatter-not-first", "frontmatter fence '---' must be the very first line"
        else:
            code, msg = "frontmatter-missing", "SKILL.md has no YAML frontmatter (a '---' block at the top)"
        return Frontmatter(None, False, problems=(ParseProblem(code, msg, problem_line),)), text, 1
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip() in (_FENCE, "...")), None)
    if close is None:
        problem = ParseProblem("frontmatter-unclosed", "frontmatter opened with '---' on line 1 is never closed", 1)
        return Frontmatter(None, True, problems=(problem,)), "", len(lines) + 1
    yaml_text = "\n".join(lines[1:close])
    data, key_lines, problems = load_yaml_mapping(yaml_text, first_line=2)
    front = Frontmatter(data, True, 1, close + 1, key_lines, tuple(problems))
    return front, "\n".join(lines[close + 1 :]), close + 2
