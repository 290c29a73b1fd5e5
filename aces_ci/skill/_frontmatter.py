"""Split SKILL.md into frontmatter and body, and load the frontmatter with the bounded YAML loader.

PyYAML's ``safe_load`` alone is not enough for untrusted input: an alias bomb (a few lines of
anchors expanding to billions of nodes) stalls whatever walks the result, deep nesting hits the
recursion limit, and duplicate keys are silently overwritten. :mod:`aces_ci.skill._yaml` composes
the document into nodes, walks them within the bounds below, and only then constructs values.
"""

from __future__ import annotations

from typing import Any

import yaml

from ._model import Frontmatter, ParseProblem
from ._yaml import YamlRefused, YamlSyntaxError, YamlValueError, compose_yaml, construct_yaml, iter_yaml_nodes, raw_key

MAX_FRONTMATTER_BYTES = 64 * 1024
"""Frontmatter is metadata: the spec's fields fit in a few KiB. Beyond this we do not parse."""
MAX_EXPANDED_NODES = 10_000
"""Upper bound on values after alias expansion; a billion-laughs document exceeds it at once."""
MAX_DEPTH = 50
"""Nesting deeper than this is never metadata."""

_FENCE = "---"
_REFUSALS = {
    "too-many-values": f"more than {MAX_EXPANDED_NODES:,} values once aliases are expanded",
    "too-deep": f"nesting deeper than {MAX_DEPTH} levels",
    "recursive-anchor": "a recursive anchor refers to itself",
}


def _syntax_problem(exc: YamlSyntaxError, first_line: int) -> ParseProblem:
    line = None if exc.line is None else first_line + exc.line - 1
    if exc.kind == "control-character":
        return ParseProblem("yaml-syntax", f"YAML cannot contain the control character {exc.char}", line)
    if exc.kind == "too-deep":  # past the recursion limit: said as the walk says it, whichever loader composed
        return ParseProblem("yaml-bomb", f"frontmatter refused: {_REFUSALS['too-deep']}", first_line)
    if not exc.marked:
        return ParseProblem("yaml-syntax", f"YAML error: {exc.error_type}", first_line)
    return ParseProblem("yaml-syntax", f"YAML syntax error: {exc.problem or exc.context or 'invalid YAML'}", line)


def _value_problem(exc: YamlValueError, first_line: int) -> ParseProblem:
    if exc.marked:
        line = None if exc.line is None else first_line + exc.line - 1
        detail = exc.problem or exc.context or "value cannot be constructed"
        return ParseProblem("yaml-syntax", f"YAML error: {detail}", line)
    if exc.yaml_error:
        return ParseProblem("yaml-syntax", f"YAML error: {exc.error_type}", first_line)
    return ParseProblem("yaml-syntax", f"YAML value cannot be constructed: {exc.error_type}", first_line)


def _too_large(first_line: int) -> ParseProblem:
    message = f"frontmatter is larger than {MAX_FRONTMATTER_BYTES // 1024} KiB: not parsed"
    return ParseProblem("frontmatter-too-large", message, first_line)


def load_yaml_mapping(text: str, first_line: int) -> tuple[dict[str, Any] | None, dict[str, int], list[ParseProblem]]:
    """Load ``text`` (which starts at ``first_line`` of its file) as a bounded YAML mapping.

    Returns the mapping (or None), the line of each top-level key, and the problems found.
    """
    if len(text) > MAX_FRONTMATTER_BYTES or len(text.encode("utf-8", errors="replace")) > MAX_FRONTMATTER_BYTES:
        return None, {}, [_too_large(first_line)]
    try:
        composed = compose_yaml(text)
    except YamlSyntaxError as exc:
        return None, {}, [_syntax_problem(exc, first_line)]
    if composed is None:
        return None, {}, [ParseProblem("frontmatter-empty", "frontmatter is empty", first_line)]
    root = composed.root
    root_line = first_line + int(root.start_mark.line)
    try:
        for _ in iter_yaml_nodes(root, max_values=MAX_EXPANDED_NODES, max_depth=MAX_DEPTH):
            pass
    except YamlRefused as exc:
        return None, {}, [ParseProblem("yaml-bomb", f"frontmatter refused: {_REFUSALS[exc.kind]}", root_line)]
    if not isinstance(root, yaml.MappingNode):
        kind = "a list" if isinstance(root, yaml.SequenceNode) else "a single value"
        message = f"frontmatter must be a mapping of keys to values, found {kind}"
        return None, {}, [ParseProblem("not-mapping", message, root_line)]
    problems: list[ParseProblem] = []
    # A repeated key's line is that of its last occurrence: the value YAML keeps, and so the one
    # every later finding about the field describes.
    key_lines: dict[str, int] = {}
    first_lines: dict[str, int] = {}
    for key_node, _ in root.value:
        key = raw_key(key_node)
        line = first_line + int(key_node.start_mark.line)
        if key in first_lines:
            message = f"key '{key}' appears twice (first at line {first_lines[key]}); YAML keeps only the last"
            problems.append(ParseProblem("duplicate-key", message, line))
        else:
            first_lines[key] = line
        key_lines[key] = line
    try:
        data = construct_yaml(composed)
    except YamlValueError as exc:
        problems.append(_value_problem(exc, first_line))
        return None, key_lines, problems
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
