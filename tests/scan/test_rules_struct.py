"""STRUCT rules: progressive disclosure and document structure of the body and reference files."""

from __future__ import annotations

import os

import pytest

from aces_ci.scan import ScanConfig
from aces_ci.scan.rules.struct import RULES, estimate_tokens
from tests.scan.helpers import front, lines_of, make_skill, run_rule

DESCRIPTION = "Fill PDF forms. Use when the user uploads a PDF form."
HEADER = front(name="demo", description=DESCRIPTION)  # lines 1-4: the body starts on line 5


def body_hits(tmp_path, rule_id, body, *, config=None, files=None, header=HEADER):
    skill = make_skill(tmp_path, header + body, files=files)
    return run_rule(RULES, rule_id, skill, config)


def test_rule_ids_are_sequential_and_documented():
    assert [rule.id for rule in RULES] == [f"STRUCT{i:03d}" for i in range(1, len(RULES) + 1)]
    for rule in RULES:
        assert "PASS" in rule.doc and "FAIL" in rule.doc, rule.id


def test_a_well_structured_skill_has_no_findings(tmp_path):
    body = "# PDF forms\n\n## Filling\n\nRun `scripts/fill.py`.\n\n### Checkboxes\n\nTick them.\n"
    reference = "# API\n\n## Contents\n\n- [Auth](#auth)\n\n## Auth\n\n" + "detail\n" * 150
    skill = make_skill(tmp_path, HEADER + body, files={"references/api.md": reference})
    assert [hit for rule in RULES for hit in run_rule(RULES, rule.id, skill)] == []


# estimate_tokens


def test_token_estimate_counts_words_digits_and_symbols():
    assert estimate_tokens("") == 0
    assert estimate_tokens("Hello world.") == 3
    assert estimate_tokens("internationalization") == 4  # 20 letters: one token per six
    assert estimate_tokens("1234567") == 3  # digits in chunks of three
    assert estimate_tokens("日本語") == 3  # one per non-ASCII character


def test_token_estimate_tracks_four_characters_per_token_on_prose():
    prose = "The skill fills the form, checks every field, and writes a summary for the user. " * 50
    assert 0.8 <= estimate_tokens(prose) / (len(prose) / 4) <= 1.2


# STRUCT001 body-too-long


def test_body_over_the_line_limit_points_at_the_first_line_past_it(tmp_path):
    found = body_hits(tmp_path, "STRUCT001", "line\n" * 12, config=ScanConfig(max_body_lines=10))
    assert [h.message for h in found] == ["SKILL.md body is 12 lines; keep it under 10"]
    assert lines_of(found) == [5 + 10]


def test_body_at_the_default_limit_passes(tmp_path):
    assert body_hits(tmp_path, "STRUCT001", "line\n" * 500) == []
    assert lines_of(body_hits(tmp_path, "STRUCT001", "line\n" * 501)) == [505]


# STRUCT002 body-too-many-tokens


def test_body_over_the_token_budget_warns_with_an_estimate(tmp_path):
    found = body_hits(tmp_path, "STRUCT002", "Fill the form now.\n" * 20, config=ScanConfig(max_body_tokens=50))
    assert [h.message for h in found] == ["SKILL.md body is about 100 tokens (estimated); keep it under 50"]
    assert lines_of(found) == [5]


def test_body_within_the_token_budget_passes(tmp_path):
    assert body_hits(tmp_path, "STRUCT002", "Fill the form now.\n" * 20) == []


def test_size_rules_are_silent_when_the_body_is_unknown(tmp_path):
    skill = make_skill(tmp_path, "---\nname: demo\n" + "x\n" * 30)  # unclosed frontmatter
    config = ScanConfig(max_body_lines=5, max_body_tokens=5)
    assert run_rule(RULES, "STRUCT001", skill, config) == []
    assert run_rule(RULES, "STRUCT002", skill, config) == []


# STRUCT003 description-no-trigger


@pytest.mark.parametrize(
    "description",
    [
        "Fill PDF forms. Use when the user uploads a form.",
        "Fills PDF forms whenever a form arrives.",
        "Fills PDF forms. Use this for tax paperwork.",
        "Fills PDF forms; triggers on uploaded forms.",
        "Fills PDF forms if the user has one.",
        "Fills PDF forms the user asks about.",
    ],
)
def test_descriptions_with_trigger_wording_pass(tmp_path, description):
    assert body_hits(tmp_path, "STRUCT003", "Body.\n", header=front(name="demo", description=description)) == []


def test_description_without_trigger_wording_warns_at_its_line(tmp_path):
    found = body_hits(tmp_path, "STRUCT003", "Body.\n", header=front(name="demo", description="A PDF form filler."))
    assert len(found) == 1
    assert found[0].message.startswith("description does not say when to use the skill")
    assert lines_of(found) == [3]


@pytest.mark.parametrize("value", ["[a, b]", "42", "''"])
def test_unusable_descriptions_are_left_to_the_spec_rules(tmp_path, value):
    assert body_hits(tmp_path, "STRUCT003", "Body.\n", header=front(name="demo", description=value)) == []


