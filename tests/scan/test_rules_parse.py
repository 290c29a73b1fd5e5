"""PARSE rules: every problem the parser records becomes exactly one finding, at the right line."""

from __future__ import annotations

import ast
import dataclasses
import os
from pathlib import Path

import pytest

import aces_ci.skill
from aces_ci.scan import Severity
from aces_ci.scan.rules.parse import ROUTES, RULES, UNROUTED_RULE_ID, safe_message
from aces_ci.skill import MAX_TEXT_BYTES, ParseProblem, load_skill
from tests.scan.helpers import front, lines_of, make_skill, run_rule

pytestmark = pytest.mark.usefixtures("each_yaml_loader")

DESCRIPTION = "Fill PDF forms. Use when the user uploads a PDF form."
GOOD = front(name="demo", description=DESCRIPTION) + "# Demo\n\nSteps.\n"


def all_hits(skill):
    """(rule id, hit) for every PARSE rule that fires on ``skill``."""
    return [(rule.id, hit) for rule in RULES for hit in run_rule(RULES, rule.id, skill)]


def only_hit(skill, rule_id):
    """The single PARSE finding on ``skill``, asserting it came from ``rule_id``."""
    found = all_hits(skill)
    assert [rid for rid, _ in found] == [rule_id], found
    return found[0][1]


def parser_problem_codes() -> set[str]:
    """Every problem code the parser can emit, read from its source.

    Codes are the first argument of ``ParseProblem(...)``, either a literal or a variable; for a
    variable, every string literal assigned to that name in the module counts.
    """
    codes: set[str] = set()
    package_dir = Path(aces_ci.skill.__file__).parent
    for source in sorted(package_dir.glob("*.py")):
        tree = ast.parse(source.read_text(encoding="utf-8"))
        assigned: dict[str, set[str]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    pairs = (
                        zip(target.elts, node.value.elts, strict=False)
                        if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple)
                        else [(target, node.value)]
                    )
                    for name, value in pairs:
                        if (
                            isinstance(name, ast.Name)
                            and isinstance(value, ast.Constant)
                            and isinstance(value.value, str)
                        ):
                            assigned.setdefault(name.id, set()).add(value.value)
        for node in ast.walk(tree):
            # A bounded read's refusal (skill/_files.py's ``Refused``) becomes a ParseProblem with its code.
            called = getattr(node.func, "id", None) if isinstance(node, ast.Call) else None
            if isinstance(node, ast.Call) and called in ("ParseProblem", "Refused") and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    codes.add(first.value)
                elif isinstance(first, ast.Name):
                    assert first.id in assigned, f"{source.name}: cannot resolve ParseProblem code {first.id}"
                    codes |= assigned[first.id]
    return codes


def test_every_parser_code_is_routed_to_a_rule():
    codes = parser_problem_codes()
    assert "frontmatter-not-first" in codes and "yaml-bomb" in codes  # the reader finds both kinds of call
    routed = {code for _, code in ROUTES}
    assert codes - routed == set(), "new parser problem codes need a PARSE rule in ROUTES"
    assert routed - codes == set(), "ROUTES names codes the parser no longer emits"


def test_routes_name_existing_rules_and_every_rule_has_a_route():
    ids = [rule.id for rule in RULES]
    assert ids == [f"PARSE{i:03d}" for i in range(1, len(RULES) + 1)]
    assert set(ROUTES.values()) == set(ids) - {UNROUTED_RULE_ID}
    for rule in RULES:
        assert "PASS" in rule.doc and "FAIL" in rule.doc, rule.id


def test_a_clean_skill_has_no_parse_findings(tmp_path):
    assert all_hits(make_skill(tmp_path, GOOD)) == []


# SKILL.md as a file


def test_binary_skill_md_is_unreadable(tmp_path):
    hit = only_hit(make_skill(tmp_path, b"\x89PNG\r\n\x1a\n\x00\x00"), "PARSE001")
    assert "NUL bytes" in hit.message
    assert hit.location.path == "skills/demo/SKILL.md"


def test_dangling_symlink_skill_md_is_unreadable(tmp_path):
    skill_dir = tmp_path / "skills" / "demo"
    skill_dir.mkdir(parents=True)
    os.symlink(tmp_path / "missing.md", skill_dir / "SKILL.md")
    hit = only_hit(load_skill(skill_dir, tmp_path), "PARSE001")
    assert "cannot stat" in hit.message


def test_fifo_skill_md_is_not_a_file(tmp_path):
    skill_dir = tmp_path / "skills" / "demo"
    skill_dir.mkdir(parents=True)
    os.mkfifo(skill_dir / "SKILL.md")
    hit = only_hit(load_skill(skill_dir, tmp_path), "PARSE001")
    assert hit.message == "not a regular file"


def test_invalid_utf8_points_at_the_line_of_the_first_bad_byte(tmp_path):
    data = GOOD.encode("utf-8") + "caf\u00e9 au lait\n".encode("latin-1")
    hit = only_hit(make_skill(tmp_path, data), "PARSE002")
    assert "invalid UTF-8" in hit.message
    assert hit.location.line == 8


