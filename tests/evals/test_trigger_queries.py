"""evals/eval_queries.json: the agentskills.io trigger-eval format, read with lines, pointers and did-you-mean."""

from __future__ import annotations

from pathlib import Path

from aces_ci.evals import parse_trigger_queries
from aces_ci.scan import ScanConfig, scan_repo
from aces_ci.scan.rules import default_registry

# The example of the agentskills.io guide "Optimizing skill descriptions", as printed there.
GUIDE_EXAMPLE = """[
  { "query": "I've got a spreadsheet in ~/data/q4_results.xlsx with revenue in col C and expenses in col D \u2014 can you add a profit margin column and highlight anything under 10%?", "should_trigger": true },
  { "query": "whats the quickest way to convert this json file to yaml", "should_trigger": false }
]
"""  # noqa: E501


def messages(text: str) -> list[tuple[int | None, str]]:
    return [(problem.line, problem.message) for problem in parse_trigger_queries(text, "q.json").problems]


def test_the_guides_example_parses() -> None:
    found = parse_trigger_queries(GUIDE_EXAMPLE, "skills/x/evals/eval_queries.json")
    assert found.problems == ()
    assert [(q.should_trigger, q.line, q.pointer) for q in found.queries] == [(True, 2, "/0"), (False, 3, "/1")]
    assert found.queries[1].query == "whats the quickest way to convert this json file to yaml"


def test_a_misspelt_key_names_its_line_pointer_and_the_key_it_resembles() -> None:
    text = (
        '[\n  {"query": "plot my csv", "should_trigger": true},\n  {"query": "plot it",\n   "should_triger": true}\n]\n'
    )
    found = messages(text)
    assert (4, "/1/should_triger: unknown key 'should_triger'; did you mean 'should_trigger'?") in found
    assert (3, "/1: should_trigger must be true or false, got missing") in found


def test_wrong_types_and_shapes_are_named_by_pointer() -> None:
    assert messages('[{"query": "", "should_trigger": "yes"}]') == [
        (1, "/0/query: query must be a non-empty string, got empty"),
        (1, "/0/should_trigger: should_trigger must be true or false, got a string"),
    ]
    assert messages('{"queries": []}') == [(1, "/: the file must be a JSON array of queries, not object")]
    assert messages("[]") == [(1, "/: the array holds no query")]
    assert messages('[\n  "plot my csv"\n]') == [
        (2, "/0: a query is an object with query and should_trigger, not string")
    ]


def test_invalid_json_names_its_line() -> None:
    ((line, message),) = messages(
        '[\n  {"query": "a", "should_trigger": true},\n  {"query": "b" "should_trigger": 1}\n]'
    )
    assert line == 3 and "invalid JSON" in message


def test_the_scan_reports_each_problem_at_its_line(tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "csv"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: csv\ndescription: Use when plotting CSV files.\n---\n\n# CSV\n")
    (skill / "evals" / "eval_queries.json").write_text('[\n  {"query": "plot this", "should_triger": true}\n]\n')
    result = scan_repo(tmp_path, ScanConfig(), default_registry())
    found = [(str(f.location), f.message) for r in result.skills for f in r.findings if f.rule_id == "DISC004"]
    assert (
        "skills/csv/evals/eval_queries.json:2",
        "/0/should_triger: unknown key 'should_triger'; did you mean 'should_trigger'?",
    ) in found
    (skill / "evals" / "eval_queries.json").write_text(GUIDE_EXAMPLE)
    result = scan_repo(tmp_path, ScanConfig(), default_registry())
    assert not [f for r in result.skills for f in r.findings if f.rule_id == "DISC004"]
