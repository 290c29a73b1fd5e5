"""SPEC rules: the agentskills.io frontmatter contract under the strict and lenient profiles."""

from __future__ import annotations

import unicodedata

import pytest

from aces_ci.scan import ScanConfig, Severity
from aces_ci.scan.rules.spec import RULES, split_tool_list
from aces_ci.scan.rules.struct import RULES as STRUCT_RULES
from tests.scan.helpers import lines_of, make_skill, run_rule

STRICT = ScanConfig(profile="strict")
LENIENT = ScanConfig(profile="lenient")
DESCRIPTION = "Fill PDF forms. Use when the user uploads a PDF form."


def skill_md(*fields: str, body: str = "# Demo\n\nRun the steps.\n") -> str:
    """SKILL.md whose frontmatter lines are ``fields`` verbatim: field i sits on line i + 2."""
    return "---\n" + "".join(f"{field}\n" for field in fields) + "---\n" + body


def valid_fields(**overrides: str) -> list[str]:
    fields = {"name": "demo", "description": DESCRIPTION}
    fields.update(overrides)
    return [f"{key}: {value}" for key, value in fields.items()]


def hits(tmp_path, rule_id, *fields, config=LENIENT, dir_name="demo"):
    skill = make_skill(tmp_path, skill_md(*fields), name=dir_name)
    return run_rule(RULES, rule_id, skill, config)


def test_rule_ids_are_sequential_and_documented():
    assert [rule.id for rule in RULES] == [f"SPEC{i:03d}" for i in range(1, len(RULES) + 1)]
    for rule in RULES:
        assert rule.family == "SPEC"
        assert "PASS" in rule.doc and "FAIL" in rule.doc, rule.id
        assert rule.fix and rule.summary


@pytest.mark.parametrize("config", [LENIENT, STRICT])
def test_a_spec_conformant_skill_has_no_findings(tmp_path, config):
    fields = [
        "name: demo",
        f"description: {DESCRIPTION}",
        "license: Apache-2.0",
        "compatibility: Needs Python 3.11",
        "metadata:",
        '  version: "1.0"',
        "allowed-tools: Read Grep Bash(git:*)",
    ]
    skill = make_skill(tmp_path, skill_md(*fields))
    assert [hit for rule in RULES for hit in run_rule(RULES, rule.id, skill, config)] == []


def test_rules_are_silent_when_frontmatter_did_not_parse(tmp_path):
    skill = make_skill(tmp_path, skill_md("name: demo", "description: broken: yaml"))
    assert skill.frontmatter.data is None
    assert [hit for rule in RULES for hit in run_rule(RULES, rule.id, skill, STRICT)] == []


# SPEC001 name-missing


def test_missing_name_points_at_the_opening_fence(tmp_path):
    found = hits(tmp_path, "SPEC001", f"description: {DESCRIPTION}")
    assert [h.message for h in found] == ["frontmatter has no 'name' field"]
    assert lines_of(found) == [1]
    assert found[0].clause and "name" in found[0].clause


@pytest.mark.parametrize("value", ["", '""', "'  '", "~"])
def test_empty_name_points_at_the_name_line(tmp_path, value):
    found = hits(tmp_path, "SPEC001", f"description: {DESCRIPTION}", f"name: {value}")
    assert [h.message for h in found] == ["'name' is empty"]
    assert lines_of(found) == [3]


def test_present_name_passes_name_missing(tmp_path):
    assert hits(tmp_path, "SPEC001", *valid_fields()) == []


# SPEC002 name-format