# STRUCT004 body-empty


@pytest.mark.parametrize("body", ["", "\n\n  \n", "<!-- todo: write this -->\n"])
def test_empty_body_is_reported_at_the_closing_fence(tmp_path, body):
    found = body_hits(tmp_path, "STRUCT004", body)
    assert [h.message for h in found] == ["SKILL.md has no body below the frontmatter"]
    assert lines_of(found) == [4]


def test_body_with_text_passes(tmp_path):
    assert body_hits(tmp_path, "STRUCT004", "Run the script.\n") == []


def test_body_empty_is_silent_without_a_closed_frontmatter(tmp_path):
    assert run_rule(RULES, "STRUCT004", make_skill(tmp_path, "---\nname: demo\n")) == []
    assert run_rule(RULES, "STRUCT004", make_skill(tmp_path, b"\x00\x01binary")) == []


# STRUCT005 empty-section


def test_empty_sections_are_reported_at_their_headings(tmp_path):
    body = "# Demo\n\nIntro.\n\n## Examples\n\n<!-- later -->\n\n## Troubleshooting\n"
    found = body_hits(tmp_path, "STRUCT005", body)
    assert [h.message for h in found] == [
        "section 'Examples' (H2) has no content",
        "section 'Troubleshooting' (H2) has no content",
    ]
    assert lines_of(found) == [9, 13]


def test_sections_with_text_code_or_subsections_pass(tmp_path):
    body = "# Demo\n\n## Usage\n\n```bash\npython run.py\n```\n\n## Parts\n\n### One\n\nText.\n"
    assert body_hits(tmp_path, "STRUCT005", body) == []


# STRUCT006 heading-hierarchy


def test_skipped_heading_level_is_reported(tmp_path):
    found = body_hits(tmp_path, "STRUCT006", "# Demo\n\nIntro.\n\n### Details\n\nText.\n")
    assert [h.message for h in found] == ["H3 'Details' follows H1 'Demo' (line 5): use H2"]
    assert lines_of(found) == [9]


def test_second_h1_is_reported(tmp_path):
    found = body_hits(tmp_path, "STRUCT006", "# Demo\n\nIntro.\n\n# Signing\n\nText.\n")
    assert [h.message for h in found] == ["second H1 'Signing' (the first is 'Demo' at line 5)"]
    assert lines_of(found) == [9]


def test_stepwise_headings_and_going_back_up_pass(tmp_path):
    body = "## Usage\n\nA.\n\n### Step\n\nB.\n\n#### Detail\n\nC.\n\n## Next\n\nD.\n"
    assert body_hits(tmp_path, "STRUCT006", body) == []


# STRUCT007 reference-without-toc

LONG_SECTIONS = "".join(f"## Part {i}\n\n" + "detail line\n" * 30 for i in range(1, 5))


def reference_hits(tmp_path, files):
    return body_hits(tmp_path, "STRUCT007", "See references/api.md.\n", files=files)


def test_long_reference_without_toc_is_reported_at_its_first_line(tmp_path):
    found = reference_hits(tmp_path, {"references/api.md": "# API\n\n" + LONG_SECTIONS})
    assert len(found) == 1
    assert found[0].message == "references/api.md is 130 lines with no table of contents in its first 40 lines"
    assert found[0].location.path == "skills/demo/references/api.md"
    assert found[0].location.line == 1


@pytest.mark.parametrize(
    "toc",
    [
        "## Contents\n\nSee below.\n",
        "- [Part 1](#part-1)\n- [Part 2](#part-2)\n- [Part 3](#part-3)\n",
        "This file covers:\n\n1. Part 1\n2. **Part 2**\n3. Part 3\n",
    ],
)
def test_long_reference_with_a_toc_near_the_top_passes(tmp_path, toc):
    assert reference_hits(tmp_path, {"references/api.md": "# API\n\n" + toc + "\n" + LONG_SECTIONS}) == []


def test_toc_further_down_than_the_window_does_not_count(tmp_path):
    text = "# API\n\n" + "preamble\n" * 45 + "## Contents\n\n" + LONG_SECTIONS
    assert len(reference_hits(tmp_path, {"references/api.md": text})) == 1


def test_short_non_markdown_and_binary_references_pass(tmp_path):
    files = {
        "references/short.md": "# Short\n\n" + "line\n" * 90,
        "references/data.txt": "row\n" * 300,
        "references/blob.md": b"\x00" * 5000,
        "scripts/long.md": "line\n" * 300,
    }
    assert reference_hits(tmp_path, files) == []


def test_symlinked_reference_is_not_read(tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("line\n" * 300, encoding="utf-8")
    skill = make_skill(tmp_path, HEADER + "Body.\n", files={"references/keep.md": "# Keep\n"})
    os.symlink(outside, skill.dir / "references" / "linked.md")
    relinked = make_skill(tmp_path, HEADER + "Body.\n")
    assert any(res.rel == "references/linked.md" and res.is_symlink for res in relinked.resources)
    assert run_rule(RULES, "STRUCT007", relinked) == []
