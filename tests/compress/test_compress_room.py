"""The decisions of ``aces_ci.compress``: which units a pruned candidate cuts, which editor answers are skills,
and how a held-out contrast becomes a verdict. Fixtures are skills written here, compiled by SkillSV."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from aces_ci.cli import main
from aces_ci.compress import InvalidEdit, contrast, judge, parse_edit, prune, tree_diff
from aces_ci.schemas import validator
from aces_ci.skillsv import compile_skill
from tests.skillsv.helpers import PLANTED_BODY, write_skill

ORACLE = "python:tests.skillsv.planted_oracle"
TOOL = "#!/bin/sh\necho TOTALS\n"


def _planted(tmp_path: Path, cases: int = 40) -> tuple[Path, Path]:
    skill = write_skill(tmp_path, PLANTED_BODY, {"scripts/tool.sh": TOOL})
    evals = tmp_path / "cases.json"
    evals.write_text(json.dumps({"evals": [{"id": f"c{i}", "prompt": f"question {i}"} for i in range(cases)]}))
    return skill, evals


def _ids(tmp_path: Path) -> tuple[Any, dict[str, str]]:
    """The compiled planted skill and its units by marker word (ALPHA, …, TOOLUSE, and ``script``)."""
    skill, _ = _planted(tmp_path)
    game = compile_skill(skill)
    named = {}
    for unit in game.players:
        marker = "script" if unit.kind == "resource" else unit.preview.lstrip("- ").split(":")[0]
        named[marker] = unit.id
    return game, named


def test_pruning_cuts_harmful_and_null_units_but_spares_a_null_script_a_kept_rule_runs(tmp_path: Path) -> None:
    game, u = _ids(tmp_path)
    decisions = dict.fromkeys(game.player_ids, "keep")
    decisions |= {u["HARM"]: "delete", u["DEAD"]: "negligible", u["script"]: "negligible", u["BETA"]: "unresolved"}
    pruning = prune(game, decisions)
    assert {r.unit for r in pruning.removed} == {u["HARM"], u["DEAD"]}
    assert pruning.spared == (u["script"],)  # TOOLUSE is kept and runs it
    text = pruning.files["SKILL.md"].decode()
    assert "HARM" not in text and "DEAD" not in text and "BETA" in text and "scripts/tool.sh" in pruning.files
    # a harmful script takes the rule that runs it along (the reverse-dependency closure), said so
    decisions[u["script"]] = "delete"
    pruning = prune(game, decisions)
    pulled = {r.unit: r.because_of for r in pruning.removed}
    assert pulled[u["TOOLUSE"]] == u["script"] and "scripts/tool.sh" not in pruning.files
    assert "TOOLUSE" not in pruning.files["SKILL.md"].decode()
    # the trigger is never cut, and an unknown unit id in the decisions is ignored
    assert "m" in prune(game, {"m": "delete", "u999": "delete"}).kept


def test_an_editor_answer_that_is_not_a_valid_skill_is_refused_with_the_reason(tmp_path: Path) -> None:
    skill, _ = _planted(tmp_path)
    original = {"SKILL.md": (skill / "SKILL.md").read_bytes(), "scripts/tool.sh": TOOL.encode()}
    head = (skill / "SKILL.md").read_text().split("\n# Planted")[0]
    good = f'<file path="SKILL.md">\n{head}\n- TOOLUSE: run `scripts/tool.sh`.\n</file>\n<keep path="scripts/tool.sh"/>'
    tree = parse_edit(good, original)
    assert tree["scripts/tool.sh"] == original["scripts/tool.sh"] and b"ALPHA" not in tree["SKILL.md"]
    refused = {
        "no files": "nothing to see",
        "a new path": good + '\n<file path="../../etc/passwd">x</file>',
        "twice": good + '\n<keep path="scripts/tool.sh"/>',
        "no SKILL.md": '<keep path="scripts/tool.sh"/>',
        "broken frontmatter": '<file path="SKILL.md">\n---\nname: [unclosed\n---\nbody\n</file>',
        "renamed": '<file path="SKILL.md">\n---\nname: other\ndescription: d\n---\nbody\n</file>',
        "dangling": f'<file path="SKILL.md">\n{head}\n- TOOLUSE: run `scripts/tool.sh`.\n</file>',
    }
    reasons = {}
    for case, answer in refused.items():
        with pytest.raises(InvalidEdit) as caught:
            parse_edit(answer, original)
        reasons[case] = str(caught.value)
    assert "does not have: ../../etc/passwd" in reasons["a new path"]
    assert "more than once" in reasons["twice"] and "drops SKILL.md" in reasons["no SKILL.md"]
    assert "frontmatter is broken" in reasons["broken frontmatter"] and "renames" in reasons["renamed"]
    assert reasons["dangling"] == "it drops scripts/tool.sh, which SKILL.md still refers to"


def test_a_verdict_needs_the_interval_above_the_tolerance_and_an_undecided_one_is_never_accepted() -> None:
    ids = [f"c{i}" for i in range(30)]
    same = [[1.0] if i % 2 else [0.0] for i in range(30)]
    better = [[1.0] for _ in range(30)]
    assert judge(contrast(ids, same, better), -0.05, []).verdict == "accepted"
    worse = [[0.0] for _ in range(30)]
    assert judge(contrast(ids, same, worse), -0.05, []).verdict == "rejected"
    few = ids[:3]
    shaky = judge(contrast(few, [[1.0], [0.0], [1.0]], [[1.0], [1.0], [0.0]]), -0.05, [])
    assert shaky.verdict == "underpowered" and "more cases or --runs" in shaky.reason
    assert judge(contrast(ids, same, same), -0.05, ["REF002: gone"]).verdict == "rejected"
    assert judge(contrast(few, [[None]] * 3, [[None]] * 3), -0.05, []).verdict == "unverified"


def test_the_patch_names_the_skill_inside_its_repository() -> None:
    diff = tree_diff({"SKILL.md": b"a\nb\n", "x.sh": b"1\n"}, {"SKILL.md": b"a\n"}, "skills/s")
    assert "--- a/skills/s/SKILL.md\n+++ b/skills/s/SKILL.md\n" in diff and "-b\n" in diff
    assert "--- a/skills/s/x.sh\n+++ /dev/null\n" in diff


def test_a_python_oracle_is_verified_with_distinct_seeds_per_run_and_a_rerun_calls_it_no_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    skill, evals = _planted(tmp_path)
    log = tmp_path / "calls.log"
    monkeypatch.setenv("PLANTED_ORACLE_LOG", str(log))
    import tests.skillsv.planted_oracle as oracle

    monkeypatch.setattr(oracle, "CALLS", log)
    out = tmp_path / "c.json"
    args = ["compress", str(skill), "--evals", str(evals), "--oracle", f"{ORACLE}:noisy", "--runs", "3", "-K", "24"]
    args += ["--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "out"), "--json", str(out)]
    code = main(args)
    result = json.loads(out.read_text())
    assert [e.message for e in validator("compress").iter_errors(result)] == []
    assert code == (0 if result["accepted"] else 1)
    assert result["runs"] == 3
    verified = [c for c in result["candidates"] if c["contrast"] is not None]
    assert verified and all(c["contrast"]["runs"] == 3 and c["contrast"]["n_cases"] == 20 for c in verified)
    held = set(result["panel"]["held_out"])
    calls = log.read_text().splitlines()
    per_case = {case: calls.count(case) for case in held}
    assert set(per_case.values()) == {3 * (1 + len(verified))}  # three seeds, the original and each candidate
    before = len(calls)
    assert main([*args[:-4], "--out", str(tmp_path / "again"), "--json", str(out)]) == code
    assert len(log.read_text().splitlines()) == before and json.loads(out.read_text())["cost"]["rollouts"] == 0


def test_input_errors_name_what_is_wrong_before_anything_is_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    skill, evals = _planted(tmp_path, cases=1)
    base = ["compress", str(skill), "--evals", str(evals), "--oracle", f"{ORACLE}:noisy", "--out", str(tmp_path / "o")]
    assert main(base) == 2
    assert "1 cases cannot be split into an attribution and a held-out panel" in capsys.readouterr().err
    _, evals = _planted(tmp_path, cases=10)
    base[3] = str(evals)
    assert main([*base, "--values", str(tmp_path / "missing.json")]) == 2
    assert "cannot read the value report" in capsys.readouterr().err
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps({"skill": "planted", "units": [{"id": "u1", "file": "SKILL.md", "lines": [99, 99]}]}))
    assert main([*base, "--values", str(stale)]) == 2
    assert "not where the report says" in capsys.readouterr().err
    assert main([*base, "--editor-model", "m"]) == 2
    assert "an editor needs its provider" in capsys.readouterr().err
    assert main([*base, "--tolerance", "0.2"]) == 2
    assert os.listdir(tmp_path).count("o") == 0
    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "kept.txt").write_text("mine")
    log = tmp_path / "calls.log"
    import tests.skillsv.planted_oracle as oracle

    monkeypatch.setattr(oracle, "CALLS", log)
    assert main(base) == 2  # a folder holding anything is never overwritten, and it is said before any score
    assert "--out must be a new or empty folder" in capsys.readouterr().err and not log.exists()
    assert (tmp_path / "o" / "kept.txt").read_text() == "mine"


def test_the_tolerance_comes_from_aces_yml_and_the_flag_overrides_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = _planted(tmp_path, cases=12)
    config = tmp_path / "aces.yml"
    config.write_text("compress:\n  tolerance: -0.2\n", encoding="utf-8")
    out = tmp_path / "c.json"
    base = ["compress", str(skill), "--evals", str(evals), "--oracle", f"{ORACLE}:noisy", "--config", str(config)]
    base += ["--json", str(out), "-K", "4"]
    assert main([*base, "--out", str(tmp_path / "a")]) in (0, 1)
    assert json.loads(out.read_text())["tolerance"] == -0.2
    assert main([*base, "--out", str(tmp_path / "b"), "--tolerance", "-0.1"]) in (0, 1)
    assert json.loads(out.read_text())["tolerance"] == -0.1
    config.write_text("compress:\n  tolerance: 0.5\n", encoding="utf-8")
    assert main([*base, "--out", str(tmp_path / "c")]) == 2
    assert "compress.tolerance" in capsys.readouterr().err
