"""libyaml and PyYAML behind one bounded loader: the fast one is used only where both would agree.

The differential tests feed the same YAML-shaped text to the default path (libyaml where it is
installed, screened, PyYAML where they could disagree) and to PyYAML alone, and require the same
nodes (tags, values, styles, lines, columns) or the same error; the screen's own patterns are shown
to be needed by texts on which raw libyaml and PyYAML really differ.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aces_ci.evals import parse_yaml
from aces_ci.skill import (
    LIBYAML_VERSION,
    YamlSyntaxError,
    compose_yaml,
    forced_yaml_loader,
    load_yaml_mapping,
    split_frontmatter,
)

needs_libyaml = pytest.mark.skipif(LIBYAML_VERSION is None, reason="PyYAML was built without libyaml")

TOKENS = [
    *("a", "b", "key", "name: demo\n", "description: ", "- a\n", "  b: c\n", "x" * 60),
    *(": ", ":", "- ", "-", "\n", "  ", " ", "\n  ", "\n    ", "\t", "\r", "\r\n"),
    *("[", "]", "{", "}", ", ", ",", "? ", "---", "...", "%YAML 1.1\n", "%TAG ! tag:x,2000:\n"),
    *("&x ", "*x", "<<: ", "!!str ", "!!int ", "!!python/object:os.system ", "!foo ", "! ", "!"),
    *("'", '"', "'it''s'", '"a\\"b"', '"\\u00e9"', "\\", "\\n", "\\x41", "# c", " # c"),
    *("|", ">", "|-", ">+", "|2", "1e3", "yes", "~", "null", ".inf", "0o7", "0x1F", "2024-01-02", "2024-13-45"),
    *("é", "\x85", "\u2028", "\u2029", "\ufeff", "\x00", "\x07", "\x1f", "\ud800", "\U0001f600", "\u00a0", "\ue000"),
    *("@", "`", "%", "&", "*"),
]
"""Pieces of YAML syntax and of the characters parsers disagree about; the strategies glue them together."""

yaml_soup = st.lists(st.sampled_from(TOKENS), min_size=1, max_size=40).map("".join)


def _nodes(node: yaml.Node | None, memo: dict[int, int]) -> Any:
    """A node graph as comparable data: kind, tag, style, position and value of every node, aliases by number."""
    if node is None:
        return None
    if id(node) in memo:
        return ("alias", memo[id(node)])
    memo[id(node)] = len(memo)
    style = getattr(node, "style", None) or None  # plain is None to PyYAML, "" to libyaml: the same
    head = (type(node).__name__, node.tag, node.start_mark.line, node.start_mark.column, style)
    if isinstance(node, yaml.ScalarNode):
        return (*head, node.value)
    if isinstance(node, yaml.SequenceNode):
        return (*head, tuple(_nodes(item, memo) for item in node.value))
    return (*head, tuple((_nodes(key, memo), _nodes(value, memo)) for key, value in node.value))


def _composed(text: str) -> Any:
    try:
        composed = compose_yaml(text)
    except YamlSyntaxError as exc:
        return ("error", exc.kind, exc.line, exc.problem, exc.context, exc.char, exc.error_type, exc.marked)
    return None if composed is None else _nodes(composed.root, {})


def _python_and_default(function: Any, text: str) -> tuple[Any, Any]:
    with forced_yaml_loader("python"):
        reference = function(text)
    return reference, function(text)


@needs_libyaml
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(yaml_soup)
def test_the_default_loader_composes_what_pyyaml_composes(text: str) -> None:
    reference, default = _python_and_default(_composed, text)
    assert default == reference


@needs_libyaml
@settings(max_examples=500, deadline=None)
@given(yaml_soup)
def test_frontmatter_and_datasets_load_the_same_with_either_loader(text: str) -> None:
    reference, default = _python_and_default(lambda t: load_yaml_mapping(t, first_line=2), text)
    assert default == reference
    reference, default = _python_and_default(parse_yaml, text)
    assert default == reference


@needs_libyaml
@pytest.mark.parametrize(
    "text",
    [
        "name: demo\ndescription:\tDoes X.\n",  # a tab after the colon
        "a: !\n",  # the non-specific tag
        "a: |# comment\n  text\n",  # a block scalar header glued to a comment
        "? ? \ufeff\n\ufeff",  # a byte-order mark inside the text
        "? ",  # an empty plain scalar at the end of the text, placed elsewhere
    ],
    ids=["tab", "bare-tag", "block-header-comment", "inner-bom", "empty-scalar"],
)
def test_each_screened_pattern_is_one_where_raw_libyaml_and_pyyaml_differ(text: str) -> None:
    def raw(loader: type[Any]) -> Any:
        try:
            return _nodes(yaml.compose(text, Loader=loader), {})
        except yaml.YAMLError:
            return "error"

    assert raw(yaml.CSafeLoader) != raw(yaml.SafeLoader)
    reference, default = _python_and_default(_composed, text)
    assert default == reference


@needs_libyaml
def test_ordinary_frontmatter_is_composed_by_libyaml() -> None:
    text = 'name: demo\ndescription: "Formats files: CSV, TSV. Use when asked to format."\ntags: [a, b]\n'
    composed = compose_yaml(text)
    assert composed is not None and composed.loader == "libyaml"
    with forced_yaml_loader("python"):
        reference = compose_yaml(text)
    assert reference is not None and reference.loader == "python"


@pytest.mark.usefixtures("each_yaml_loader")
@pytest.mark.parametrize("depth", [51, 400, 5000])
def test_nesting_past_the_bound_is_refused_the_same_way_at_any_depth(depth: int) -> None:
    """Past the depth bound, below and above libyaml's own nesting limit and Python's recursion limit."""
    front, _, _ = split_frontmatter("---\na: " + "[" * depth + "]" * depth + "\n---\n")
    assert [(p.code, p.message, p.line) for p in front.problems] == [
        ("yaml-bomb", "frontmatter refused: nesting deeper than 50 levels", 2)
    ]


@pytest.mark.usefixtures("each_yaml_loader")
def test_a_dataset_nested_past_the_recursion_limit_is_a_problem_not_a_crash() -> None:
    document = parse_yaml("evals: " + "[" * 5000 + "]" * 5000 + "\n")
    assert [(p.code, p.line) for p in document.problems] == [("too-deep", 1)]
    assert not document.parsed


def test_the_libyaml_loader_is_refused_where_it_is_not_installed() -> None:
    if LIBYAML_VERSION is not None:
        with forced_yaml_loader("libyaml"):
            assert compose_yaml("a: 1\n") is not None
    else:
        with pytest.raises(ValueError, match="not available"), forced_yaml_loader("libyaml"):
            pass
