"""The 2026 specification's clarifications and the hosts' additions, in both profiles.

``allowed-tools`` is a space-separated string; ``metadata`` maps strings to strings; ``name`` may
contain digits; the optional directories are not an exhaustive list. Names are judged NFKC-normalised
as the reference validator ``skills-ref`` judges them. Claude Code's documented frontmatter fields
and Codex's ``agents/openai.yaml`` are known.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from skills_ref.validator import validate

from aces_ci.scan import ScanConfig, Severity, scan_repo
from aces_ci.scan.rules import default_registry
from aces_ci.scan.rules.spec import RULES
from tests.scan.helpers import lines_of, make_skill, run_rule

STRICT = ScanConfig(profile="strict")
LENIENT = ScanConfig(profile="lenient")
BOTH = [pytest.param(LENIENT, id="lenient"), pytest.param(STRICT, id="strict")]
DESCRIPTION = "Fill PDF forms. Use when the user uploads a PDF form."


def skill_md(*fields: str) -> str:
    return "---\n" + "".join(f"{field}\n" for field in fields) + "---\n# Demo\n\nRun the steps.\n"


def spec_hits(tmp_path: Path, rule_id: str, *fields: str, config: ScanConfig, dir_name: str = "demo", files=None):
    skill = make_skill(tmp_path, skill_md(*fields), files=files, name=dir_name)
    return run_rule(RULES, rule_id, skill, config)


# allowed-tools: a space-separated string


@pytest.mark.parametrize("config", BOTH)
def test_a_space_separated_tool_string_is_the_spec_in_both_profiles(tmp_path, config):
    fields = ["name: demo", f"description: {DESCRIPTION}", "allowed-tools: Read Grep Bash(git diff *)"]
    assert spec_hits(tmp_path, "SPEC013", *fields, config=config) == []


@pytest.mark.parametrize(
    ("config", "severity"),
    [pytest.param(LENIENT, Severity.NOTE, id="lenient"), pytest.param(STRICT, Severity.ERROR, id="strict")],
)
@pytest.mark.parametrize("written", [["allowed-tools: Read, Grep"], ["allowed-tools: [Read, Grep]"]])
def test_commas_and_lists_are_a_host_format_in_lenient_and_an_error_in_strict(tmp_path, config, severity, written):
    found = spec_hits(tmp_path, "SPEC013", "name: demo", f"description: {DESCRIPTION}", *written, config=config)
    assert [(h.severity, h.evidence) for h in found] == [(severity, "allowed-tools: Read Grep")]
    assert ("Claude Code reads it" in found[0].message) is (config is LENIENT)


# metadata: strings to strings


@pytest.mark.parametrize(
    ("config", "severity"),
    [pytest.param(LENIENT, Severity.WARNING, id="lenient"), pytest.param(STRICT, None, id="strict")],
)
def test_an_unquoted_version_is_a_float_and_the_fix_is_to_quote_it(tmp_path, config, severity):
    fields = ["name: demo", f"description: {DESCRIPTION}", "metadata:", "  version: 1.0", "  build: 1.10  # minor"]
    found = spec_hits(tmp_path, "SPEC012", *fields, config=config)
    assert [(h.location.line, h.severity) for h in found] == [(5, severity), (6, severity)]
    assert 'quote it (version: "1.0")' in found[0].message
    assert 'quote it (build: "1.10"); YAML reads 1.10 as 1.1' in found[1].message


@pytest.mark.parametrize("config", BOTH)
def test_quoted_metadata_strings_pass(tmp_path, config):
    fields = ["name: demo", f"description: {DESCRIPTION}", "metadata:", '  version: "1.0"', "  author: Jane"]
    assert spec_hits(tmp_path, "SPEC012", *fields, config=config) == []


# name: digits allowed


@pytest.mark.parametrize("config", BOTH)
@pytest.mark.parametrize("name", ["ec2", "3d-print", "v2-api", "2026-report", "a1b2"])
def test_names_with_digits_are_valid(tmp_path, config, name):
    fields = [f"name: '{name}'", f"description: {DESCRIPTION}"]
    assert spec_hits(tmp_path, "SPEC002", *fields, config=config, dir_name=name) == []
    assert spec_hits(tmp_path, "SPEC003", *fields, config=config, dir_name=name) == []
    assert validate(tmp_path / "skills" / name) == []


# name: NFKC normalisation, as skills-ref does it

COMPOSED = "café"
DECOMPOSED = unicodedata.normalize("NFD", COMPOSED)


@pytest.mark.parametrize(
    ("name", "directory"), [(DECOMPOSED, DECOMPOSED), (DECOMPOSED, COMPOSED), (COMPOSED, DECOMPOSED)]
)
def test_a_decomposed_name_is_judged_as_the_composed_one(tmp_path, name, directory):
    assert DECOMPOSED != COMPOSED and len(DECOMPOSED) == 5
    fields = [f"name: {name}", f"description: {DESCRIPTION}"]
    skill_dir = tmp_path / "skills" / directory
    lenient = spec_hits(tmp_path, "SPEC002", *fields, config=LENIENT, dir_name=directory)
    assert validate(skill_dir) == [], "skills-ref: valid"
    assert [h.severity for h in lenient] == [Severity.WARNING], "as the composed name: skills-ref accepts it"
    assert "non-ASCII characters ('é')" in lenient[0].message and "skills-ref accepts" in lenient[0].message
    strict = spec_hits(tmp_path, "SPEC002", *fields, config=STRICT, dir_name=directory)
    assert [h.severity for h in strict] == [None], "the spec text says a-z: an error"
    for config in (LENIENT, STRICT):
        assert spec_hits(tmp_path, "SPEC003", *fields, config=config, dir_name=directory) == []


@pytest.mark.parametrize(
    ("config", "severity"),
    [pytest.param(LENIENT, Severity.WARNING, id="lenient"), pytest.param(STRICT, None, id="strict")],
)
def test_a_name_only_normalisation_makes_valid_says_what_it_normalises_to(tmp_path, config, severity):
    fullwidth = "ｐｄｆ-ｆｏｒｍｓ"
    found = spec_hits(tmp_path, "SPEC002", f"name: {fullwidth}", f"description: {DESCRIPTION}", config=config)
    assert [h.severity for h in found] == [severity]
    assert "makes it 'pdf-forms', as skills-ref reads it" in found[0].message
    assert lines_of(found) == [2]


def test_a_name_is_measured_after_normalisation(tmp_path):
    name = unicodedata.normalize("NFD", "é" * 40)  # 80 code points written, 40 once composed
    found = spec_hits(tmp_path, "SPEC002", f"name: {name}", f"description: {DESCRIPTION}", config=LENIENT)
    assert not any("characters; the limit" in h.message for h in found)


# optional directories are not an exhaustive list


@pytest.mark.parametrize("config", BOTH)
def test_unknown_folders_in_a_skill_raise_no_finding(tmp_path, config):
    body = skill_md("name: demo", f"description: {DESCRIPTION}")
    plain = make_skill(tmp_path / "plain", body)
    extra = make_skill(
        tmp_path / "extra",
        body,
        files={
            "examples/input.csv": "a,b\n1,2\n",
            "data/lookup.json": "{}\n",
            "templates-v2/letter.txt": "Dear {name}\n",
            "docs/notes.md": "# Notes\n\nBackground.\n",
            "agents/claude.yaml": "model: sonnet\n",
        },
    )
    registry = default_registry()

    def findings(root: Path) -> list[tuple[str, str]]:
        result = scan_repo(root, config, registry)
        return [(f.rule_id, f.message) for report in result.skills for f in report.findings]

    assert plain.dir_name == extra.dir_name
    assert findings(tmp_path / "extra") == findings(tmp_path / "plain")


# Claude Code's documented frontmatter fields


CLAUDE_CODE_FIELDS = [
    "when_to_use: When the user uploads a form.",
    "argument-hint: '[file]'",
    "arguments: [file]",
    "disable-model-invocation: true",
    "user-invocable: false",
    "allowed-tools: Read",
    "disallowed-tools: Write",
    "model: sonnet",
    "effort: high",
    "context: fork",
    "agent: Explore",
    "background: false",
    "hooks: {}",
    "paths: ['*.pdf']",
    "shell: bash",
]


def test_claude_code_fields_are_known_notes_in_lenient_and_errors_in_strict(tmp_path):
    fields = ["name: demo", f"description: {DESCRIPTION}", *CLAUDE_CODE_FIELDS]
    assert spec_hits(tmp_path, "SPEC009", *fields, config=LENIENT) == []
    lenient = spec_hits(tmp_path, "SPEC010", *fields, config=LENIENT)
    assert len(lenient) == len(CLAUDE_CODE_FIELDS) - 1  # allowed-tools is a spec field
    assert {h.severity for h in lenient} == {None} and all("Claude Code reads it" in h.message for h in lenient)
    strict = spec_hits(tmp_path, "SPEC010", *fields, config=STRICT)
    assert {h.severity for h in strict} == {Severity.ERROR} and len(strict) == len(lenient)


# Codex: agents/openai.yaml

VALID_OPENAI_YAML = """\
interface:
  display_name: "PDF Forms"
  short_description: "Fill PDF forms from the user's data"
  icon_small: "./assets/icon.png"
  brand_color: "#3B82F6"
  default_prompt: "Use $demo to fill this form."
