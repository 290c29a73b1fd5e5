"""Bring your own tasks: a command prints cases as JSON lines; bad output, failures and hangs are named."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from aces_ci.errors import EXIT_INPUT_ERROR, EXIT_RUNTIME_ERROR, InfraError, InputError
from aces_ci.evals import NoCases, TaskCommand, load_dataset
from tests.evals.helpers import write_skill
from tests.redact.samples import one_of_each

ANTHROPIC_KEY = next(s.secret for s in one_of_each() if s.kind == "anthropic-api-key")

EMIT = """
import json, os, sys
cases = [
    {"id": "t1", "prompt": "Refund window?", "expected_output": "45"},
    {"id": "t2", "question": "Say hi", "should_trigger": False},
]
print(json.dumps({"skill": os.environ["ACES_SKILL_NAME"], "cwd": os.getcwd()}), file=sys.stderr)
for case in cases:
    print(json.dumps(case))
"""


def skill_with(tmp_path: Path, script: str, *, evals: list[dict[str, object]] | None = None, timeout: float = 30):
    dataset = {
        "skill_name": "demo",
        "evals": evals or [],
        "tasks": {"command": [sys.executable, "tools/cases.py"], "timeout_s": timeout},
    }
    return write_skill(tmp_path, {"evals/evals.json": json.dumps(dataset, indent=2), "tools/cases.py": script})


def test_the_commands_cases_join_the_dataset_and_inherit_the_skill(tmp_path):
    skill_dir = skill_with(tmp_path, EMIT, evals=[{"id": "own", "prompt": "From the file"}])
    dataset = load_dataset(skill_dir, tmp_path)
    assert [c.id for c in dataset.cases] == ["own", "t1", "t2"]
    t1, t2 = dataset.cases[1:]
    assert (t1.prompt, t1.expected_output, t1.expected_skill) == ("Refund window?", "45", "demo")
    assert t1.should_trigger is True
    assert (t2.prompt, t2.should_trigger) == ("Say hi", False)
    source = dataset.sources["t2"]
    assert (source.kind, source.pointer) == ("tasks", "/1")
    assert "tools/cases.py" in source.file


def test_a_command_that_prints_nothing_for_a_skill_gives_it_no_case_rather_than_a_bad_one(tmp_path):
    skill_dir = skill_with(tmp_path, "import sys\n")  # one command for every skill: it has none for this one
    with pytest.raises(NoCases) as caught:
        load_dataset(skill_dir, tmp_path)
    error = caught.value
    assert error.exit_code == EXIT_INPUT_ERROR and "no evaluation cases" in str(error)
    assert error.sources[0].endswith("evals/evals.json") and "tools/cases.py" in error.sources[1]


def test_a_bad_case_names_the_output_line_and_pointer(tmp_path):
    script = 'print(\'{"id": "ok", "prompt": "fine"}\')\nprint()\nprint(\'{"id": "bad", "prompt": 7}\')\n'
    skill_dir = skill_with(tmp_path, script)
    with pytest.raises(InputError) as caught:
        load_dataset(skill_dir, tmp_path)
    error = caught.value
    assert error.exit_code == EXIT_INPUT_ERROR
    assert error.field == "/1/prompt"
    assert "printed a bad case at output line 3: must be a string, found integer" in str(error)
    assert error.path == "skills/demo/evals/evals.json"


def test_output_that_is_not_json_lines_is_an_input_error(tmp_path):
    skill_dir = skill_with(tmp_path, "print('Here are your cases:')\n")
    with pytest.raises(InputError, match="at output line 1: invalid JSON"):
        load_dataset(skill_dir, tmp_path)


def test_a_failing_command_shows_its_redacted_stderr(tmp_path, monkeypatch):
    planted = ANTHROPIC_KEY
    monkeypatch.setenv("TASKS_SERVICE_TOKEN", "zq7LmX0vT4nWb7YcPp3R")
    script = (
        "import os, sys\n"
        f"print('auth failed with {planted}', file=sys.stderr)\n"
        # The command no longer gets the token (command_environment); one it knew anyway is still masked.
        "print('token was zq7LmX0vT4nWb7YcPp3R, here:', os.environ.get('TASKS_SERVICE_TOKEN'), file=sys.stderr)\n"
        "sys.exit(4)\n"
    )
    skill_dir = skill_with(tmp_path, script)
    with pytest.raises(InputError) as caught:
        load_dataset(skill_dir, tmp_path)
    message = str(caught.value)
    assert "exited with status 4" in message and "auth failed" in message and "here: None" in message
    assert planted not in message and "zq7LmX0vT4nWb7YcPp3R" not in message
    assert "[REDACTED" in message


def test_a_missing_program_is_an_input_error(tmp_path):
    skill_dir = write_skill(tmp_path, {})
    command = TaskCommand(("./no-such-tool",), declared_in="aces.yml")
    with pytest.raises(InputError, match=r"cannot run: cannot start './no-such-tool'") as caught:
        load_dataset(skill_dir, tmp_path, tasks=command)
    assert caught.value.path == "aces.yml"


def test_a_hung_command_is_stopped_at_its_timeout_with_its_children(tmp_path):
    script = (
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "time.sleep(60)\n"
    )
    skill_dir = skill_with(tmp_path, script, timeout=0.5)
    with pytest.raises(InfraError, match=r"still running after 0\.5 s") as caught:
        load_dataset(skill_dir, tmp_path)
    assert caught.value.exit_code == EXIT_RUNTIME_ERROR


def test_words_reach_the_program_as_they_are_never_through_a_shell(tmp_path):
    script = "import json, sys\nprint(json.dumps({'id': 'a', 'prompt': sys.argv[1]}))\n"
    write_skill(tmp_path, {"tools/cases.py": script})
    skill_dir = tmp_path / "skills" / "demo"
    command = TaskCommand((sys.executable, "tools/cases.py", "$(touch pwned); touch pwned2"), declared_in="aces.yml")
    dataset = load_dataset(skill_dir, tmp_path, tasks=command)
    assert dataset.cases[0].prompt == "$(touch pwned); touch pwned2"
    assert not (skill_dir / "pwned").exists() and not (skill_dir / "pwned2").exists()


def test_a_command_declared_twice_is_ambiguous(tmp_path):
    skill_dir = skill_with(tmp_path, EMIT)
    with pytest.raises(InputError, match=r"declared both here and in aces\.yml"):
        load_dataset(skill_dir, tmp_path, tasks=TaskCommand(("true",), declared_in="aces.yml"))


def test_an_id_used_by_the_file_and_the_command_is_an_error(tmp_path):
    skill_dir = skill_with(tmp_path, EMIT, evals=[{"id": "t1", "prompt": "clash"}])
    with pytest.raises(InputError, match="case id 't1' is used again"):
        load_dataset(skill_dir, tmp_path)


def test_a_repository_wide_command_runs_beside_aces_yml_and_knows_the_skill(tmp_path):
    script = "import json, os\nprint(json.dumps({'id': 'x', 'prompt': 'For ' + os.environ['ACES_SKILL_NAME']}))\n"
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "cases.py").write_text(script)
    skill_dir = write_skill(tmp_path, {})
    command = TaskCommand((sys.executable, "tools/cases.py"), declared_in="aces.yml", cwd=tmp_path)
    assert load_dataset(skill_dir, tmp_path, tasks=command).cases[0].prompt == "For demo"