def test_oversized_skill_md_is_reported_as_truncated(tmp_path):
    data = GOOD.encode("utf-8") + b"x" * MAX_TEXT_BYTES
    hit = only_hit(make_skill(tmp_path, data), "PARSE003")
    assert "only the first 2,097,152 bytes were examined" in hit.message


def test_byte_order_mark_is_a_note_on_line_1(tmp_path):
    skill = make_skill(tmp_path, b"\xef\xbb\xbf" + GOOD.encode("utf-8"))
    hit = only_hit(skill, "PARSE004")
    assert hit.location.line == 1
    assert next(r for r in RULES if r.id == "PARSE004").severity is Severity.NOTE
    assert skill.frontmatter.data is not None  # the scan goes on past the BOM


# the frontmatter block


@pytest.mark.parametrize(
    ("text", "rule_id", "line", "message"),
    [
        ("# Demo\n\nNo frontmatter.\n", "PARSE005", 1, "SKILL.md has no YAML frontmatter"),
        ("\n---\nname: demo\n---\nBody.\n", "PARSE006", 2, "frontmatter fence '---' must be the very first line"),
        ("---\nname: demo\ndescription: x\n# Demo\n", "PARSE007", 1, "is never closed"),
        ("---\n---\nBody.\n", "PARSE008", 2, "frontmatter is empty"),
        ("---\nname: demo\ndescription: Convert: PDF\n---\nBody.\n", "PARSE009", 3, "YAML syntax error"),
        ("---\n- name: demo\n---\nBody.\n", "PARSE012", 2, "found a list"),
    ],
)
def test_frontmatter_problems_map_to_their_rule_and_line(tmp_path, text, rule_id, line, message):
    hit = only_hit(make_skill(tmp_path, text), rule_id)
    assert message in hit.message
    assert hit.location.line == line
    assert hit.clause


def test_duplicate_key_points_at_the_second_occurrence(tmp_path):
    text = "---\nname: demo\ndescription: one\ndescription: two\n---\nBody.\n"
    hit = only_hit(make_skill(tmp_path, text), "PARSE011")
    assert hit.message == "key 'description' appears twice (first at line 3); YAML keeps only the last"
    assert hit.location.line == 4


@pytest.mark.parametrize(
    ("yaml_text", "message"),
    [
        (
            "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
            "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
            "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
            "d: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n",
            "values once aliases are expanded",
        ),
        ("deep: " + "[" * 60 + "]" * 60 + "\n", "nesting deeper than 50 levels"),
        ("pad: " + "x" * (65 * 1024) + "\n", "larger than 64 KiB"),
    ],
)
def test_oversized_or_explosive_yaml_is_refused(tmp_path, yaml_text, message):
    hit = only_hit(make_skill(tmp_path, "---\n" + yaml_text + "---\nBody.\n"), "PARSE010")
    assert message in hit.message


def test_yaml_error_messages_never_quote_the_source_line(tmp_path):
    text = "---\nname: demo\ntoken: !!python/object sk-live-SECRET123\n---\nBody.\n"
    hit = only_hit(make_skill(tmp_path, text), "PARSE009")
    assert "SECRET123" not in hit.message
    assert "could not determine a constructor" in hit.message
    assert hit.location.line == 3


def test_safe_message_keeps_summary_lines_and_caps_length():
    assert safe_message('YAML error: bad\n  in "<unicode string>", line 2\n    key: secret\n    ^') == "YAML error: bad"
    assert safe_message("a\nb") == "a; b"
    assert len(safe_message("x" * 1000)) == 300


# the package


def test_lowercase_skill_md_warns_at_the_file(tmp_path):
    skill_dir = tmp_path / "skills" / "demo"
    skill_dir.mkdir(parents=True)
    (skill_dir / "skill.md").write_text(GOOD, encoding="utf-8")
    hit = only_hit(load_skill(skill_dir, tmp_path), "PARSE013")
    assert hit.location.path == "skills/demo/skill.md"
    assert "'skill.md'" in hit.message


def test_too_many_files_is_reported(tmp_path):
    files = {f"assets/f{i:04d}.txt": "" for i in range(2001)}
    hit = only_hit(make_skill(tmp_path, GOOD, files=files), "PARSE014")
    assert "more than 2000 files" in hit.message


def test_unreadable_entry_is_an_incomplete_listing_not_an_unreadable_skill_md(tmp_path):
    skill = make_skill(tmp_path, GOOD)
    skill = dataclasses.replace(skill, problems=(ParseProblem("unreadable", "scripts/x.sh: [Errno 13] denied"),))
    hit = only_hit(skill, "PARSE014")
    assert hit.message == "scripts/x.sh: [Errno 13] denied"
    assert lines_of([hit]) == [None]


def test_unknown_problem_codes_are_still_reported(tmp_path):
    skill = make_skill(tmp_path, GOOD)
    front_matter = dataclasses.replace(skill.frontmatter, problems=(ParseProblem("new-code", "something odd", 2),))
    hit = only_hit(dataclasses.replace(skill, frontmatter=front_matter), UNROUTED_RULE_ID)
    assert hit.message == "frontmatter problem 'new-code': something odd"
    assert hit.location.line == 2
