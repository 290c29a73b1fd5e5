"""Derived inputs are shared: one skill's rules read each file and dataset once; identical scripts run bash once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from aces_ci.scan import ScanConfig, ScanContext, scan_repo
from aces_ci.scan._inputs import SkillInputs
from aces_ci.scan.rules import default_registry, evalset, script

from .helpers import front, make_skill

HEADER = front(name="demo", description="Formats demo files. Use when the user asks to format one.")


def test_a_context_refuses_inputs_of_another_skill(tmp_path: Path) -> None:
    one = make_skill(tmp_path, HEADER + "# One\n", name="one")
    two = make_skill(tmp_path, HEADER + "# Two\n", name="two")
    with pytest.raises(ValueError, match="another skill"):
        ScanContext(one, ScanConfig(), SkillInputs(two))


def test_every_eval_rule_of_a_skill_sees_one_loaded_dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from aces_ci.scan import _inputs

    loads: list[Path] = []
    real_load = _inputs.load_evals

    def counting_load(skill_dir: Path, repo_root: Path):
        loads.append(skill_dir)
        return real_load(skill_dir, repo_root)

    monkeypatch.setattr(_inputs, "load_evals", counting_load)
    skill = make_skill(tmp_path, HEADER + "# Demo\n", {"evals/evals.json": '{"evals": [{"id": 1, "prompt": "x"}]}'})
    context = ScanContext(skill, ScanConfig())
    found = {hit.message for rule in evalset.RULES for hit in rule.check(context)}
    assert loads == [skill.dir]
    assert any("at least 3 are needed" in message for message in found)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_a_script_copied_into_several_skills_is_parsed_by_bash_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs: list[bytes] = []
    real_bash_n = script._bash_n

    def counting_bash_n(bash: str, data: bytes):
        runs.append(data)
        return real_bash_n(bash, data)

    monkeypatch.setattr(script, "_bash_n", counting_bash_n)
    broken = "#!/bin/bash\nif true; then\n"
    for name in ("one", "two", "three"):
        make_skill(tmp_path, HEADER + "Run `bash scripts/check.sh`.\n", {"scripts/check.sh": broken}, name=name)
    make_skill(tmp_path, HEADER + "Run `bash scripts/check.sh`.\n", {"scripts/check.sh": "echo ok\n"}, name="four")
    result = scan_repo(tmp_path, ScanConfig(), default_registry())
    assert sorted(runs) == sorted([broken.encode(), b"echo ok\n"])
    flagged = sorted(r.skill for r in result.skills if any(f.rule_id == "SCRIPT002" for f in r.findings))
    assert flagged == ["skills/one", "skills/three", "skills/two"], "every copy is still reported"