@pytest.mark.parametrize("name", ["demo", "pdf-forms", "a", "x1-2y", "a" * 64])
def test_kebab_case_names_pass(tmp_path, name):
    assert hits(tmp_path, "SPEC002", *valid_fields(name=name), config=STRICT) == []


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("PDF-Forms", "uppercase letters ('D', 'F', 'P')"),
        ("pdf_forms", "characters other than letters, digits and '-' ('_')"),
        ("'pdf forms'", "characters other than letters, digits and '-' (' ')"),
        ("-pdf", "a leading or trailing hyphen"),
        ("pdf-", "a leading or trailing hyphen"),
        ("pdf--forms", "consecutive hyphens"),
    ],
)
def test_malformed_names_name_the_defect(tmp_path, name, expected):
    found = hits(tmp_path, "SPEC002", f"name: {name}", f"description: {DESCRIPTION}", config=LENIENT)
    assert len(found) == 1
    assert expected in found[0].message
    assert "may use only a-z, 0-9 and single hyphens" in found[0].message
    assert found[0].severity is None  # the rule's default: error
    assert lines_of(found) == [2]


def test_name_over_64_characters_reports_its_length(tmp_path):
    found = hits(tmp_path, "SPEC002", *valid_fields(name="a" * 65))
    assert [h.message for h in found] == [f"name '{'a' * 59}…' is 65 characters; the limit is 64"]


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("123", "an integer"),
        ("[a, b]", "a list"),
        ("2024-05-01", "a date"),
        ("true", "a boolean"),
        ("{a: b}", "a mapping"),
    ],
)
def test_non_string_name_is_an_error_naming_its_type(tmp_path, value, kind):
    found = hits(tmp_path, "SPEC002", f"name: {value}", f"description: {DESCRIPTION}")
    assert [h.message for h in found] == [f"'name' must be a string, found {kind}"]
    assert lines_of(found) == [2]


def test_unicode_name_is_a_warning_in_lenient_and_an_error_in_strict(tmp_path):
    lenient = hits(tmp_path, "SPEC002", *valid_fields(name="café"), dir_name="café")
    assert len(lenient) == 1
    assert lenient[0].severity is Severity.WARNING
    assert "non-ASCII characters ('é')" in lenient[0].message
    assert "skills-ref accepts" in lenient[0].message
    strict = hits(tmp_path, "SPEC002", *valid_fields(name="café"), dir_name="café", config=STRICT)
    assert len(strict) == 1
    assert strict[0].severity is None
    assert "non-ASCII characters ('é')" in strict[0].message


def test_unicode_name_with_other_defects_stays_an_error_in_lenient(tmp_path):
    found = hits(tmp_path, "SPEC002", *valid_fields(name="Café"))
    assert len(found) == 1
    assert found[0].severity is None
    assert "uppercase letters ('C')" in found[0].message


# SPEC003 name-directory-mismatch


def test_name_matching_the_directory_passes(tmp_path):
    assert hits(tmp_path, "SPEC003", *valid_fields(name="pdf-forms"), dir_name="pdf-forms", config=STRICT) == []


def test_name_directory_mismatch_is_an_error_in_strict_and_a_warning_in_lenient(tmp_path):
    strict = hits(tmp_path, "SPEC003", *valid_fields(name="pdf-forms"), dir_name="pdf", config=STRICT)
    assert [h.message for h in strict] == ["name 'pdf-forms' does not match its directory 'pdf'"]
    assert strict[0].severity is None
    assert lines_of(strict) == [2]
    lenient = hits(tmp_path, "SPEC003", *valid_fields(name="pdf-forms"), dir_name="pdf")
    assert lenient[0].severity is Severity.WARNING
    assert lenient[0].clause and "load anyway" in lenient[0].clause


def test_case_only_mismatch_says_so(tmp_path):
    found = hits(tmp_path, "SPEC003", *valid_fields(name="pdf-forms"), dir_name="PDF-Forms")
    assert "differ only in letter case" in found[0].message


def test_names_equal_after_unicode_normalisation_match(tmp_path):
    decomposed = unicodedata.normalize("NFD", "café")
    assert hits(tmp_path, "SPEC003", *valid_fields(name="café"), dir_name=decomposed) == []


def test_non_string_name_is_left_to_name_format(tmp_path):
    assert hits(tmp_path, "SPEC003", *valid_fields(name="[a]")) == []


