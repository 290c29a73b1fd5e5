"""SCRIPT rules: bundled scripts parse, start the way SKILL.md starts them, and are mentioned."""

from __future__ import annotations

import os

import pytest

from aces_ci.scan import Severity
from aces_ci.scan.rules.script import RULES
from tests.scan.helpers import front, lines_of, make_skill, run_rule

HEADER = front(name="demo", description="Fill PDF forms. Use when the user uploads a PDF form.")

posix_only = pytest.mark.skipif(os.name == "nt", reason="file modes carry no executable bit on Windows")


def skill_with(tmp_path, files, body="Run `python scripts/fill.py`.\n", modes=None):
    skill_dir = tmp_path / "skills" / "demo"
    skill = make_skill(tmp_path, HEADER + body, files=files)
    if modes:
        for rel, mode in modes.items():
            os.chmod(skill_dir / rel, mode)
        skill = make_skill(tmp_path, HEADER + body)
    return skill


def test_rule_ids_are_sequential_and_documented():
    assert [rule.id for rule in RULES] == [f"SCRIPT{i:03d}" for i in range(1, len(RULES) + 1)]
    for rule in RULES:
        assert "PASS" in rule.doc and "FAIL" in rule.doc, rule.id


@posix_only
def test_healthy_scripts_have_no_findings(tmp_path):
    files = {
        "scripts/fill.py": "#!/usr/bin/env python3\nimport helpers\nprint('ok')\n",
        "scripts/helpers.py": "VALUE = 1\n",
        "scripts/setup.sh": "#!/usr/bin/env bash\nset -eu\nif [ -f x ]; then echo ok; fi\n",
        "scripts/README.md": "Helpers for the skill.\n",
        "scripts/requirements.txt": "pypdf\n",
    }
    body = "Run `python scripts/fill.py`, then `./scripts/setup.sh`.\n"
    skill = skill_with(tmp_path, files, body, modes={"scripts/fill.py": 0o755, "scripts/setup.sh": 0o755})
    assert [hit for rule in RULES for hit in run_rule(RULES, rule.id, skill)] == []


# SCRIPT001 python-syntax


def test_python_syntax_error_points_at_its_line(tmp_path):
    source = "import sys\n\ndef main(:\n    pass\n"
    found = run_rule(RULES, "SCRIPT001", skill_with(tmp_path, {"scripts/fill.py": source}))
    assert len(found) == 1
    assert found[0].message.startswith("Python syntax error: ")
    assert found[0].location.path == "skills/demo/scripts/fill.py"
    assert lines_of(found) == [3]
    assert found[0].evidence == "def main(:"


def test_pathological_nesting_is_reported_not_raised(tmp_path):
    files = {
        "scripts/deep.py": "x = " + "-" * 200_000 + "1\n",
        "scripts/nest.py": "x = " + "(" * 500 + ")" * 500 + "\n",
    }
    found = run_rule(RULES, "SCRIPT001", skill_with(tmp_path, files))
    assert sorted(h.location.path.rsplit("/", 1)[1] for h in found) == ["deep.py", "nest.py"]
    assert all(h.message.startswith(("Python cannot compile", "Python syntax error")) for h in found)


def test_python_2_print_statement_is_an_error(tmp_path):
    found = run_rule(RULES, "SCRIPT001", skill_with(tmp_path, {"scripts/old.py": 'x = 1\nprint "hi"\n'}))
    assert lines_of(found) == [2]
    assert "Missing parentheses" in found[0].message


def test_message_leaves_line_numbers_to_the_location(tmp_path):
    source = "x = 1\ny = '''unterminated\n\n"
    found = run_rule(RULES, "SCRIPT001", skill_with(tmp_path, {"scripts/fill.py": source}))
    assert [h.message for h in found] == ["Python syntax error: unterminated triple-quoted string literal"]
    assert lines_of(found) == [2]


