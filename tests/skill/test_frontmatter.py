"""The frontmatter loader: bounded, safe, and precise about lines."""

from __future__ import annotations

import pytest

from aces_ci.skill import load_yaml_mapping, split_frontmatter

pytestmark = pytest.mark.usefixtures("each_yaml_loader")


def codes(problems):
    return [p.code for p in problems]


def test_valid_frontmatter_gives_mapping_and_key_lines():
    front, body, body_line = split_frontmatter("---\nname: demo\ndescription: Does X.\n---\n# Title\n")
    assert front.data == {"name": "demo", "description": "Does X."}
    assert front.key_lines == {"name": 2, "description": 3}
    assert (front.start_line, front.end_line) == (1, 4)
    assert body == "# Title\n"
    assert body_line == 5


def test_duplicate_key_is_reported_at_second_occurrence():
    front, _, _ = split_frontmatter("---\nname: a\ndescription: d\nname: b\n---\n")
    assert codes(front.problems) == ["duplicate-key"]
    assert front.problems[0].line == 4
    assert "first at line 2" in front.problems[0].message


def test_a_repeated_key_lives_at_the_line_of_the_value_yaml_keeps():
    front, _, _ = split_frontmatter("---\nname: a\ndescription: d\nname: b\n---\n")
    assert front.data is not None and front.data["name"] == "b"
    assert front.key_lines["name"] == 4


def test_yaml_syntax_error_points_at_file_line():
    front, _, _ = split_frontmatter("---\nname: demo\ndescription: [unclosed\nlicense: MIT\n---\nbody\n")
    assert front.data is None
    assert codes(front.problems) == ["yaml-syntax"]
    assert front.problems[0].line is not None and front.problems[0].line >= 3


def test_alias_bomb_is_refused_without_expanding():
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(ord("b"), ord("j")):
        prev = chr(level - 1)
        lines.append(f"{chr(level)}: &{chr(level)} [" + ",".join([f"*{prev}"] * 9) + "]")
    data, _, problems = load_yaml_mapping("\n".join(lines), first_line=2)
    assert data is None
    assert codes(problems) == ["yaml-bomb"]
    assert "aliases are expanded" in problems[0].message


def test_recursive_anchor_is_refused():
    data, _, problems = load_yaml_mapping("a: &x [1, *x]\n", first_line=2)
    assert data is None
    assert codes(problems) == ["yaml-bomb"]


def test_deep_nesting_is_refused():
    deep = "a: " + "[" * 5000 + "]" * 5000
    data, _, problems = load_yaml_mapping(deep, first_line=2)
    assert data is None
    assert codes(problems)[0] in {"yaml-bomb", "yaml-too-deep", "yaml-syntax"}


def test_non_mapping_frontmatter_is_reported():
    front, _, _ = split_frontmatter("---\n- name\n- description\n---\n")
    assert front.data is None
    assert codes(front.problems) == ["not-mapping"]
    assert "found a list" in front.problems[0].message


def test_missing_unclosed_and_late_fences():
    assert codes(split_frontmatter("# Just markdown\n")[0].problems) == ["frontmatter-missing"]
    assert codes(split_frontmatter("---\nname: x\n")[0].problems) == ["frontmatter-unclosed"]
    late = split_frontmatter("\n\n---\nname: x\n---\n")[0]
    assert codes(late.problems) == ["frontmatter-not-first"]
    assert late.problems[0].line == 3


def test_empty_frontmatter_and_oversized_frontmatter():
    assert codes(split_frontmatter("---\n---\nbody")[0].problems) == ["frontmatter-empty"]
    huge = "---\ndescription: " + "x" * 70_000 + "\n---\n"
    assert codes(split_frontmatter(huge)[0].problems) == ["frontmatter-too-large"]


def test_python_tags_are_not_constructed():
    front, _, _ = split_frontmatter("---\nname: !!python/object/apply:os.system ['echo pwned']\n---\n")
    assert front.data is None
    assert codes(front.problems) == ["yaml-syntax"]


def test_non_string_keys_are_kept_as_strings():
    front, _, _ = split_frontmatter("---\nname: demo\n123: number key\n---\n")
    assert front.data is not None and "123" in front.data


def test_control_character_is_a_syntax_problem_at_its_line():
    data, _, problems = load_yaml_mapping("name: demo\ndescription: bad \x1f char\n", first_line=2)
    assert data is None
    assert [(p.code, p.line) for p in problems] == [("yaml-syntax", 3)]
    assert "U+001F" in problems[0].message
