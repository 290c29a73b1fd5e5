"""schemas/evals.schema.json: it accepts every dialect, and its findings name a JSON path and a line."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aces_ci.evals import load_evals, parse_json, parse_yaml, schema_problems
from aces_ci.schemas import is_valid_fast, load_schema, validator
from aces_ci.skill import iter_skill_dirs
from tests.evals.test_dialects import ACES_CASES, AGENTSKILLS, FLAT_LIST, SKILL_CREATOR, YAML_TEXT

EXAMPLE_REPO = Path(__file__).resolve().parents[2] / "examples" / "skill-repo"
EXAMPLE_DATASETS = sorted(EXAMPLE_REPO.glob("skills/*/evals/evals.json"))
BROKEN_ON_PURPOSE = {"todo-extractor"}  # its evals.json has a JSON syntax error (see examples/skill-repo/README.md)


def test_the_schema_is_valid_draft_2020_12():
    schema = load_schema("evals")
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize(
    "document", [AGENTSKILLS, SKILL_CREATOR, ACES_CASES, FLAT_LIST], ids=lambda d: type(d).__name__
)
def test_every_dialect_is_valid(document):
    assert list(validator("evals").iter_errors(document)) == []


def test_yaml_dialect_is_valid():
    assert schema_problems(parse_yaml(YAML_TEXT)) == []


def test_the_example_repo_has_datasets_in_every_skill_that_claims_evals():
    names = {path.parents[1].name for path in EXAMPLE_DATASETS}
    assert {"csv-insights", "release-notes", "acme-support", "meeting-notes", "todo-extractor"} <= names


@pytest.mark.parametrize("path", EXAMPLE_DATASETS, ids=lambda p: p.parents[1].name)
def test_example_datasets_validate_against_the_schema(path):
    if path.parents[1].name in BROKEN_ON_PURPOSE:
        with pytest.raises(json.JSONDecodeError):
            json.loads(path.read_text(encoding="utf-8"))
        return
    assert list(validator("evals").iter_errors(json.loads(path.read_text(encoding="utf-8")))) == []
    assert schema_problems(parse_json(path.read_text(encoding="utf-8"))) == []


def test_every_example_skill_loads_without_crashing():
    for skill_dir in iter_skill_dirs(EXAMPLE_REPO):
        evalset = load_evals(skill_dir, EXAMPLE_REPO)
        if evalset is not None:
            assert evalset.rel.startswith("skills/")


def problems_of(document):
    return [(problem.line, problem.message) for problem in schema_problems(parse_json(json.dumps(document, indent=1)))]


def test_messages_name_the_json_path_and_line():
    document = {"evals": [{"id": 1, "prompt": "ok"}, {"id": 2, "prompt": "", "files": "one.csv"}]}
    assert problems_of(document) == [
        (9, "$.evals[1].prompt: must not be blank"),
        (10, "$.evals[1].files: must be a list, found string"),
    ]


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ({"prompt": "p"}, "$.evals[0]: 'id' is required"),
        ({"id": 1.5, "prompt": "p"}, "$.evals[0].id: must be an integer or a string, found number"),
        ({"id": "a b", "prompt": "p"}, "$.evals[0].id: may hold only letters, digits, '.', '_' and '-'"),
        ({"id": "x" * 129, "prompt": "p"}, "$.evals[0].id: must be at most 128 characters long"),
        (
            {"id": 1, "prompt": "p", "question": "q"},
            "$.evals[0]: 'prompt' and 'question' name the same field: keep one",
        ),
        (
            {"id": 1, "prompt": "p", "should_trigger": "no"},
            "$.evals[0].should_trigger: must be a boolean, found string",
        ),
        (
            {"id": 1, "prompt": "p", "assertions": ["a"], "expected_behavior": "b"},
            "$.evals[0]: 'assertions', 'expectations' and 'expected_behavior' name the same field: keep one",
        ),
        (
            {"id": 1, "prompt": "p", "acceptable_skills": 3},
            "$.evals[0].acceptable_skills: must be a string or a list, found integer",
        ),
    ],
)
def test_case_violations(case, message):
    assert [text for _, text in problems_of({"evals": [case]})] == [message]


def test_both_lists_of_cases_is_one_clear_problem():
    assert problems_of({"evals": [], "cases": []}) == [
        (1, "$: an object with 'evals' must not also hold 'cases': keep one list of cases")
    ]
    assert (
        problems_of({"cases": [{"id": 1}]})[0][1] == "$.cases[0]: a case needs a 'prompt' (or its ACES name 'question')"
    )


def test_messages_never_quote_the_offending_value():
    secret = "AKIA" + "Q3ZL7TNRW5XK2M4P please"
    document = {"skill_name": [secret], "evals": [{"id": secret, "prompt": {"text": secret}, "files": [7, secret]}]}
    messages = [text for _, text in problems_of(document)]
    assert len(messages) == 4
    assert not any("AKIA" in text for text in messages), messages


_TEXT = st.text(alphabet=st.sampled_from([*"ab1._- \t\n", "\x1c", "\x1f", "\x85", "\xa0", "\u2028", "\u3000", "é"]))
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 2**70), st.floats(allow_nan=False), _TEXT)
_CASE_FIELDS = (
    "id",
    "prompt",
    "question",
    "expected_output",
    "assertions",
    "expectations",
    "files",
    "acceptable_skills",
)
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3))
_CASES = st.lists(st.dictionaries(st.sampled_from(_CASE_FIELDS), _VALUES, max_size=5), max_size=3)
_DATASETS = st.one_of(
    _CASES,
    st.fixed_dictionaries({"evals": _CASES}, optional={"skill_name": _VALUES, "cases": _CASES}),
    st.fixed_dictionaries({"cases": _CASES}, optional={"skill_name": _VALUES}),
    _VALUES,
)


@settings(max_examples=600, deadline=None)
@given(_DATASETS)
def test_the_compiled_validator_only_vouches_for_what_jsonschema_accepts(data):
    """The fast path may send a valid dataset to the slow path, never let an invalid one through."""
    errors = list(validator("evals").iter_errors(data))
    if is_valid_fast("evals", data):
        assert errors == []


def test_the_compiled_validator_vouches_for_every_dialect_and_the_examples():
    datasets = [AGENTSKILLS, SKILL_CREATOR, ACES_CASES, FLAT_LIST]
    datasets += [
        json.loads(path.read_text()) for path in EXAMPLE_DATASETS if path.parents[1].name not in BROKEN_ON_PURPOSE
    ]
    assert all(is_valid_fast("evals", data) for data in datasets)
    assert not is_valid_fast("evals", {"evals": [{"id": 1, "prompt": "\x1c"}]})  # blank to Python, not to Rust
    assert not is_valid_fast("evals", {"evals": [{"id": 1, "prompt": "p", "when": datetime.date(2024, 1, 2)}]})
