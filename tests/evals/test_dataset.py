"""load_dataset: every source merged by the documented rules, and any bad input stopped with its pointer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aces_ci.errors import EXIT_INPUT_ERROR, InputError
from aces_ci.evals import Tolerance, load_dataset
from tests.evals.helpers import write_skill

DATASET = {
    "skill_name": "demo",
    "evals": [
        {"id": "seeded-1", "prompt": "How many rows are in data.csv?", "expected_output": "3"},
        {"id": "seeded-2", "prompt": "What is the capital of France?", "expected_output": "Paris"},
        {"id": "seeded-3", "prompt": "List the columns.", "assertions": ["names every column"]},
    ],
}


def skill(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    return write_skill(tmp_path, files)


def dataset_json(data: object = DATASET) -> str:
    return json.dumps(data, indent=2)


def test_evals_json_alone_keeps_order_and_provenance(tmp_path):
    skill_dir = skill(tmp_path, {"evals/evals.json": dataset_json()})
    dataset = load_dataset(skill_dir, tmp_path)
    assert [c.id for c in dataset.cases] == ["seeded-1", "seeded-2", "seeded-3"]
    source = dataset.sources["seeded-2"]
    assert (source.kind, source.file, source.line, source.pointer) == (
        "dataset",
        "skills/demo/evals/evals.json",
        10,
        "/evals/1",
    )
    assert dataset.files == ("skills/demo/evals/evals.json",)


EVAL_MD = """# Intent

## Behaviors
- reads SKILL.md first

## Case seeded-1
Prompt: How many data rows does data.csv hold, header excluded?
Expected: 3
Match: numeric

## Case capital
Prompt: what is the capital of france
Expected: Paris
Should trigger: no