def test_python_is_compiled_never_run(tmp_path):
    marker = tmp_path / "ran"
    source = f"open({str(marker)!r}, 'w').write('x')\nraise SystemExit(3)\n"
    assert run_rule(RULES, "SCRIPT001", skill_with(tmp_path, {"scripts/fill.py": source})) == []
    assert not marker.exists()


def test_invalid_escape_warning_does_not_escape_the_check(tmp_path):
    source = 'import re\nPATTERN = re.compile("\\d+")\n'
    assert run_rule(RULES, "SCRIPT001", skill_with(tmp_path, {"scripts/fill.py": source})) == []


def test_extensionless_script_with_python_shebang_is_compiled(tmp_path):
    found = run_rule(RULES, "SCRIPT001", skill_with(tmp_path, {"scripts/tool": "#!/usr/bin/env python3\nif x\n"}))
    assert lines_of(found) == [2]


def test_binary_and_non_code_files_in_scripts_are_skipped(tmp_path):
    files = {"scripts/data.bin": b"\x00\x01\x02", "scripts/notes.txt": "def main(:\n"}
    assert run_rule(RULES, "SCRIPT001", skill_with(tmp_path, files)) == []


# SCRIPT002 shell-syntax


def test_shell_syntax_error_points_at_the_line_bash_names(tmp_path):
    source = "#!/bin/bash\necho start\nif [ -f x ]; then\n  echo yes\nfi fi\n"
    found = run_rule(RULES, "SCRIPT002", skill_with(tmp_path, {"scripts/setup.sh": source}))
    assert len(found) == 1
    assert found[0].message == "bash -n: syntax error near unexpected token `fi'"
    assert found[0].location.path == "skills/demo/scripts/setup.sh"
    assert lines_of(found) == [5]


def test_unclosed_block_is_reported_inside_the_file(tmp_path):
    source = "if true; then\n  echo ok\n"
    found = run_rule(RULES, "SCRIPT002", skill_with(tmp_path, {"scripts/setup.sh": source}))
    assert "unexpected end of file" in found[0].message
    assert lines_of(found) == [2]


def test_shell_is_parsed_never_run(tmp_path):
    marker = tmp_path / "ran"
    source = f"touch {marker}\nexit 3\n"
    assert run_rule(RULES, "SCRIPT002", skill_with(tmp_path, {"scripts/setup.sh": source})) == []
    assert not marker.exists()


def test_missing_bash_gives_one_note(tmp_path, monkeypatch):
    files = {"scripts/a.sh": "echo a\n", "scripts/b.sh": "if\n"}
    skill = skill_with(tmp_path, files)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    found = run_rule(RULES, "SCRIPT002", skill)
    assert [(h.message, h.severity) for h in found] == [
        ("bash is not installed here: shell syntax not checked", Severity.NOTE)
    ]


def test_zsh_scripts_are_not_fed_to_bash(tmp_path):
    source = "#!/usr/bin/env zsh\nprint -P '%F{red}x%f' ${(j:,:)array}\n"
    assert run_rule(RULES, "SCRIPT002", skill_with(tmp_path, {"scripts/run.zsh": source})) == []


# SCRIPT003 shebang-not-executable


@posix_only
def test_shebang_without_exec_bit_is_a_warning_when_run_directly(tmp_path):
    files = {"scripts/setup.sh": "#!/bin/sh\necho ok\n"}
    skill = skill_with(tmp_path, files, "Run `./scripts/setup.sh`.\n", modes={"scripts/setup.sh": 0o644})
    found = run_rule(RULES, "SCRIPT003", skill)
    assert [h.message for h in found] == [
        "script has a #! line but is not executable: SKILL.md runs it directly, which fails with 'permission denied'"
    ]
    assert found[0].severity is None
    assert found[0].location.path == "skills/demo/scripts/setup.sh"
    assert lines_of(found) == [1]


@posix_only
def test_shebang_without_exec_bit_is_a_note_when_run_through_an_interpreter(tmp_path):
    files = {"scripts/setup.sh": "#!/bin/sh\necho ok\n"}
    skill = skill_with(tmp_path, files, "Run `sh scripts/setup.sh`.\n", modes={"scripts/setup.sh": 0o644})
    found = run_rule(RULES, "SCRIPT003", skill)
    assert [(h.message, h.severity) for h in found] == [("script has a #! line but is not executable", Severity.NOTE)]


