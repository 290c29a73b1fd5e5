"""Task and grader commands run without our keys and tokens; aces.yml names what a command may have.

The hole: a labelled same-repo PR's aces.yml command saw ``OPENAI_API_KEY`` and ``GITHUB_TOKEN``.
Each command here prints the names it sees, end to end through aces.yml, the dataset loader and
the BYOG runner.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from aces_ci.config import load_config
from aces_ci.errors import ConfigError
from aces_ci.evals import command_environment, load_dataset, load_evals
from aces_ci.grading import run_byog
from tests.evals.helpers import write_skill
from tests.grading.helpers import Rollout, positive

HOSTILE_ENV = {
    "OPENAI_API_KEY": "sk-proj-" + "A1b2C3d4" * 6,
    "ANTHROPIC_API_KEY": "sk-ant-api03-" + "x" * 90,
    "GITHUB_TOKEN": "ghs_" + "Z" * 36,
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "eyJ" + "q" * 60,
    "ACTIONS_ID_TOKEN_REQUEST_URL": "https://pipelines.actions.githubusercontent.com/oidc",
    "ACTIONS_RUNTIME_TOKEN": "eyJ" + "r" * 60,
    "VENDOR_SECRET": "hunter2-hunter2-hunter2",
    "HOUSE_DB_URL": "postgres://grader:pa55word-long-enough@db.internal/house",
    "PLAIN_SETTING": "visible",
}
NOT_PASSED = sorted(set(HOSTILE_ENV) - {"HOUSE_DB_URL", "PLAIN_SETTING"})
PRINT_ENV_AS_CASE = """
import json, os
print(json.dumps({"id": "env", "prompt": json.dumps(sorted(os.environ))}))
"""
PRINT_ENV_AS_GRADE = """
import json, os, sys
json.load(sys.stdin)
print(json.dumps({"metrics": {"env_seen": {"value": 1.0, "reason": ",".join(sorted(os.environ))}}}))
"""


@pytest.fixture
def hostile_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in HOSTILE_ENV.items():
        monkeypatch.setenv(name, value)


def _repo(tmp_path: Path, evals_section: str) -> Path:
    (tmp_path / "aces.yml").write_text(evals_section)
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "cases.py").write_text(PRINT_ENV_AS_CASE)
    (tmp_path / "tools" / "grade.py").write_text(PRINT_ENV_AS_GRADE)
    return tmp_path


@pytest.mark.usefixtures("hostile_env")
def test_a_task_command_sees_no_key_or_token_but_the_variable_aces_yml_names(tmp_path: Path) -> None:
    root = _repo(
        tmp_path,
        f"evals:\n  tasks:\n    command: [{sys.executable}, tools/cases.py]\n    env: [HOUSE_DB_URL]\n",
    )
    config = load_config(root / "aces.yml", root)
    skill_dir = write_skill(root, {})
    dataset = load_dataset(skill_dir, root, tasks=config.evals.tasks)
    seen = json.loads(dataset.cases[0].prompt)
    assert {"HOUSE_DB_URL", "PLAIN_SETTING", "ACES_SKILL_NAME", "PATH"} <= set(seen)
    assert [name for name in NOT_PASSED if name in seen] == []


@pytest.mark.usefixtures("hostile_env")
async def test_a_grader_command_sees_no_key_or_token_but_the_variable_aces_yml_names(tmp_path: Path) -> None:
    root = _repo(
        tmp_path,
        f"evals:\n  grader:\n    command: [{sys.executable}, tools/grade.py]\n    metrics: [env_seen]\n"
        "    env: [HOUSE_DB_URL]\n",
    )
    grader = load_config(root / "aces.yml", root).evals.grader
    assert grader is not None and grader.pass_env == ("HOUSE_DB_URL",)
    grades = await run_byog(grader, Rollout(positive()).build())
    seen = grades["env_seen"].reason.split(",")
    assert "HOUSE_DB_URL" in seen and "PLAIN_SETTING" in seen
    assert [name for name in NOT_PASSED if name in seen] == []


def test_a_key_named_in_env_is_handed_over_because_naming_it_is_the_choice() -> None:
    env = command_environment(("OPENAI_API_KEY",), environ=HOSTILE_ENV)
    assert env["OPENAI_API_KEY"] == HOSTILE_ENV["OPENAI_API_KEY"] and "GITHUB_TOKEN" not in env


def test_an_env_entry_that_is_not_a_variable_name_is_a_config_error_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "aces.yml").write_text("evals:\n  tasks:\n    command: [./cases]\n    env: [HOUSE DB]\n")
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "aces.yml", tmp_path)
    assert "aces.yml:4" in str(caught.value) and "env" in str(caught.value)


def test_a_datasets_own_command_cannot_ask_for_variables(tmp_path: Path) -> None:
    """evals.json is the skill's (the pull request's): it has no ``env``, so it cannot pull a key in."""
    dataset = {"skill_name": "demo", "evals": [], "tasks": {"command": ["./cases"], "env": ["OPENAI_API_KEY"]}}
    skill_dir = write_skill(tmp_path, {"evals/evals.json": json.dumps(dataset)})
    evalset = load_evals(skill_dir, tmp_path)
    assert evalset is not None
    assert [(p.code, p.pointer) for p in evalset.problems] == [("schema-violation", "/tasks")]