# SPEC004 name-reserved-word


@pytest.mark.parametrize(("name", "word"), [("claude-helper", "claude"), ("my-anthropic-tools", "anthropic")])
def test_reserved_words_in_name_warn(tmp_path, name, word):
    found = hits(tmp_path, "SPEC004", *valid_fields(name=name), dir_name=name)
    assert [h.message for h in found] == [
        f"name '{name}' contains the reserved word '{word}': Anthropic's API rejects it"
    ]
    assert lines_of(found) == [2]


def test_name_without_reserved_words_passes(tmp_path):
    assert hits(tmp_path, "SPEC004", *valid_fields(name="code-review")) == []


# SPEC005 description-missing, SPEC006 description-type, SPEC007 description-too-long


def test_missing_description_points_at_the_opening_fence(tmp_path):
    found = hits(tmp_path, "SPEC005", "name: demo")
    assert [h.message for h in found] == ["frontmatter has no 'description' field"]
    assert lines_of(found) == [1]


def test_empty_description_points_at_its_line(tmp_path):
    found = hits(tmp_path, "SPEC005", "name: demo", "description:")
    assert [h.message for h in found] == ["'description' is empty"]
    assert lines_of(found) == [3]


@pytest.mark.parametrize(
    ("fields", "kind"),
    [
        (["description:", "  - fills forms", "  - extracts text"], "a list"),
        (["description: 42"], "an integer"),
        (["description: 2024-05-01"], "a date"),
        (["description:", "  what: fills forms"], "a mapping"),
    ],
)
def test_non_string_description_is_an_error(tmp_path, fields, kind):
    found = hits(tmp_path, "SPEC006", "name: demo", *fields)
    assert [h.message for h in found] == [f"'description' must be a string, found {kind}"]
    assert lines_of(found) == [3]


def test_string_description_passes_type_check(tmp_path):
    assert hits(tmp_path, "SPEC006", *valid_fields()) == []
    assert hits(tmp_path, "SPEC006", "name: demo") == []  # missing is SPEC005's job


def test_description_length_limit_is_1024(tmp_path):
    assert hits(tmp_path, "SPEC007", *valid_fields(description="x" * 1024)) == []
    found = hits(tmp_path, "SPEC007", *valid_fields(description="x" * 1300))
    assert [h.message for h in found] == ["description is 1,300 characters; the limit is 1,024"]
    assert lines_of(found) == [3]


# SPEC008 description-angle-brackets


def test_angle_brackets_in_description_warn_with_an_excerpt(tmp_path):
    found = hits(tmp_path, "SPEC008", *valid_fields(description="Convert <file> to PDF. Use when asked."))
    assert len(found) == 1
    assert found[0].message.startswith("description contains '<' (near 'Convert <file> to PDF.")
    assert found[0].evidence and "<file>" in found[0].evidence
    assert lines_of(found) == [3]


def test_description_without_angle_brackets_passes(tmp_path):
    assert hits(tmp_path, "SPEC008", *valid_fields()) == []


# SPEC009 unknown-key, SPEC010 harness-extension-key


def test_unknown_key_is_a_warning_in_lenient_and_an_error_in_strict(tmp_path):
    fields = [*valid_fields(), "version: 1.2"]
    lenient = hits(tmp_path, "SPEC009", *fields)
    assert [h.message for h in lenient] == ["unknown frontmatter key 'version'; custom fields belong under 'metadata'"]
    assert lenient[0].severity is None  # the rule's default: warning
    assert lines_of(lenient) == [4]
    strict = hits(tmp_path, "SPEC009", *fields, config=STRICT)
    assert strict[0].severity is Severity.ERROR


@pytest.mark.parametrize(("typo", "meant"), [("descripton", "description"), ("allowed_tools", "allowed-tools")])
def test_misspelled_key_suggests_the_right_one(tmp_path, typo, meant):
    found = hits(tmp_path, "SPEC009", "name: demo", f"description: {DESCRIPTION}", f"{typo}: x")
    assert [h.message for h in found] == [f"unknown frontmatter key '{typo}' (did you mean '{meant}'?)"]