## Case extra
Prompt: Summarise data.csv.
"""


def test_eval_md_replaces_by_id_and_by_prompt_in_place_and_adds_behaviours(tmp_path):
    skill_dir = skill(tmp_path, {"evals/evals.json": dataset_json(), "evals/EVAL.md": EVAL_MD})
    dataset = load_dataset(skill_dir, tmp_path)
    assert [c.id for c in dataset.cases] == ["seeded-1", "capital", "seeded-3", "extra"]
    replaced = dataset.cases[0]
    # Whole replacement: EVAL.md's prompt and match, nothing inherited from the seeded case.
    assert replaced.prompt == "How many data rows does data.csv hold, header excluded?"
    assert replaced.match == "numeric"
    assert replaced.assertions == ("reads SKILL.md first",)
    assert dataset.sources["seeded-1"].supersedes == ("seeded-1",)
    # Same prompt once normalised: the seeded case with another id is replaced too.
    assert dataset.sources["capital"].supersedes == ("seeded-2",)
    assert dataset.sources["capital"].kind == "eval-md"
    assert dataset.sources["capital"].line == 11
    assert dataset.cases[1].should_trigger is False
    # Behaviours go to every case that should trigger, from either source, without repeats.
    assert dataset.cases[2].assertions == ("names every column", "reads SKILL.md first")
    assert dataset.sources["seeded-3"].behaviors_added == 1
    assert dataset.cases[1].assertions == ()
    assert dataset.cases[3].expected_skill == "demo" and dataset.cases[3].should_trigger is True
    assert dataset.files == ("skills/demo/evals/evals.json", "skills/demo/evals/EVAL.md")


def test_eval_md_alone_is_a_dataset(tmp_path):
    skill_dir = skill(tmp_path, {"evals/EVAL.md": EVAL_MD})
    dataset = load_dataset(skill_dir, tmp_path)
    assert [c.id for c in dataset.cases] == ["seeded-1", "capital", "extra"]
    assert dataset.cases[0].tolerance == Tolerance()


def test_eval_md_at_the_skill_root_is_refused_because_it_would_be_staged(tmp_path):
    skill_dir = skill(tmp_path, {"evals/evals.json": dataset_json(), "EVAL.md": EVAL_MD})
    with pytest.raises(InputError, match=r"move it to evals/EVAL\.md") as caught:
        load_dataset(skill_dir, tmp_path)
    assert caught.value.path == "skills/demo/EVAL.md"


def test_an_eval_md_mistake_names_its_line(tmp_path):
    skill_dir = skill(tmp_path, {"evals/EVAL.md": "## Case a\nPrompt: x\nMatch: fuzzy\n"})
    with pytest.raises(InputError) as caught:
        load_dataset(skill_dir, tmp_path)
    assert str(caught.value).startswith("skills/demo/evals/EVAL.md:3: case 'a': Match must be one of")


def test_a_schema_violation_stops_the_load_with_its_json_pointer(tmp_path):
    data = json.loads(dataset_json())
    data["evals"][2]["expected_output"] = 42
    skill_dir = skill(tmp_path, {"evals/evals.json": dataset_json(data)})
    with pytest.raises(InputError) as caught:
        load_dataset(skill_dir, tmp_path)
    error = caught.value
    assert error.exit_code == EXIT_INPUT_ERROR
    assert error.field == "/evals/2/expected_output"
    assert str(error) == (
        "skills/demo/evals/evals.json:20 (/evals/2/expected_output): must be a string or null, found integer"
    )


def test_a_bad_regex_reference_is_stopped_before_any_run(tmp_path):
    data = {"skill_name": "demo", "evals": [{"id": 1, "prompt": "p", "expected_output": "([a-z", "match": "regex"}]}
    skill_dir = skill(tmp_path, {"evals/evals.json": dataset_json(data)})
    with pytest.raises(InputError, match="not a valid regular expression") as caught:
        load_dataset(skill_dir, tmp_path)
    assert caught.value.field == "/evals/0/expected_output"


def test_duplicate_ids_and_missing_fixtures_are_errors(tmp_path):
    data = {"skill_name": "demo", "evals": [{"id": 1, "prompt": "a"}, {"id": "1", "prompt": "b"}]}
    skill_dir = skill(tmp_path, {"evals/evals.json": dataset_json(data)})
    with pytest.raises(InputError, match="case id '1' is used again"):
        load_dataset(skill_dir, tmp_path)
    data = {"skill_name": "demo", "evals": [{"id": 1, "prompt": "a", "files": ["evals/files/none.csv"]}]}
    skill_dir = skill(tmp_path, {"evals/evals.json": dataset_json(data)})
    with pytest.raises(InputError, match="does not exist") as caught:
        load_dataset(skill_dir, tmp_path)
    assert caught.value.field == "/evals/0/files/0"


def test_no_source_at_all_says_how_to_start(tmp_path):
    skill_dir = skill(tmp_path, {})
    with pytest.raises(InputError, match="aces-ci init"):
        load_dataset(skill_dir, tmp_path)


def test_an_ignored_second_dataset_is_a_note(tmp_path):
    skill_dir = skill(tmp_path, {"evals/evals.json": dataset_json(), "evals/evals.yaml": "[]"})
    dataset = load_dataset(skill_dir, tmp_path)
    assert dataset.notes == ("evals/evals.yaml is not read: evals/evals.json takes precedence",)


def test_match_and_tolerance_are_read_with_a_dataset_default(tmp_path):
    data = {
        "skill_name": "demo",
        "match": "exact",
        "evals": [
            {"id": 1, "prompt": "a", "expected_output": "x"},
            {"id": 2, "prompt": "b", "expected_output": "12.5", "match": "numeric", "tolerance": 0.5},
            {"id": 3, "prompt": "c", "expected_output": "200", "match": "numeric", "tolerance": "2%"},
        ],
    }
    skill_dir = skill(tmp_path, {"evals/evals.json": dataset_json(data)})
    cases = load_dataset(skill_dir, tmp_path).cases
    assert [c.match for c in cases] == ["exact", "numeric", "numeric"]
    assert cases[1].tolerance == Tolerance(absolute=0.5)
    assert cases[2].tolerance == Tolerance(relative=0.02)
    assert cases[2].tolerance.allows(200, 204) and not cases[2].tolerance.allows(200, 204.5)


def test_a_grader_is_read_from_the_dataset(tmp_path):
    data = dict(DATASET, grader={"command": "python:acme.grading:grade", "metrics": ["bleu", "accuracy"]})
    skill_dir = skill(tmp_path, {"evals/evals.json": dataset_json(data)})
    grader = load_dataset(skill_dir, tmp_path).grader
    assert grader is not None
    assert (grader.python, grader.metrics, grader.timeout_s) == (("acme.grading", "grade"), ("bleu", "accuracy"), 60.0)
    assert grader.label == "python:acme.grading:grade"
    assert grader.cwd == skill_dir.resolve()


@pytest.mark.parametrize(
    ("grader", "pointer", "message"),
    [
        ({"command": "grade.sh", "metrics": ["x"]}, "/grader/command", r"a list of words \(no shell\), or the string"),
        ({"command": ["grade.sh"], "metrics": ["Not OK"]}, "/grader/metrics/0", "may hold only|must match"),
        ({"command": ["grade.sh"]}, "/grader", "'metrics' is required"),
        ({"command": ["grade.sh"], "metrics": ["x"], "timeout_s": 0}, "/grader/timeout_s", "must be more than 0"),
    ],
)
def test_a_malformed_grader_is_a_schema_error_at_its_pointer(tmp_path, grader, pointer, message):
    skill_dir = skill(tmp_path, {"evals/evals.json": dataset_json(dict(DATASET, grader=grader))})
    with pytest.raises(InputError, match=message) as caught:
        load_dataset(skill_dir, tmp_path)
    assert caught.value.field == pointer
