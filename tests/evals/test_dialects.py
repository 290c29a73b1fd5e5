"""Every evals.json dialect is read into the same EvalCase objects."""

from __future__ import annotations

import dataclasses
import json

import pytest

from aces_ci.evals import EvalCase
from tests.evals.helpers import codes, load

FIXTURE = {"evals/files/data.csv": "a,b\n1,2\n"}

# One dataset, three cases (a positive with a fixture, a positive with checks, a negative), per dialect.
AGENTSKILLS = {
    "skill_name": "demo",
    "evals": [
        {
            "id": 1,
            "prompt": "Profile data.csv",
            "expected_output": "2 columns",
            "files": ["evals/files/data.csv"],
            "assertions": ["runs the script"],
        },
        {"id": 2, "prompt": "Count the rows", "expected_output": "1 row", "assertions": ["reads SKILL.md", "cites 1"]},
        {"id": 3, "prompt": "Write a haiku", "expected_output": "a haiku", "should_trigger": False},
    ],
}
SKILL_CREATOR = {
    "skill_name": "demo",
    "evals": [
        {
            "id": 1,
            "prompt": "Profile data.csv",
            "expected_output": "2 columns",
            "files": ["evals/files/data.csv"],
            "expectations": ["runs the script"],
        },
        {
            "id": 2,
            "prompt": "Count the rows",
            "expected_output": "1 row",
            "expectations": ["reads SKILL.md", "cites 1"],
        },
        {"id": 3, "prompt": "Write a haiku", "expected_output": "a haiku", "should_trigger": False},
    ],
}
ACES_CASES = {
    "skill_name": "demo",
    "cases": [
        {
            "id": "1",
            "question": "Profile data.csv",
            "ground_truth": "2 columns",
            "files": ["files/data.csv"],
            "expected_behavior": "runs the script",
        },
        {
            "id": "2",
            "question": "Count the rows",
            "ground_truth": "1 row",
            "expected_behavior": ["reads SKILL.md", "cites 1"],
            "expected_skill": "demo",
        },
        {"id": "3", "question": "Write a haiku", "ground_truth": "a haiku", "expected_skill": None},
    ],
}
FLAT_LIST = [
    {
        "id": 1,
        "question": "Profile data.csv",
        "ground_truth": "2 columns",
        "files": ["files/data.csv"],
        "expected_behavior": ["runs the script"],
        "expected_skill": "demo",
    },
    {
        "id": 2,
        "question": "Count the rows",
        "ground_truth": "1 row",
        "expected_behavior": ["reads SKILL.md", "cites 1"],
        "should_trigger": True,
    },
    {"id": 3, "question": "Write a haiku", "ground_truth": "a haiku", "expected_skill": None},
]
YAML_TEXT = """\
skill_name: demo
evals:
  - id: 1
    prompt: Profile data.csv
    expected_output: 2 columns
    files: [evals/files/data.csv]
    assertions: [runs the script]
  - id: 2
    prompt: Count the rows
    expected_output: 1 row
    assertions:
      - reads SKILL.md
      - cites 1
  - id: 3
    prompt: Write a haiku
    expected_output: a haiku
    should_trigger: no
"""
JSONL_TEXT = "\n".join(json.dumps(case) for case in FLAT_LIST) + "\n"

EXPECTED = [
    EvalCase("1", "Profile data.csv", "2 columns", ("runs the script",), ("evals/files/data.csv",), True, "demo"),
    EvalCase("2", "Count the rows", "1 row", ("reads SKILL.md", "cites 1"), (), True, "demo"),
    EvalCase("3", "Write a haiku", "a haiku", (), (), False, None),
]


def without_lines(cases):
    return [dataclasses.replace(case, line=None, pointer=None) for case in cases]


@pytest.mark.parametrize(
    ("dataset", "filename", "dialect"),
    [
        (AGENTSKILLS, "evals.json", "aces"),
        (SKILL_CREATOR, "evals.json", "skill-creator"),
        (ACES_CASES, "evals.json", "aces"),
        (FLAT_LIST, "evals.json", "legacy-list"),
        (YAML_TEXT, "evals.yaml", "aces"),
        (JSONL_TEXT, "evals.jsonl", "legacy-list"),
    ],
    ids=["agentskills+should_trigger", "skill-creator", "aces-cases", "flat-list", "yaml", "jsonl"],
)
def test_every_dialect_reads_as_the_same_cases(tmp_path, dataset, filename, dialect):
    evalset = load(tmp_path, dataset, filename, files=FIXTURE)
    assert evalset.problems == ()
    assert evalset.dialect == dialect
    assert without_lines(evalset.cases) == EXPECTED