def test_non_string_top_level_key_is_unknown(tmp_path):
    found = hits(tmp_path, "SPEC009", *valid_fields(), "123: x")
    assert [h.message for h in found] == ["unknown frontmatter key '123'; custom fields belong under 'metadata'"]
    assert lines_of(found) == [4]


def test_extension_keys_are_not_unknown(tmp_path):
    assert hits(tmp_path, "SPEC009", *valid_fields(), "model: sonnet", "context: fork", config=STRICT) == []


def test_extension_key_is_a_note_naming_the_harness_in_lenient(tmp_path):
    found = hits(tmp_path, "SPEC010", *valid_fields(), "disable-model-invocation: true")
    assert [h.message for h in found] == [
        "'disable-model-invocation' is a Claude Code extension: Claude Code reads it, other harnesses ignore it"
    ]
    assert found[0].severity is None  # the rule's default: note
    assert lines_of(found) == [4]
    assert found[0].clause and "Claude Code frontmatter reference" in found[0].clause


def test_extension_key_is_an_error_in_strict(tmp_path):
    found = hits(tmp_path, "SPEC010", *valid_fields(), "user-invocable: false", config=STRICT)
    assert [h.message for h in found] == [
        "'user-invocable' is a Claude Code extension, not a field of the agentskills.io specification"
    ]
    assert found[0].severity is Severity.ERROR


def test_spec_keys_are_not_extensions(tmp_path):
    assert hits(tmp_path, "SPEC010", *valid_fields(), "license: MIT", config=STRICT) == []


# SPEC011 compatibility-invalid


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (["compatibility:", "  python: '3.11'"], "'compatibility' must be a string, found a mapping"),
        (["compatibility: ''"], "'compatibility' is empty: state the requirements or remove the key"),
        (["compatibility: " + "x" * 501], "compatibility is 501 characters; the limit is 500"),
    ],
)
def test_invalid_compatibility_is_an_error(tmp_path, fields, message):
    found = hits(tmp_path, "SPEC011", *valid_fields(), *fields)
    assert [h.message for h in found] == [message]
    assert lines_of(found) == [4]


def test_short_compatibility_string_passes(tmp_path):
    assert hits(tmp_path, "SPEC011", *valid_fields(compatibility="x" * 500)) == []


# SPEC012 metadata-invalid


def test_string_metadata_passes(tmp_path):
    fields = [*valid_fields(), "metadata:", '  version: "1.0"', "  author: Jane <jane@example.com>"]
    assert hits(tmp_path, "SPEC012", *fields, config=STRICT) == []


def test_null_metadata_is_a_warning_in_lenient_and_an_error_in_strict(tmp_path):
    lenient = hits(tmp_path, "SPEC012", *valid_fields(), "metadata:")
    assert [h.message for h in lenient] == ["'metadata' is empty (null): add entries or remove the key"]
    assert lenient[0].severity is Severity.WARNING
    assert lines_of(lenient) == [4]
    strict = hits(tmp_path, "SPEC012", *valid_fields(), "metadata:", config=STRICT)
    assert strict[0].severity is None


def test_metadata_that_is_not_a_mapping_is_an_error(tmp_path):
    found = hits(tmp_path, "SPEC012", *valid_fields(), "metadata: [a, b]")
    assert [h.message for h in found] == ["'metadata' must be a mapping of strings to strings, found a list"]
    assert found[0].severity is None


