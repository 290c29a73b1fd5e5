"""Finding and reading a dataset: bad input becomes problems with lines, never an exception."""

from __future__ import annotations

import json
import os

import pytest

import aces_ci.evals._canonical as canonical_module
from aces_ci.evals import load_evals
from aces_ci.skill import MAX_TEXT_BYTES
from tests.evals.helpers import codes, load, write_skill

pytestmark = pytest.mark.usefixtures("each_yaml_loader")

ONE_CASE = {"skill_name": "demo", "evals": [{"id": 1, "prompt": "p", "expected_output": "x"}]}


def only_problem(evalset):
    assert len(evalset.problems) == 1, evalset.problems
    return evalset.problems[0]


def test_a_skill_without_dataset_has_none(tmp_path):
    skill_dir = write_skill(tmp_path, {"evals/notes.md": "ideas for cases"})
    assert load_evals(skill_dir, tmp_path) is None


def test_the_dataset_path_is_repository_relative(tmp_path):
    evalset = load(tmp_path, ONE_CASE)
    assert evalset.rel == "skills/demo/evals/evals.json"
    assert evalset.parsed


def test_binary_dataset_is_not_parsed(tmp_path):
    evalset = load(tmp_path, b'{"evals": [\x00\x01]}')
    assert codes(evalset) == ["binary"]
    assert not evalset.parsed and evalset.cases == () and evalset.dialect == "unknown"


def test_invalid_utf8_is_reported_at_its_line_and_the_rest_is_read(tmp_path):
    text = b'{\n  "evals": [\n    {"id": 1, "prompt": "caf\xe9"}\n  ]\n}\n'
    evalset = load(tmp_path, text)
    problem = only_problem(evalset)
    assert (problem.code, problem.line) == ("invalid-utf8", 3)
    assert [case.prompt for case in evalset.cases] == ["caf\ufffd"]


def test_a_byte_order_mark_is_accepted_silently(tmp_path):
    evalset = load(tmp_path, b"\xef\xbb\xbf" + json.dumps(ONE_CASE).encode())
    assert evalset.problems == () and len(evalset.cases) == 1


def test_json_syntax_error_names_line_and_column(tmp_path):
    text = '{\n  "evals": [\n    {"id": 1, "prompt": "a"}\n    {"id": 2, "prompt": "b"}\n  ]\n}\n'
    problem = only_problem(load(tmp_path, text))
    assert problem.code == "json-syntax"
    assert problem.line == 4
    assert problem.message == "invalid JSON: Expecting ',' delimiter (line 4, column 5)"


def test_empty_file(tmp_path):
    evalset = load(tmp_path, "  \n")
    assert (only_problem(evalset).code, evalset.parsed) == ("empty", False)


@pytest.mark.parametrize(
    ("text", "found"),
    [("42", "integer"), ('"just text"', "string"), ("null", "null"), ("true", "boolean")],
)
def test_a_document_that_is_not_an_object_or_list(tmp_path, text, found):
    problem = only_problem(load(tmp_path, text))
    assert problem.code == "schema-violation"
    assert problem.line == 1
    assert problem.message.endswith(f"or a list of cases; found {found}")


def test_a_file_over_the_read_limit_is_not_parsed(tmp_path):
    text = '{"evals": [' + ",".join(['{"id": 1, "prompt": "p"}'] * 400_000) + "]}"  # about 10 MB
    assert len(text) > MAX_TEXT_BYTES
    evalset = load(tmp_path, text)
    problem = only_problem(evalset)
    assert problem.code == "too-large" and problem.line == 1
    assert f"{len(text):,} bytes" in problem.message
    assert not evalset.parsed


@pytest.mark.parametrize("depth", [33, 100_000])
def test_deeply_nested_json_is_refused(tmp_path, depth):
    text = '{"evals": [{"id": 1, "prompt": "p", "extra": ' + "[" * depth + "]" * depth + "}]}"
    problem = only_problem(load(tmp_path, text))
    assert problem.code == "too-deep" and problem.line == 1


def test_nesting_within_the_limit_is_read(tmp_path):
    text = '{"evals": [{"id": 1, "prompt": "p", "x-extra": ' + "[" * 29 + "]" * 29 + "}]}"
    evalset = load(tmp_path, text)
    assert evalset.problems == () and len(evalset.cases) == 1


def test_duplicate_keys_are_reported_where_the_second_one_is(tmp_path):
    text = '{\n  "evals": [\n    {"id": 1,\n     "prompt": "first",\n     "prompt": "second"}\n  ]\n}\n'
    evalset = load(tmp_path, text)
    problem = only_problem(evalset)
    assert (problem.code, problem.line) == ("duplicate-key", 5)
    assert "first at line 4" in problem.message
    assert evalset.cases[0].prompt == "second"


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ("NaN", "non-finite-number"),
        ("-Infinity", "non-finite-number"),
        ('"\\ud800"', "invalid-unicode"),
        ("1" * 5000, "number-too-long"),
    ],
)
def test_values_python_would_accept_but_json_tools_would_not(tmp_path, value, code):
    text = '{\n  "evals": [\n    {"id": 1, "prompt": "p", "weight": ' + value + "}\n  ]\n}\n"
    problem = only_problem(load(tmp_path, text))
    assert (problem.code, problem.line) == (code, 3)