# SCRIPT004 executable-without-shebang


@posix_only
def test_executable_without_shebang_run_directly_is_a_warning(tmp_path):
    body = "Run `./scripts/fill.py input.pdf`.\n"
    skill = skill_with(tmp_path, {"scripts/fill.py": "import sys\n"}, body, modes={"scripts/fill.py": 0o755})
    found = run_rule(RULES, "SCRIPT004", skill)
    assert [h.message for h in found] == [
        "script is executable but has no #! line: run directly, it is handed to /bin/sh (SKILL.md runs it directly)"
    ]
    assert found[0].severity is None
    assert found[0].location.path == "skills/demo/scripts/fill.py"
    assert lines_of(found) == [1]


@posix_only
def test_executable_without_shebang_run_by_an_interpreter_is_a_note_and_helpers_are_skipped(tmp_path):
    files = {"scripts/fill.py": "import sys\n", "scripts/__init__.py": ""}
    skill = skill_with(tmp_path, files, modes={"scripts/fill.py": 0o755, "scripts/__init__.py": 0o755})
    found = run_rule(RULES, "SCRIPT004", skill)
    assert [(h.location.path, h.severity) for h in found] == [("skills/demo/scripts/fill.py", Severity.NOTE)]


@posix_only
def test_byte_order_mark_before_shebang_is_reported(tmp_path):
    files = {"scripts/fill.py": b"\xef\xbb\xbf#!/usr/bin/env python3\nprint(1)\n"}
    skill = skill_with(tmp_path, files, modes={"scripts/fill.py": 0o755})
    found = run_rule(RULES, "SCRIPT004", skill)
    assert [h.message for h in found] == [
        "script is executable but a byte-order mark hides its #! line from the system"
    ]


@posix_only
def test_non_executable_script_without_shebang_passes(tmp_path):
    skill = skill_with(tmp_path, {"scripts/fill.py": "import sys\n"}, modes={"scripts/fill.py": 0o644})
    assert run_rule(RULES, "SCRIPT004", skill) == []


# SCRIPT005 unreferenced-script


def test_script_nobody_mentions_is_a_note(tmp_path):
    files = {"scripts/fill.py": "print(1)\n", "scripts/old_fill.py": "print(2)\n"}
    found = run_rule(RULES, "SCRIPT005", skill_with(tmp_path, files))
    assert [h.location.path for h in found] == ["skills/demo/scripts/old_fill.py"]
    assert found[0].message.startswith("script is never mentioned in SKILL.md")
    rule = next(r for r in RULES if r.id == "SCRIPT005")
    assert rule.severity is Severity.NOTE


def test_scripts_named_by_references_or_other_scripts_or_helpers_pass(tmp_path):
    files = {
        "scripts/fill.py": "from .formats import parse\n",
        "scripts/formats.py": "def parse(): ...\n",
        "scripts/_common.sh": "x=1\n",
        "scripts/report.sh": "echo report\n",
        "scripts/aggregate.py": "print(1)\n",
        "scripts/check_fields.py": "print(2)\n",
        "references/usage.md": "Afterwards run `report.sh`, then `scripts/check_fields <pdf>`.\n",
    }
    body = "Run `python scripts/fill.py`, then `python -m scripts.aggregate`.\n"
    assert run_rule(RULES, "SCRIPT005", skill_with(tmp_path, files, body)) == []


def test_a_script_naming_only_itself_is_still_unreferenced(tmp_path):
    files = {"scripts/fill.py": "print(1)\n", "scripts/cleanup.py": "def cleanup():\n    pass\n\ncleanup()\n"}
    found = run_rule(RULES, "SCRIPT005", skill_with(tmp_path, files))
    assert [h.location.path for h in found] == ["skills/demo/scripts/cleanup.py"]