def test_metadata_values_point_at_their_own_lines(tmp_path):
    fields = [
        *valid_fields(),
        "metadata:",
        '  author: "Jane"',
        "  # a comment line",
        "  version: 1.0",
        "  tags: [pdf, forms]",
        "  owner:",
        "    team: docs",
        "license: MIT",
    ]
    found = hits(tmp_path, "SPEC012", *fields)
    assert [(h.location.line, h.severity, h.message) for h in found] == [
        (
            7,
            Severity.WARNING,
            "metadata 'version' is a number (1.0), not a string: quote it (version: \"1.0\"); "
            "skills-ref converts it with str(), strict harnesses reject it",
        ),
        (8, None, "metadata 'tags' is a list; values must be strings (nested values break strict harnesses)"),
        (9, None, "metadata 'owner' is a mapping; values must be strings (nested values break strict harnesses)"),
    ]
    strict = hits(tmp_path, "SPEC012", *fields, config=STRICT)
    assert [h.severity for h in strict] == [None, None, None]


def test_non_string_metadata_keys_and_null_values(tmp_path):
    found = hits(tmp_path, "SPEC012", *valid_fields(), "metadata:", "  1: one", "  empty:")
    assert [(h.location.line, h.message) for h in found] == [
        (5, "metadata key '1' is an integer; keys must be strings (quote it)"),
        (6, "metadata 'empty' has no value (null): write a string or remove the entry"),
    ]
    assert {h.severity for h in found} == {Severity.WARNING}


def test_flow_metadata_falls_back_to_the_metadata_line(tmp_path):
    found = hits(tmp_path, "SPEC012", *valid_fields(), "metadata: {version: 2}")
    assert lines_of(found) == [4]


# SPEC013 allowed-tools-invalid


def test_well_formed_tool_list_passes(tmp_path):
    value = "Read Grep Bash(git:*) Bash(git diff *) mcp__github__create_issue WebFetch(domain:example.com)"
    assert hits(tmp_path, "SPEC013", *valid_fields(), f"allowed-tools: {value}", config=STRICT) == []


def test_comma_separated_tools_are_a_note_naming_claude_code_in_lenient_and_an_error_in_strict(tmp_path):
    fields = [*valid_fields(), "allowed-tools: Read, Grep, Bash(git add, commit)"]
    lenient = hits(tmp_path, "SPEC013", *fields)
    assert [h.message for h in lenient] == [
        "allowed-tools separates tools with commas: Claude Code reads it, the spec and other hosts want one "
        "space-separated string (write 'allowed-tools: Read Grep Bash(git add, commit)')"
    ]
    assert lenient[0].evidence == "allowed-tools: Read Grep Bash(git add, commit)"
    assert lenient[0].severity is Severity.NOTE
    assert lenient[0].clause and "Claude Code" in lenient[0].clause
    assert lines_of(lenient) == [4]
    strict = hits(tmp_path, "SPEC013", *fields, config=STRICT)
    assert [h.message for h in strict] == [
        "allowed-tools separates tools with commas; the spec wants one space-separated string "
        "(write 'allowed-tools: Read Grep Bash(git add, commit)')"
    ]
    assert strict[0].severity is Severity.ERROR


def test_a_yaml_list_of_tools_is_a_note_in_lenient_and_an_error_in_strict(tmp_path):
    fields = [*valid_fields(), "allowed-tools:", "  - Read", "  - Bash(git:*)"]
    lenient = hits(tmp_path, "SPEC013", *fields)
    assert [h.message for h in lenient] == [
        "allowed-tools is a YAML list: Claude Code reads it, the spec and other hosts want one space-separated "
        "string (write 'allowed-tools: Read Bash(git:*)')"
    ]
    assert lenient[0].severity is Severity.NOTE
    assert lines_of(lenient) == [4]
    strict = hits(tmp_path, "SPEC013", *fields, config=STRICT)
    assert [h.message for h in strict] == [
        "allowed-tools is a YAML list; the spec wants one space-separated string "
        "(write 'allowed-tools: Read Bash(git:*)')"
    ]
    assert strict[0].severity is Severity.ERROR


def test_tool_list_with_a_non_string_item_is_an_error(tmp_path):
    found = hits(tmp_path, "SPEC013", *valid_fields(), "allowed-tools: [Read, 3]")
    assert [h.message for h in found] == ["allowed-tools list holds an integer where a tool name belongs"]
    assert found[0].severity is Severity.ERROR


