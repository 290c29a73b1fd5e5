"""``app.trial_request``/``app.value_request``: the one way the CLI and the Python API find a project and resolve
its config, so ``aces_ci.trial(...)`` and ``aces-ci trial`` run on the same settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from aces_ci import app
from aces_ci.config import TrialFlags
from aces_ci.errors import InputError

SKILL_MD = "---\nname: demo\ndescription: A demo skill for the request tests.\n---\n\n# Demo\n\n- Do the thing.\n"


def _skill(root: Path) -> Path:
    skill = root / "demo"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    return skill


def test_a_trial_request_reads_the_aces_yml_beside_the_skill_unless_another_is_named(tmp_path: Path) -> None:
    skill = _skill(tmp_path)
    (skill / "aces.yml").write_text("gate:\n  pass_band: 0.2\n", encoding="utf-8")
    other = tmp_path / "other.yml"
    other.write_text("gate:\n  pass_band: 0.3\n", encoding="utf-8")
    found = app.trial_request(str(skill))
    assert found.skill_dirs == [skill] and found.config.gate.pass_band == 0.2
    named = app.trial_request([skill], config_file=other)
    assert named.config.gate.pass_band == 0.3
    given = app.trial_request(skill, TrialFlags(pass_band=0.4), config_file=other)
    assert given.config.gate.pass_band == 0.4, "a setting given wins over aces.yml"


def test_a_trial_of_no_skill_at_all_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="at least one skill"):
        app.trial_request([])


def test_a_value_request_resolves_the_skill_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    skill = _skill(tmp_path)
    monkeypatch.chdir(tmp_path)
    request = app.value_request("demo")
    assert request.skill_dir == skill.resolve() and request.project.root == skill.resolve()