def test_yaml_alias_bomb_is_refused(tmp_path):
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for level in "bcdefgh":
        previous = chr(ord(level) - 1)
        bomb += f"{level}: &{level} [" + ", ".join([f"*{previous}"] * 10) + "]\n"
    evalset = load(tmp_path, bomb, "evals.yaml")
    assert only_problem(evalset).code == "too-large"
    assert not evalset.parsed


@pytest.mark.parametrize(
    ("text", "code", "line"),
    [
        ("evals:\n  - id: 1\n    prompt: [unclosed\n", "yaml-syntax", 4),
        ("a: &a [*a]\n", "recursive-anchor", 1),
        ("evals: []\nevals: []\n", "duplicate-key", 2),
        ("evals:\n  - prompt: \x07\n", "yaml-syntax", 2),
        ("evals:\n  - date: 2024-13-45\n", "yaml-syntax", None),
        ("---\na: 1\n---\nb: 2\n", "yaml-syntax", 3),
    ],
    ids=["unclosed", "self-anchor", "duplicate", "control-char", "bad-date", "two-documents"],
)
def test_bad_yaml_becomes_a_problem(tmp_path, text, code, line):
    problem = only_problem(load(tmp_path, text, "evals.yml"))
    assert (problem.code, problem.line) == (code, line)


def test_yaml_keys_are_read_as_json_would_spell_them(tmp_path):
    evalset = load(tmp_path, "evals:\n  - id: 1\n    prompt: p\n    on: 3\n    null: 4\n", "evals.yaml")
    assert [p.pointer for p in evalset.problems] == ["/evals/0/true", "/evals/0/null"]  # unknown, spelt as JSON
    assert [case.id for case in evalset.cases] == ["1"]


def test_yaml_merge_keys_share_fields_between_cases(tmp_path):
    text = "x-shared: &shared\n  expected_output: a haiku\nevals:\n  - <<: *shared\n    id: 1\n    prompt: Write one\n"
    evalset = load(tmp_path, text, "evals.yaml")
    assert evalset.problems == ()
    assert [(case.expected_output, case.line) for case in evalset.cases] == [("a haiku", 5)]


def test_json_lines_keep_good_lines_when_one_is_broken(tmp_path):
    text = '{"id": 1, "question": "a"}\n\n{"id": 2, "question": \n{"id": 3, "question": "c"}\n'
    evalset = load(tmp_path, text, "evals.jsonl")
    problem = only_problem(evalset)
    assert (problem.code, problem.line) == ("json-syntax", 3)
    assert [(case.id, case.line) for case in evalset.cases] == [("1", 1), ("3", 4)]


def test_json_lines_with_only_broken_lines_are_unusable(tmp_path):
    evalset = load(tmp_path, "{oops\n", "evals.jsonl")
    assert codes(evalset) == ["json-syntax"] and not evalset.parsed


def test_several_dataset_files_the_first_wins_and_the_others_are_named(tmp_path):
    yaml_text = "evals:\n  - id: 9\n    prompt: from yaml\n"
    evalset = load(tmp_path, ONE_CASE, files={"evals/evals.yaml": yaml_text})
    assert [case.id for case in evalset.cases] == ["1"]
    problem = only_problem(evalset)
    assert problem.code == "ignored-dataset"
    assert problem.path == "skills/demo/evals/evals.yaml"


def test_a_dataset_linking_outside_the_skill_is_not_read(tmp_path):
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps(ONE_CASE))
    skill_dir = write_skill(tmp_path, {})
    (skill_dir / "evals").mkdir()
    os.symlink(outside, skill_dir / "evals" / "evals.json")
    evalset = load_evals(skill_dir, tmp_path)
    assert evalset is not None
    assert (only_problem(evalset).code, evalset.parsed) == ("dataset-escapes", False)


def test_a_directory_named_evals_json_is_reported(tmp_path):
    skill_dir = write_skill(tmp_path, {"evals/evals.json/readme.md": "oops"})
    evalset = load_evals(skill_dir, tmp_path)
    assert evalset is not None and codes(evalset) == ["not-a-file"]


def test_cases_past_the_limit_are_reported_not_read(tmp_path, monkeypatch):
    monkeypatch.setattr(canonical_module, "MAX_CASES", 3)
    evalset = load(tmp_path, {"evals": [{"id": index, "prompt": "p"} for index in range(5)]})
    assert [case.id for case in evalset.cases] == ["0", "1", "2"]
    problem = only_problem(evalset)
    assert problem.code == "too-many-cases" and problem.line == 2  # the "evals" key
    assert problem.message == "5 cases; only the first 3 are read"


def test_many_schema_violations_are_capped(tmp_path):
    evalset = load(tmp_path, {"evals": [{"id": index, "prompt": 5} for index in range(80)]})
    assert codes(evalset) == ["schema-violation"] * 51
    assert evalset.problems[-1].message == "more schema violations follow; fix these first"