@pytest.mark.parametrize(
    ("value", "problem"), [("Read Bash(git:*", "a '(' is never closed"), ("Read git:*)", "a ')' has no matching '('")]
)
def test_unbalanced_parentheses_are_an_error(tmp_path, value, problem):
    found = hits(tmp_path, "SPEC013", *valid_fields(), f"allowed-tools: {value}")
    assert [h.message for h in found] == [f"allowed-tools has unbalanced parentheses: {problem} in '{value}'"]
    assert found[0].severity is Severity.ERROR


def test_malformed_tool_token_warns(tmp_path):
    found = hits(tmp_path, "SPEC013", *valid_fields(), "allowed-tools: Read 'Grep'")
    assert [h.message for h in found] == [
        "allowed-tools entry ''Grep'' is not a tool name such as Read, Bash(git:*) or mcp__server__tool"
    ]


def test_allowed_tools_of_another_type_is_an_error(tmp_path):
    found = hits(tmp_path, "SPEC013", *valid_fields(), "allowed-tools: 7")
    assert [h.message for h in found] == ["'allowed-tools' must be a space-separated string, found an integer"]
    assert found[0].severity is Severity.ERROR


def test_empty_allowed_tools_is_a_note(tmp_path):
    found = hits(tmp_path, "SPEC013", *valid_fields(), "allowed-tools:")
    assert found[0].severity is Severity.NOTE


def test_split_tool_list_keeps_parenthesised_spaces_together():
    assert split_tool_list("Read  Bash(git diff *)\tmcp__a__b") == (
        ["Read", "Bash(git diff *)", "mcp__a__b"],
        False,
        None,
    )
    assert split_tool_list("Read,Grep") == (["Read", "Grep"], True, None)
    assert split_tool_list("") == ([], False, None)


# SPEC014 license-invalid


def test_license_string_passes(tmp_path):
    assert hits(tmp_path, "SPEC014", *valid_fields(license="Apache-2.0"), config=STRICT) == []


def test_license_mapping_is_a_warning_in_lenient_and_an_error_in_strict(tmp_path):
    fields = [*valid_fields(), "license:", "  name: MIT"]
    lenient = hits(tmp_path, "SPEC014", *fields)
    assert [h.message for h in lenient] == ["'license' must be a string, found a mapping"]
    assert lenient[0].severity is None  # the rule's default: warning
    assert lines_of(lenient) == [4]
    assert hits(tmp_path, "SPEC014", *fields, config=STRICT)[0].severity is Severity.ERROR


def test_empty_license_warns(tmp_path):
    found = hits(tmp_path, "SPEC014", *valid_fields(), "license: ''")
    assert [h.message for h in found] == ["'license' is empty: name the license or remove the key"]


ODD_VALUES = [
    "~",
    "42",
    "3.5",
    "true",
    "2024-05-01",
    "2024-05-01T10:00:00",
    "[a, 1, {b: c}]",
    "{a: [1, 2], 3: null}",
    "!!binary aGVsbG8=",
    "''",
    "'<a> (b) ,c'",
    "[[[]]]",
]


@pytest.mark.parametrize(
    "key", ["name", "description", "license", "compatibility", "metadata", "allowed-tools", "model"]
)
@pytest.mark.parametrize("value", ODD_VALUES)
def test_no_rule_raises_on_odd_values_and_every_hit_has_a_line(tmp_path, key, value):
    base = {"name": "demo", "description": DESCRIPTION}
    base[key] = value
    skill = make_skill(tmp_path, skill_md(*(f"{k}: {v}" for k, v in base.items())))
    assert skill.frontmatter.data is not None
    for config in (LENIENT, STRICT):
        for rule in [*RULES, *STRUCT_RULES]:
            for hit in run_rule([rule], rule.id, skill, config):
                assert isinstance(hit.location.line, int) and hit.location.line >= 1, (rule.id, hit)
                assert hit.message and hit.clause