def test_plain_agentskills_dataset_is_named_so(tmp_path):
    dataset = {"skill_name": "demo", "evals": [{"id": 1, "prompt": "Do it", "expected_output": "done"}]}
    evalset = load(tmp_path, dataset)
    assert evalset.dialect == "agentskills"
    assert evalset.skill_name == "demo"


def test_integer_ids_become_strings(tmp_path):
    dataset = {"evals": [{"id": 7, "prompt": "a"}, {"id": "07", "prompt": "b"}, {"id": 0, "prompt": "c"}]}
    assert [case.id for case in load(tmp_path, dataset).cases] == ["7", "07", "0"]


def test_each_case_records_the_line_of_its_id(tmp_path):
    text = """{
  "skill_name": "demo",
  "evals": [
    {"id": 1, "prompt": "first"},
    {
      "prompt": "second",
      "id": "two"
    },
    {"prompt": "no id here"}
  ]
}
"""
    evalset = load(tmp_path, text)
    assert [(case.id, case.line) for case in evalset.cases] == [("1", 4), ("two", 7), ("#3", 9)]
    assert evalset.cases_line == 3
    assert evalset.skill_name_line == 2


def test_yaml_and_jsonl_cases_record_their_lines(tmp_path):
    yaml_set = load(tmp_path / "y", YAML_TEXT, "evals.yaml", files=FIXTURE)
    assert [case.line for case in yaml_set.cases] == [3, 8, 14]
    jsonl_set = load(tmp_path / "j", "\n" + JSONL_TEXT, "evals.jsonl", files=FIXTURE)
    assert [case.line for case in jsonl_set.cases] == [2, 3, 4]


@pytest.mark.parametrize(
    ("fields", "skill_name", "should_trigger", "expected_skill"),
    [
        ({"should_trigger": False}, "demo", False, None),
        ({"should_trigger": True}, None, True, "demo"),  # a positive case expects this skill (its directory)
        ({"should_trigger": False, "expected_skill": "demo"}, "demo", False, "demo"),
        ({"expected_skill": None}, "demo", False, None),
        ({"expected_skill": ""}, "demo", False, None),
        ({"expected_skill": "DEMO"}, None, True, "DEMO"),  # the directory name counts, case-insensitively
        ({"expected_skill": "other-skill"}, "demo", False, "other-skill"),
        ({}, "demo", True, "demo"),  # inherits skill_name: the SkillEvaluator convention
        ({}, None, None, None),  # nothing says: unlabelled
    ],
)
def test_should_trigger_resolution(tmp_path, fields, skill_name, should_trigger, expected_skill):
    dataset: dict[str, object] = {"evals": [{"id": 1, "prompt": "p", **fields}]}
    if skill_name is not None:
        dataset["skill_name"] = skill_name
    (case,) = load(tmp_path, dataset).cases
    assert (case.should_trigger, case.expected_skill) == (should_trigger, expected_skill)


def test_aces_extras_are_kept(tmp_path):
    dataset = [
        {"id": "a", "question": "q", "expected_script": "fill.py", "acceptable_alternates": "pdf-tools"},
        {"id": "b", "question": "q", "acceptable_skills": ["pdf-tools", {"name": "docx"}]},
    ]
    first, second = load(tmp_path, dataset).cases
    assert (first.expected_script, first.acceptable_skills) == ("fill.py", ("pdf-tools",))
    assert second.acceptable_skills == ("pdf-tools", "docx")


def test_unknown_fields_are_errors_and_x_keys_are_the_authors_own(tmp_path):
    dataset = {"skill_name": "demo", "version": 2, "evals": [{"id": 1, "prompt": "p", "expected_outptu": "4"}]}
    evalset = load(tmp_path, dataset)
    assert [(p.code, p.pointer) for p in evalset.problems] == [
        ("unknown-key", "/version"),
        ("unknown-key", "/evals/0/expected_outptu"),
    ]
    assert "did you mean 'expected_output'?" in evalset.problems[1].message
    assert "keep your own metadata under a key starting with x-" in evalset.problems[0].message
    own = {"skill_name": "demo", "x-version": 2, "evals": [{"id": 1, "prompt": "p", "x-bucket": "implicit"}]}
    evalset = load(tmp_path / "own", own)
    assert evalset.problems == ()
    assert [case.id for case in evalset.cases] == ["1"]


def test_a_case_without_prompt_is_left_out_and_reported(tmp_path):
    dataset = {"evals": [{"id": 1, "prompt": "kept"}, {"id": 2, "expected_output": "x"}, "not a case"]}
    evalset = load(tmp_path, dataset)
    assert [case.id for case in evalset.cases] == ["1"]
    assert codes(evalset) == ["schema-violation", "schema-violation"]
    assert [p.message for p in evalset.problems] == [
        "$.evals[1]: a case needs a 'prompt' (or its ACES name 'question')",
        "$.evals[2]: must be an object, found string",
    ]
