"""Inline directives, the aces.yml ignore list and the baseline: what they suppress, and what they report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aces_ci.errors import InputError
from aces_ci.scan import (
    Finding,
    Hit,
    IgnoreEntry,
    Rule,
    RuleRegistry,
    ScanConfig,
    ScanContext,
    Severity,
    accepted_by_new_baseline,
    define,
    load_baseline,
    scan_repo,
    write_baseline,
)
from aces_ci.scan._baseline import apply_baseline, count_stale

from .helpers import make_skill

RULES: list[Rule] = []


@define(RULES, id="WORD001", name="no-foo", severity=Severity.WARNING, summary="says foo", fix="Say bar.")
def _foo(ctx: ScanContext):
    """Flags every line saying 'foo' in SKILL.md and in Markdown files of the skill."""
    for number, line in enumerate(ctx.skill.skill_md.lines, start=1):
        if "foo" in line:
            yield Hit("says foo", ctx.at(number))
    for resource in ctx.skill.resources:
        if resource.rel.endswith(".md"):
            for number, line in enumerate(resource.path.read_text().splitlines(), start=1):
                if "foo" in line:
                    yield Hit("says foo", ctx.in_skill(resource.rel, number))


@define(RULES, id="WORD002", name="no-baz", severity=Severity.ERROR, summary="says baz", fix="Say qux.")
def _baz(ctx: ScanContext):
    """Flags every line saying 'baz' in SKILL.md."""
    for number, line in enumerate(ctx.skill.skill_md.lines, start=1):
        if "baz" in line:
            yield Hit("says baz", ctx.at(number))


REGISTRY = RuleRegistry(RULES)


def scan(root: Path, **scan_settings: object):
    return scan_repo(root, ScanConfig(**scan_settings), REGISTRY)  # type: ignore[arg-type]


def skill(root: Path, body: str, front_extra: str = "", files: dict[str, str] | None = None) -> None:
    make_skill(root, f"---\nname: demo\n{front_extra}description: d\n---\n{body}", files)


def states(root: Path, **scan_settings: object) -> list[tuple[str, int | None, str | None]]:
    """(rule, line, suppression kind or None) of every finding of the one skill."""
    (report,) = scan(root, **scan_settings).skills
    return [(f.rule_id, f.location.line, f.suppressed.kind if f.suppressed else None) for f in report.findings]


def test_ignore_covers_its_line_and_the_next_non_blank_line_only(tmp_path: Path) -> None:
    skill(tmp_path, "<!-- aces-ci: ignore WORD001 quoting the old API -->\n\nfoo here\nfoo again\n")
    assert states(tmp_path) == [("WORD001", 7, "inline"), ("WORD001", 8, None)]


def test_ignore_above_a_fenced_block_covers_the_whole_block_and_nothing_after(tmp_path: Path) -> None:
    """A directive cannot sit inside the block it means (there it is an example), so above the fence it covers
    the block through its closing fence; a longer inner fence and a tilde fence are read as CommonMark does."""
    skill(
        tmp_path,
        "<!-- aces-ci: ignore WORD001 the install script is the product's own -->\n"
        "````bash\nfoo one\n```\nfoo two\n````\nfoo after\n\n"
        "<!-- aces-ci: ignore WORD001 quoted -->\n~~~\nfoo three\n",
    )
    assert states(tmp_path) == [
        ("WORD001", 7, "inline"),
        ("WORD001", 9, "inline"),
        ("WORD001", 11, None),
        ("WORD001", 15, "inline"),  # an unclosed fence runs to the end of the file
    ]


def test_ignore_above_an_inline_code_span_is_not_a_block(tmp_path: Path) -> None:
    skill(tmp_path, "<!-- aces-ci: ignore WORD001 quoted -->\n```foo``` inline\nfoo\n")
    assert states(tmp_path) == [("WORD001", 6, "inline"), ("WORD001", 7, None)]


def test_ignore_on_the_same_line_and_several_ids(tmp_path: Path) -> None:
    skill(tmp_path, "foo and baz <!-- aces-ci: ignore WORD001, word002 - both are product names -->\nbaz\n")
    (report,) = scan(tmp_path).skills
    suppressed = [(f.rule_id, f.location.line, f.suppressed) for f in report.findings if f.suppressed]
    assert [(rule, line) for rule, line, _ in suppressed] == [("WORD001", 5), ("WORD002", 5), ("WORD002", 6)]
    assert suppressed[0][2] is not None and suppressed[0][2].reason == "both are product names"
    assert report.verdict == "pass", "the error on line 6 is suppressed too: it is the next non-blank line"


def test_ignore_file_covers_the_whole_file_and_only_that_file(tmp_path: Path) -> None:
    skill(
        tmp_path,
        "<!-- aces-ci: ignore-file WORD001 a glossary of old names -->\nfoo\n\n\n\nfoo\n",
        files={"references/guide.md": "foo\n"},
    )
    assert states(tmp_path) == [
        ("WORD001", 6, "inline"),
        ("WORD001", 10, "inline"),
        ("WORD001", 1, None),
    ]


def test_directives_in_other_markdown_files_apply_to_that_file(tmp_path: Path) -> None:
    guide = "# Guide\n<!-- aces-ci: ignore WORD001 historical example -->\nfoo\nfoo\n"
    skill(tmp_path, "fine\n", files={"references/guide.md": guide})
    (report,) = scan(tmp_path).skills
    found = [(f.location.path, f.location.line, bool(f.suppressed)) for f in report.findings]
    assert found == [("skills/demo/references/guide.md", 3, True), ("skills/demo/references/guide.md", 4, False)]


def test_frontmatter_comments_suppress(tmp_path: Path) -> None:
    skill(tmp_path, "fine\n", front_extra="# aces-ci: ignore WORD001 the field name is fixed upstream\nfoo: 1\n")
    assert states(tmp_path) == [("WORD001", 4, "inline")]


def test_a_suppression_without_reason_still_applies_and_is_a_note(tmp_path: Path) -> None:
    skill(tmp_path, "<!-- aces-ci: ignore WORD001 -->\nfoo\n")
    (report,) = scan(tmp_path).skills
    note, foo = report.findings
    assert (note.rule_id, note.severity, note.location.line) == ("ACES002", Severity.NOTE, 5)
    assert "gives no reason" in note.message
    assert foo.suppressed is not None and foo.suppressed.reason == ""
    assert report.score.value == 99


def test_unknown_ids_and_names_are_reported_and_suppress_nothing(tmp_path: Path) -> None:
    skill(
        tmp_path,
        "<!-- aces-ci: ignore WORD01 typo -->\nfoo\n"
        "<!-- aces-ci: ignore no-foo used the name -->\nfoo\n"
        "<!-- aces-ci: ignore because I said so -->\nfoo\n"
        "<!-- aces-ci: ignor WORD001 misspelt verb -->\nfoo\n",
    )
    (report,) = scan(tmp_path).skills
    problems = [f.message for f in report.findings if f.rule_id == "ACES003"]
    assert problems == [
        "unknown rule id 'WORD01' in suppression; did you mean WORD001, WORD002?",
        "'no-foo' is a rule name; suppressions take rule ids: write WORD001",
        "suppression names no rule id ('because' is not one); `aces-ci rules` lists them",
        "unknown aces-ci directive 'ignor': use 'ignore' or 'ignore-file'",
    ]
    assert all(f.active for f in report.findings if f.rule_id == "WORD001")


def test_directives_inside_code_blocks_are_examples(tmp_path: Path) -> None:
    skill(
        tmp_path,
        "```markdown\n<!-- aces-ci: ignore WORD001 example -->\nfoo\n```\n\n"
        "    <!-- aces-ci: ignore WORD001 x -->\n    foo\n",
    )
    assert states(tmp_path) == [("WORD001", 7, None), ("WORD001", 11, None)]


def test_findings_about_directives_cannot_be_suppressed_inline(tmp_path: Path) -> None:
    skill(tmp_path, "<!-- aces-ci: ignore ACES002 -->\nfine\n")
    assert states(tmp_path) == [("ACES002", 5, None)]


def test_config_ignore_list_with_and_without_paths(tmp_path: Path) -> None:
    skill(tmp_path, "foo\nbaz\n", files={"references/old.md": "foo\n"})
    ignore = (
        IgnoreEntry("word001", ("skills/*/references/",), "old notes"),
        IgnoreEntry("WORD002", (), "product name"),
    )
    (report,) = scan(tmp_path, ignore=ignore).skills
    found = [(f.location.path.rsplit("/", 1)[1], f.rule_id, f.suppressed) for f in report.findings]
    assert [(path, rule, s.kind if s else None) for path, rule, s in found] == [
        ("SKILL.md", "WORD001", None),
        ("SKILL.md", "WORD002", "config"),
        ("old.md", "WORD001", "config"),
    ]
    assert found[1][2] is not None and found[1][2].reason == "product name"


def test_inline_wins_over_config_and_config_over_baseline(tmp_path: Path) -> None:
    skill(tmp_path, "foo <!-- aces-ci: ignore WORD001 inline reason -->\nbaz\n")
    first = scan(tmp_path).skills[0].findings
    baseline = tmp_path / "baseline.json"
    write_baseline(first, baseline)
    ignore = (IgnoreEntry("WORD002", (), "product name"),)
    kinds = states(tmp_path, ignore=ignore, baseline=baseline)
    assert kinds == [("WORD001", 5, "inline"), ("WORD002", 6, "config")]
    assert (
        count_stale(load_baseline(baseline), scan(tmp_path, ignore=ignore, baseline=baseline).skills[0].findings) == 2
    )


def test_baseline_round_trip_accepts_exactly_the_written_findings(tmp_path: Path) -> None:
    skill(tmp_path, "foo\nbaz\n")
    before = scan(tmp_path)
    assert before.verdict == "fail"
    baseline = tmp_path / "ci" / "aces-baseline.json"
    assert write_baseline(accepted_by_new_baseline(before.skills[0].findings), baseline) == 2
    document = json.loads(baseline.read_text())
    assert document["schema_version"] == 1
    assert [(e["rule"], e["path"], e["message"]) for e in document["entries"]] == [
        ("WORD001", "skills/demo/SKILL.md", "says foo"),
        ("WORD002", "skills/demo/SKILL.md", "says baz"),
    ]
    after = scan(tmp_path, baseline=baseline)
    assert after.verdict == "pass"
    assert all(f.suppressed and f.suppressed.kind == "baseline" for f in after.skills[0].findings)
    assert after.skills[0].score.value == 100

    skill(tmp_path, "\n\nfoo moved down\nfoo\n")  # baz fixed, foo moved, a second foo added
    moved = scan(tmp_path, baseline=baseline).skills[0].findings
    assert [(f.location.line, f.active) for f in moved] == [(7, False), (8, True)], (
        "one foo is still accepted wherever it moved; the second one is new"
    )
    assert count_stale(load_baseline(baseline), moved) == 1, "the baz entry matches nothing now"
    result = scan(tmp_path, baseline=baseline)
    assert (result.baseline, result.stale_baseline_entries) == (str(baseline), 1), "the result says so too"
    assert (before.baseline, before.stale_baseline_entries) == (None, 0)


def test_apply_baseline_is_a_multiset(tmp_path: Path) -> None:
    def finding(line: int) -> Finding:
        from aces_ci.scan import Location

        return Finding("WORD001", Severity.WARNING, "says foo", Location("s/SKILL.md", line), "s")

    path = tmp_path / "b.json"
    write_baseline([finding(1)], path)
    applied = apply_baseline([finding(3), finding(9)], load_baseline(path))
    assert [f.active for f in applied] == [False, True]
    assert applied[0].suppressed is not None and applied[0].suppressed.reason == "accepted in baseline b.json"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", r"b.json:1: baseline is not valid JSON"),
        ("[]", "baseline must be a JSON object"),
        ('{"schema_version": 9, "entries": []}', r"\(schema_version\): unsupported baseline schema_version 9"),
        ('{"schema_version": 1}', r"\(entries\): 'entries' must be a list"),
        ('{"schema_version": 1, "entries": [{"rule": "X1"}]}', r"\(entries\[0\].fingerprint\): 'fingerprint' must be"),
    ],
)
def test_a_broken_baseline_is_an_input_error_naming_the_field(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "b.json"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        load_baseline(path)


def test_a_missing_baseline_says_how_to_create_one(tmp_path: Path) -> None:
    skill(tmp_path, "fine\n")
    with pytest.raises(InputError, match="baseline file not found; create it with `aces-ci scan --write-baseline"):
        scan(tmp_path, baseline=tmp_path / "absent.json")