dependencies:
  tools:
    - type: "mcp"
      value: "github"
      transport: "streamable_http"
      url: "https://example.com/mcp"
policy:
  allow_implicit_invocation: false
"""


def codex_hits(tmp_path: Path, yaml_text: str | bytes, config: ScanConfig, files: dict[str, str] | None = None):
    fields = ["name: demo", f"description: {DESCRIPTION}"]
    written = {"agents/openai.yaml": yaml_text, **(files or {})}
    return spec_hits(tmp_path, "SPEC015", *fields, config=config, files=written)


@pytest.mark.parametrize("config", BOTH)
def test_a_valid_codex_metadata_file_passes(tmp_path, config):
    assert codex_hits(tmp_path, VALID_OPENAI_YAML, config, {"assets/icon.png": "png"}) == []


def test_no_codex_metadata_file_is_no_finding(tmp_path):
    skill = make_skill(tmp_path, skill_md("name: demo", f"description: {DESCRIPTION}"))
    assert run_rule(RULES, "SPEC015", skill, LENIENT) == []


@pytest.mark.parametrize("config", BOTH)
@pytest.mark.parametrize(
    ("yaml_text", "line", "message"),
    [
        (
            'interface:\n  brand_color: blue\n  icon_small: "../logo.png"\n',
            2,
            "interface.brand_color 'blue' is not #RRGGBB: Codex ignores it",
        ),
        (
            "interface:\n  display_name: 42\n",
            2,
            "interface.display_name is a number, not a string: Codex cannot read the file and ignores all of it",
        ),
        (
            'policy:\n  allow_implicit_invocation: "no"\n',
            2,
            "policy.allow_implicit_invocation is a string, not true or false: "
            "Codex cannot read the file and ignores all of it",
        ),
        (
            "dependencies:\n  tools:\n    - type: mcp\n      description: no value\n",
            3,
            "dependencies.tools[0] has no 'value': Codex drops this dependency",
        ),
        (
            "interface: [a, b]\n",
            1,
            "interface is a list, not a mapping: Codex cannot read the file and ignores all of it",
        ),
        (
            f"interface:\n  display_name: {'x' * 65}\n",
            2,
            "interface.display_name is 65 characters; Codex ignores it past 64",
        ),
        (
            'interface:\n  icon_large: "./assets/missing.svg"\n',
            2,
            "interface.icon_large './assets/missing.svg' does not exist in the skill: Codex shows no icon",
        ),
    ],
)
def test_what_codex_ignores_is_a_warning_at_its_line(tmp_path, config, yaml_text, line, message):
    found = codex_hits(tmp_path, yaml_text, config)
    assert message in [h.message for h in found]
    hit = next(h for h in found if h.message == message)
    assert (hit.location.path, hit.location.line, hit.severity) == ("skills/demo/agents/openai.yaml", line, None)


def test_an_icon_outside_assets_is_ignored(tmp_path):
    found = codex_hits(tmp_path, 'interface:\n  icon_small: "../logo.png"\n', LENIENT)
    assert [h.message for h in found] == [
        "interface.icon_small '../logo.png' must be a relative path under assets/: Codex shows no icon"
    ]


def test_broken_yaml_is_a_warning_that_codex_ignores_the_file(tmp_path):
    found = codex_hits(tmp_path, "interface:\n  display_name: [unclosed\n", LENIENT)
    assert len(found) == 1 and found[0].severity is None
    assert found[0].message.startswith("YAML syntax error") and "ignores all of it" in found[0].message


def test_a_key_codex_does_not_read_is_a_note(tmp_path):
    found = codex_hits(tmp_path, 'interface:\n  displayname: "PDF"\npolcy: {}\n', LENIENT)
    assert [(h.location.line, h.severity, h.message) for h in found] == [
        (3, Severity.NOTE, "polcy is not a field Codex reads; it is ignored"),
        (2, Severity.NOTE, "interface.displayname is not a field Codex reads; it is ignored"),
    ]


def test_a_binary_codex_metadata_file_is_a_warning(tmp_path):
    found = codex_hits(tmp_path, b"\x00\x01\x02interface", LENIENT)
    assert [h.message for h in found] == ["agents/openai.yaml is not readable text: Codex ignores it"]
