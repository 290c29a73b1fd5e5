"""One reader of a skill on disk: the scan lists what staging copies, and a skill the scan accepts stages."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aces_ci.scan import ScanConfig, scan_repo
from aces_ci.skill import RenderError, load_skill, read_skill_tree

SKILL_MD = (
    "---\nname: demo\ndescription: Formats demo files. Use when the user asks to format a demo file.\n---\n"
    "# Demo\n\nRun the formatter on the file the user names.\n"
)


def make(root: Path) -> Path:
    skill = root / "skills" / "demo"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD)
    return skill


def test_tool_folders_are_neither_listed_nor_staged(tmp_path: Path) -> None:
    skill = make(tmp_path)
    for folder in ("node_modules/left-pad", ".aces-cache/scan", "__pycache__", "env/lib"):
        (skill / folder).mkdir(parents=True)
        (skill / folder / "x.js").write_text("x")
    (skill / "env" / "pyvenv.cfg").write_text("home = /usr\n")  # a virtualenv under any name
    (skill / "scripts").mkdir()
    (skill / "scripts" / "run.py").write_text("print(1)\n")
    staged = read_skill_tree(skill)
    assert sorted(staged.files) == ["SKILL.md", "scripts/run.py"]
    listed = [resource.rel for resource in load_skill(skill, tmp_path).resources]
    assert listed == ["scripts/run.py"]


def _symlink_out(skill: Path) -> None:
    (skill.parent / "shared.md").write_text("shared")
    (skill / "shared.md").symlink_to(skill.parent / "shared.md")


def _symlinked_folder(skill: Path) -> None:
    (skill / "real").mkdir()
    (skill / "linked").symlink_to(skill / "real")


def _dangling(skill: Path) -> None:
    (skill / "gone.md").symlink_to(skill / "nowhere.md")


def _fifo(skill: Path) -> None:
    os.mkfifo(skill / "pipe")


def _link_inside(skill: Path) -> None:
    (skill / "references").mkdir()
    (skill / "references" / "a.md").write_text("a")
    (skill / "alias.md").symlink_to(skill / "references" / "a.md")


def _node_modules(skill: Path) -> None:
    (skill / "node_modules").mkdir()
    os.mkfifo(skill / "node_modules" / "pipe")  # never looked at


def _evals_only(skill: Path) -> None:
    (skill / "evals").mkdir()
    (skill / "evals" / "answer.md").symlink_to(skill.parent / "nowhere")


FEATURES: dict[str, Callable[[Path], None]] = {
    "symlink-out": _symlink_out,
    "symlinked-folder": _symlinked_folder,
    "dangling": _dangling,
    "fifo": _fifo,
    "link-inside": _link_inside,
    "node-modules": _node_modules,
    "evals-link": _evals_only,
}
STAGEABLE = {"link-inside", "node-modules", "evals-link"}


def accepted_and_staged(root: Path, skill: Path) -> tuple[bool, bool]:
    report = scan_repo(root, ScanConfig()).skills[0]
    errors = [f for f in report.findings if f.active and f.severity.value == "error" and f.rule_id.startswith("PARSE")]
    try:
        read_skill_tree(skill)
    except RenderError:
        return not errors, False
    return not errors, True


@pytest.mark.parametrize("feature", sorted(FEATURES))
def test_each_reason_staging_refuses_is_a_scan_error(tmp_path: Path, feature: str) -> None:
    skill = make(tmp_path)
    FEATURES[feature](skill)
    accepted, staged = accepted_and_staged(tmp_path, skill)
    assert staged == (feature in STAGEABLE)
    assert accepted == staged


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sets(st.sampled_from(sorted(FEATURES)), max_size=4))
def test_a_skill_the_scan_accepts_always_stages(tmp_path_factory: pytest.TempPathFactory, chosen: set[str]) -> None:
    root = tmp_path_factory.mktemp("repo")
    skill = make(root)
    for feature in sorted(chosen):
        FEATURES[feature](skill)
    accepted, staged = accepted_and_staged(root, skill)
    assert not accepted or staged
    assert staged == chosen.issubset(STAGEABLE)


def test_a_skill_too_large_to_stage_is_named_with_its_size(tmp_path: Path) -> None:
    from aces_ci.skill import MAX_SKILL_BYTES
    from aces_ci.skill._tree import SkillTree, TreeEntry, staging_problems

    skill = make(tmp_path)
    big = TreeEntry("assets/big.bin", skill / "SKILL.md", 0o100644, MAX_SKILL_BYTES + 1)
    answer = TreeEntry("evals/huge.json", skill / "SKILL.md", 0o100644, MAX_SKILL_BYTES)
    assert staging_problems(skill, SkillTree((answer,), False)) == []  # evals/ is never staged
    (problem,) = staging_problems(skill, SkillTree((big, answer), False))
    assert problem.code == "too-large-to-stage" and f"{MAX_SKILL_BYTES:,}" in problem.message
