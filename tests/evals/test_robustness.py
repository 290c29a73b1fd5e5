"""Whatever bytes an evals file holds, loading returns an EvalSet and never raises."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aces_ci.evals import load_evals, parse_json, parse_jsonl, parse_yaml, schema_problems
from tests.evals.helpers import write_skill

pytestmark = pytest.mark.usefixtures("each_yaml_loader")

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=30,
)
CASE_KEYS = st.sampled_from(
    [
        "id",
        "prompt",
        "question",
        "expected_output",
        "ground_truth",
        "assertions",
        "expectations",
        "expected_behavior",
        "files",
        "expected_skill",
        "should_trigger",
        "acceptable_skills",
        "expected_script",
    ]
)
CASES = st.lists(st.dictionaries(CASE_KEYS, JSON_VALUES, max_size=6), max_size=5)
DATASETS = st.one_of(
    CASES,
    st.fixed_dictionaries({"evals": CASES}, optional={"skill_name": JSON_VALUES}),
    st.fixed_dictionaries({"cases": CASES}, optional={"skill_name": JSON_VALUES}),
    JSON_VALUES,
)
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FAST
@given(st.text(max_size=200))
def test_any_text_parses_to_a_document_or_problems(text):
    for parse in (parse_json, parse_jsonl, parse_yaml):
        document = parse(text)
        assert document.parsed or document.problems
        if document.parsed:
            schema_problems(document)


@FAST
@given(DATASETS)
def test_any_json_value_loads_into_cases_or_problems(tmp_path_factory, dataset):
    root = tmp_path_factory.mktemp("fuzz")
    skill_dir = write_skill(root, {"evals/evals.json": json.dumps(dataset)})
    evalset = load_evals(skill_dir, root)
    assert evalset is not None and evalset.parsed
    for case in evalset.cases:
        assert isinstance(case.id, str) and case.prompt.strip()
        assert all(isinstance(text, str) for text in case.assertions)
