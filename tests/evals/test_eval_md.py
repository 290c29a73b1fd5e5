"""EVAL.md: the author's cases in Markdown, read with their lines, and every mistake named at its line."""

from __future__ import annotations

from aces_ci.evals import parse_eval_md

EXAMPLE = """# Evaluation intent for csv-insights

Anything outside a case is for people.

## Behaviors
- reads SKILL.md before running scripts/summarize_csv.py
- quotes the numbers
  exactly as printed

## Case count-orders
Prompt: How many orders are in evals/files/orders.csv?
Mention the blanks too.
<!-- a note to the next author, not part of the prompt -->
Expected: 12
Match: numeric
Tolerance: 2%
Files: evals/files/orders.csv, evals/files/customers.csv
Assertions:
- runs scripts/summarize_csv.py
- file summary.json exists

## Case code-in-prompt
Prompt:
```python
Expected: this line is code, not a field
```
Should trigger: no
Expected skill: none

## Notes
Prompt: prose here is not a case.
"""


def test_cases_fields_and_behaviours_are_read():
    parsed = parse_eval_md(EXAMPLE)
    assert parsed.problems == ()
    first, second = parsed.items
    assert first == {
        "id": "count-orders",
        "prompt": "How many orders are in evals/files/orders.csv?\nMention the blanks too.",
        "expected_output": "12",
        "match": "numeric",
        "tolerance": "2%",
        "files": ["evals/files/orders.csv", "evals/files/customers.csv"],
        "assertions": ["runs scripts/summarize_csv.py", "file summary.json exists"],
    }
    assert second["prompt"] == "```python\nExpected: this line is code, not a field\n```"
    assert second["should_trigger"] is False and second["expected_skill"] is None
    assert parsed.behaviors == (
        "reads SKILL.md before running scripts/summarize_csv.py",
        "quotes the numbers exactly as printed",
    )


def test_every_field_has_its_line():
    parsed = parse_eval_md(EXAMPLE)
    assert parsed.lines[("evals", 0)] == 10
    assert parsed.lines[("evals", 0, "expected_output")] == 14
    assert parsed.lines[("evals", 1, "should_trigger")] == 27


def test_case_colon_form_and_field_names_are_case_insensitive():
    parsed = parse_eval_md("## Case: a.1\nPROMPT: hi\nexpected output: yo\nshould_trigger: YES\n")
    assert parsed.problems == ()
    assert parsed.items == ({"id": "a.1", "prompt": "hi", "expected_output": "yo", "should_trigger": True},)


def problems(text: str) -> list[tuple[int | None, str]]:
    return [(p.line, p.message) for p in parse_eval_md(text).problems]


def test_a_misspelt_field_is_an_error_not_prompt_text():
    assert problems("## Case a\nPrompt: hi\nExpcted: 12\n") == [
        (3, "unknown field 'Expcted': did you mean 'Expected'?")
    ]


def test_ordinary_prose_with_a_colon_continues_the_prompt():
    parsed = parse_eval_md("## Case a\nPrompt: Read this.\nContext: the user is in a hurry.\n")
    assert parsed.problems == ()
    assert parsed.items[0]["prompt"] == "Read this.\nContext: the user is in a hurry."


def test_bad_values_name_their_line():
    text = "## Case a\nPrompt: hi\nMatch: fuzzy\nShould trigger: maybe\nTolerance: lots\n"
    assert problems(text) == [
        (3, "case 'a': Match must be one of contains, exact, numeric, regex, judge, found 'fuzzy'"),
        (4, "case 'a': Should trigger must be yes or no, found 'maybe'"),
        (5, "case 'a': Tolerance must be a number (0.5) or a percentage (2%), found 'lots'"),
    ]


def test_structure_errors_are_reported():
    text = (
        "## Case a\nPrompt: one\nPrompt: two\n"
        "## Case bad id\n"
        "## Case empty\nExpected: 3\n"
        "## Case a\nPrompt: again\n"
        "## Case list\nPrompt: p\nAssertions:\nnot an item\n"
    )
    assert problems(text) == [
        (3, "case 'a': Prompt is given twice (first at line 2)"),
        (4, "a case heading needs an id of 1-128 letters, digits, '.', '_' or '-', found 'bad id'"),
        (5, "case 'empty' has no Prompt"),
        (7, "case id 'a' is used again (first at line 1)"),
        (12, "case 'list': expected a list item ('- …') under assertions"),
    ]


def test_an_empty_file_has_no_cases_and_no_problems():
    parsed = parse_eval_md("")
    assert (parsed.items, parsed.problems, parsed.behaviors) == ((), (), ())
