"""The assertion language: which sentences a rule decides, and how; everything else goes to a judge."""

from __future__ import annotations

import pytest

from aces_ci.grading import AnswerAssertion, Atom, FileAssertion, FreeText, ProcessAssertion, classify


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("file out/summary.json exists", FileAssertion("file out/summary.json exists", "exists", "out/summary.json")),
        ("Creates `report.md`.", FileAssertion("Creates `report.md`.", "exists", "report.md")),
        ("the file ./tmp.txt does not exist", FileAssertion("the file ./tmp.txt does not exist", "absent", "tmp.txt")),
        (
            'file a.md contains "## Fixes"',
            FileAssertion('file a.md contains "## Fixes"', "contains", "a.md", "## Fixes"),
        ),
        (
            "file a.md does not contain 'chore'",
            FileAssertion("file a.md does not contain 'chore'", "lacks", "a.md", "chore"),
        ),
        ("file a.md matches /^# .+/", FileAssertion("file a.md matches /^# .+/", "matches", "a.md", "^# .+")),
        (
            "json o.json field /rows equals 12",
            FileAssertion("json o.json field /rows equals 12", "json", "o.json", "/rows", 12),
        ),
        ('The answer contains "ORCA-7"', AnswerAssertion('The answer contains "ORCA-7"', "contains", "ORCA-7")),
        ("answer does not mention `Node 14`", AnswerAssertion("answer does not mention `Node 14`", "lacks", "Node 14")),
        ("answer matches /\\d+ days/", AnswerAssertion("answer matches /\\d+ days/", "matches", "\\d+ days")),
    ],
)
def test_outcome_sentences(text, expected):
    assert classify(text) == expected


@pytest.mark.parametrize(
    ("text", "atom", "extra"),
    [
        ("loads the skill", Atom("load"), {}),
        ("The agent reads SKILL.md.", Atom("load"), {}),
        (
            "Runs scripts/summarize_csv.py on evals/files/orders.csv",
            Atom("run", "scripts/summarize_csv.py", "evals/files/orders.csv"),
            {},
        ),
        (
            "Pipes evals/files/commits.txt into scripts/changelog.sh",
            Atom("run", "scripts/changelog.sh", "evals/files/commits.txt"),
            {},
        ),
        ("runs the script", Atom("run"), {}),
        ("reads references/column-types.md", Atom("read", "references/column-types.md"), {}),
        ("does not load the skill", Atom("load"), {"negated": True}),
        ("never runs scripts/cleanup.sh", Atom("run", "scripts/cleanup.sh"), {"negated": True}),
        ("does not write notes.md", Atom("write", "notes.md"), {"negated": True}),
        ("loads the skill first", Atom("load"), {"first": True}),
        ("reads SKILL.md before running the script", Atom("load"), {"before": Atom("run")}),
        ("reads data.csv before writing out.md", Atom("read", "data.csv"), {"before": Atom("write", "out.md")}),
        ("reads SKILL.md before answering", Atom("load"), {"before": Atom("answer")}),
    ],
)
def test_process_sentences(text, atom, extra):
    assert classify(text) == ProcessAssertion(text, atom, **extra)


@pytest.mark.parametrize(
    "text",
    [
        "Reports 12 rows",
        "Does not run the CSV profiler",
        "Lists the dropped Node 16 support first, under Breaking changes",
        "Describes the effect for the user rather than the implementation",
        "Mentions the double-charge fix",
    ],
)
def test_everything_else_is_free_text_for_a_judge(text):
    assert classify(text) == FreeText(text)
