"""EVAL rules: each problem of a skill's dataset becomes one finding, at its line in evals/evals.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aces_ci.scan import ScanConfig, Severity
from aces_ci.scan.rules import default_registry
from aces_ci.scan.rules.evalset import ROUTES, RULES
from aces_ci.skill import discover_skills
from tests.scan.helpers import front, lines_of, make_skill, run_rule

SKILL_MD = (
    front(name="demo", description="Profile CSV files. Use when the user shares a CSV file.") + "# Demo\n\nRun it.\n"
)
EXAMPLE_REPO = Path(__file__).resolve().parents[2] / "examples" / "skill-repo"
GOOD_DATASET = """{
  "skill_name": "demo",
  "evals": [
    {"id": 1, "prompt": "Profile data.csv", "expected_output": "3 rows", "files": ["evals/files/data.csv"]},
    {"id": 2, "prompt": "Which column has blanks?", "assertions": ["names column b"]},
    {"id": 3, "prompt": "Write a haiku about spring", "should_trigger": false}
  ]
}
"""


def skill_with(tmp_path, dataset, filename="evals.json", files=None):
    return make_skill(tmp_path, SKILL_MD, files={f"evals/{filename}": dataset, **(files or {})})


def hits(tmp_path, rule_id, dataset, **kwargs):
    config = kwargs.pop("config", None)
    return run_rule(RULES, rule_id, skill_with(tmp_path, dataset, **kwargs), config)


def messages(found):
    return [hit.message for hit in found]


def test_rule_ids_are_sequential_and_documented():
    assert [rule.id for rule in RULES] == [f"EVAL{i:03d}" for i in range(1, len(RULES) + 1)]
    for rule in RULES:
        assert rule.family == "EVAL"
        assert "PASS" in rule.doc and "FAIL" in rule.doc, rule.id


def test_every_routed_problem_code_has_a_rule():
    assert set(ROUTES.values()) <= {rule.id for rule in RULES}


def test_a_good_dataset_has_no_findings(tmp_path):
    skill = skill_with(tmp_path, GOOD_DATASET, files={"evals/files/data.csv": "a,b\n1,\n"})
    assert [(rule.id, hit) for rule in RULES for hit in run_rule(RULES, rule.id, skill)] == []


def test_findings_point_at_the_dataset_file(tmp_path):
    (hit,) = hits(tmp_path, "EVAL006", '[{"id": 1, "prompt": "a"},\n {"id": 1, "prompt": "b"}]')
    assert str(hit.location) == "skills/demo/evals/evals.json:2"


# EVAL001 evals-missing


def test_missing_dataset_is_a_warning_on_a_file_that_exists_naming_where_the_dataset_belongs(tmp_path):
    """An annotation on a missing file has nowhere to appear: SKILL.md line 1 carries it, the message the path."""
    skill = make_skill(tmp_path, SKILL_MD)
    (hit,) = run_rule(RULES, "EVAL001", skill)
    assert str(hit.location) == "skills/demo/SKILL.md:1"
    assert (tmp_path / hit.location.path).is_file()
    assert "add skills/demo/evals/evals.json so" in hit.message
    assert next(rule for rule in RULES if rule.id == "EVAL001").severity is Severity.WARNING


def test_a_yaml_dataset_counts_as_present(tmp_path):
    assert hits(tmp_path, "EVAL001", "evals:\n  - id: 1\n    prompt: p\n", filename="evals.yaml") == []


def test_an_eval_md_alone_counts_as_present_since_trials_run_its_cases(tmp_path):
    eval_md = "# Cases\n\n## Case: refund-window\n\nPrompt: How long is the refund window?\nExpected: 30 days\n"
    assert run_rule(RULES, "EVAL001", make_skill(tmp_path, SKILL_MD, files={"evals/EVAL.md": eval_md})) == []


def test_missing_dataset_says_nothing_else(tmp_path):
    skill = make_skill(tmp_path, SKILL_MD)
    assert [rule.id for rule in RULES if run_rule(RULES, rule.id, skill)] == ["EVAL001"]


# EVAL002 evals-unreadable


def test_invalid_json_is_an_error_at_its_line(tmp_path):
    found = hits(tmp_path, "EVAL002", '{\n  "evals": [\n    {"id": 1, "prompt": "a"}\n    {"id": 2}\n  ]\n}\n')
    assert messages(found) == ["invalid JSON: Expecting ',' delimiter (line 4, column 5)"]
    assert lines_of(found) == [4]


@pytest.mark.parametrize(
    ("content", "line", "text"),
    [
        (b'{"evals": [\x00]}', None, "binary"),
        (b'{\n"evals": [{"id": 1, "prompt": "\xff"}]}', 2, "invalid UTF-8"),
        ('{"evals": [], "evals": []}', 1, "appears twice"),
        ("[" * 50 + "]" * 50, 1, "nested deeper than 32 levels"),
    ],
)
def test_unreadable_datasets(tmp_path, content, line, text):
    (hit,) = hits(tmp_path, "EVAL002", content)
    assert hit.location.line == line
    assert text in hit.message


def test_an_unreadable_dataset_raises_no_content_findings(tmp_path):
    skill = skill_with(tmp_path, "{oops")
    fired = [rule.id for rule in RULES if run_rule(RULES, rule.id, skill)]
    assert fired == ["EVAL002"]


# EVAL003 evals-schema


def test_schema_violations_name_path_and_line(tmp_path):
    dataset = '{\n  "evals": [\n    {"id": 1, "prompt": "a"},\n    {"id": true,\n     "prompt": "b"}\n  ]\n}\n'
    found = hits(tmp_path, "EVAL003", dataset)
    assert messages(found) == ["$.evals[1].id: must be an integer or a string, found boolean"]
    assert lines_of(found) == [4]


def test_an_unknown_key_is_an_error_with_its_line_pointer_and_suggestion(tmp_path):
    dataset = '{\n  "evals": [\n    {"id": 1, "prompt": "a",\n     "expected_outptu": "42"}\n  ]\n}\n'
    found = hits(tmp_path, "EVAL003", dataset)
    assert messages(found) == [
        "$.evals[0].expected_outptu: unknown case key 'expected_outptu'; did you mean 'expected_output'?"
    ]
    assert lines_of(found) == [4]


def test_each_dialects_own_keys_are_not_unknown(tmp_path):
    aces_case = {
        "id": "a",
        "question": "q",
        "ground_truth": "1",
        "expected_behavior": "x",
        "expected_skill": "demo",
        "acceptable_alternates": [],
        "expected_script": None,
    }
    creator_case = {"id": 1, "prompt": "p", "expected_output": "o", "files": [], "expectations": ["e"]}
    for i, dataset in enumerate(({"skill_name": "demo", "cases": [aces_case]}, {"evals": [creator_case]})):
        assert hits(tmp_path / str(i), "EVAL003", json.dumps(dataset)) == []


# EVAL004 evals-too-few


def test_too_few_cases_points_at_the_list(tmp_path):
    dataset = (
        '{\n  "skill_name": "demo",\n  "evals": [\n    {"id": 1, "prompt": "a", "should_trigger": false}\n  ]\n}\n'
    )
    found = hits(tmp_path, "EVAL004", dataset)
    assert messages(found) == ["1 usable case; at least 3 are needed before a lift on this skill means anything"]
    assert lines_of(found) == [3]


def test_the_minimum_comes_from_the_config(tmp_path):
    assert hits(tmp_path / "a", "EVAL004", GOOD_DATASET, config=ScanConfig(min_eval_cases=3)) == []
    found = hits(tmp_path / "b", "EVAL004", GOOD_DATASET, config=ScanConfig(min_eval_cases=5))
    assert messages(found) == ["3 usable cases; at least 5 are needed before a lift on this skill means anything"]


def test_cases_without_prompt_do_not_count(tmp_path):
    dataset = json.dumps({"evals": [{"id": 1, "prompt": "a"}, {"id": 2}, {"id": 3, "prompt": "  "}]})
    assert messages(hits(tmp_path, "EVAL004", dataset))[0].startswith("1 usable case;")


def test_an_empty_list_of_cases(tmp_path):
    found = hits(tmp_path, "EVAL004", '{"skill_name": "demo", "evals": []}')
    assert messages(found)[0].startswith("0 usable cases;")


# EVAL005 evals-no-negative


def test_no_negative_case(tmp_path):
    dataset = '{\n  "skill_name": "demo",\n  "evals": [\n    {"id": 1, "prompt": "a"},\n'
    dataset += '    {"id": 2, "prompt": "b"}\n  ]\n}\n'
    found = hits(tmp_path, "EVAL005", dataset)
    assert lines_of(found) == [3]
    assert "none of the 2 cases is negative" in found[0].message


@pytest.mark.parametrize("marker", ['"should_trigger": false', '"expected_skill": null', '"expected_skill": "other"'])
def test_a_negative_case_passes(tmp_path, marker):
    dataset = '{"skill_name": "demo", "evals": [{"id": 1, "prompt": "a"}, {"id": 2, "prompt": "b", ' + marker + "}]}"
    assert hits(tmp_path, "EVAL005", dataset) == []


def test_unlabelled_cases_are_not_negative(tmp_path):
    assert len(hits(tmp_path, "EVAL005", '[{"id": 1, "question": "a"}, {"id": 2, "question": "b"}]')) == 1


# EVAL006 evals-duplicate-id


def test_duplicate_ids_point_at_each_repeat(tmp_path):
    dataset = '[\n  {"id": 1, "question": "a"},\n  {"id": "1", "question": "b"},\n  {"id": 2, "question": "c"},\n'
    dataset += '  {"id": 1, "question": "d"}\n]\n'
    found = hits(tmp_path, "EVAL006", dataset)
    assert lines_of(found) == [3, 5]
    assert messages(found) == ["case id '1' is used again (first at line 2)"] * 2


# EVAL007 evals-skill-name


def test_skill_name_differing_from_the_skill(tmp_path):
    found = hits(tmp_path, "EVAL007", '{\n  "skill_name": "csv-tools",\n  "evals": [{"id": 1, "prompt": "a"}]\n}\n')
    assert messages(found) == ["skill_name is 'csv-tools' but the skill is named 'demo'"]
    assert lines_of(found) == [2]


def test_no_skill_name_is_not_a_mismatch(tmp_path):
    assert hits(tmp_path, "EVAL007", '[{"id": 1, "question": "a"}]') == []


# EVAL008 evals-fixture


def test_missing_and_escaping_fixtures(tmp_path):
    dataset = '{"evals": [\n  {"id": "a", "prompt": "p", "files": ["evals/files/gone.csv"]},\n'
    dataset += '  {"id": "b", "prompt": "p",\n   "files": ["../../../etc/passwd"]}\n]}\n'
    found = hits(tmp_path, "EVAL008", dataset)
    assert lines_of(found) == [2, 4]
    assert messages(found) == [
        "case 'a': fixture 'evals/files/gone.csv' does not exist",
        "case 'b': fixture '../../../etc/passwd' is outside evals/",
    ]


# EVAL009 evals-nothing-to-score


def test_a_case_with_nothing_to_score(tmp_path):
    dataset = '[\n  {"id": 1, "question": "a"},\n  {"id": 2, "question": "b", "ground_truth": "x"},\n'
    dataset += '  {"id": 3, "question": "c", "expected_behavior": "y"},\n'
    dataset += '  {"id": 4, "question": "d", "should_trigger": false}\n]\n'
    found = hits(tmp_path, "EVAL009", dataset)
    assert messages(found) == ["case '1' has neither expected_output nor assertions"]
    assert lines_of(found) == [2]


# EVAL010 evals-several-datasets


def test_a_second_dataset_file_is_reported_on_that_file(tmp_path):
    found = hits(tmp_path, "EVAL010", GOOD_DATASET, files={"evals/evals.yml": "- id: 9\n  question: q\n"})
    assert [str(hit.location) for hit in found] == ["skills/demo/evals/evals.yml"]
    assert messages(found) == ["evals/evals.yml is not read: evals/evals.json takes precedence"]


# EVAL011 evals-draft


def test_a_case_still_marked_fill_in_is_an_error(tmp_path):
    dataset = (
        '{"evals": [\n  {"id": "when-1", "prompt": "Fill a form.", "expected_output": null,\n'
        '   "_fill_in": "prompt: write it"}\n]}\n'
    )
    found = hits(tmp_path, "EVAL011", dataset)
    assert messages(found) == ["case 'when-1' is still a draft from `aces-ci init`: 'prompt: write it'"]
    assert lines_of(found) == [2]
    assert hits(tmp_path / "done", "EVAL011", GOOD_DATASET) == []


# The example repository


def example_findings(family):
    registry = default_registry()
    found = {}
    for skill in discover_skills(EXAMPLE_REPO):
        rules = [rule for rule in registry if rule.family == family]
        found[skill.rel_dir] = [
            (rule.id, hit.location.line) for rule in rules for hit in run_rule(rules, rule.id, skill)
        ]
    return found


def test_example_repo_eval_findings():
    assert example_findings("EVAL") == {
        "skills/acme-support": [],
        "skills/capital-cities": [],
        "skills/csv-insights": [],
        "skills/release-notes": [],
        "skills/deploy-helper": [("EVAL001", 1)],
        "skills/log-cleaner": [("EVAL001", 1)],
        "skills/pdf-merger": [("EVAL001", 1)],
        "skills/report-builder": [("EVAL001", 1)],
        "skills/meeting-notes": [
            ("EVAL004", 3),
            ("EVAL005", 3),
            ("EVAL006", 11),
            ("EVAL007", 2),
            ("EVAL008", 8),
            ("EVAL008", 13),
            ("EVAL009", 11),
        ],
        "skills/todo-extractor": [("EVAL002", 7)],
    }


def test_example_good_skills_are_clean_under_every_rule_family():
    registry = default_registry()
    for name in ("acme-support", "capital-cities", "csv-insights", "release-notes"):
        (skill,) = [s for s in discover_skills(EXAMPLE_REPO) if s.dir_name == name]
        found = [(rule.id, hit) for rule in registry for hit in run_rule(list(registry), rule.id, skill)]
        assert found == [], name
