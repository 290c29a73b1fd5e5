"""Rendering a skill, staging a rollout workspace, and the baseline guard."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aces_ci.agents import (
    HarnessName,
    RolloutRequest,
    SkillSet,
    baseline_guard,
    plan_checked,
    render_skill_dir,
    stage_workspace,
)
from aces_ci.agents.builtin import BuiltinHarness
from aces_ci.errors import InputError
from aces_ci.skill import MAX_SKILL_FILES, RenderedSkill
from tests.engine.helpers import MARKER_BODY, ScriptedClient, rendered, request, write_skill


def harness() -> BuiltinHarness:
    return BuiltinHarness(lambda _spec: ScriptedClient())


class HomeHarness(BuiltinHarness):
    """A harness that discovers skills under HOME, like Claude Code's ~/.claude/skills."""

    def skill_root(self, workspace_root: Path, home: Path) -> Path:
        return home / ".claude" / "skills"


class EscapingHarness(BuiltinHarness):
    name: HarnessName = "builtin"

    def skill_root(self, workspace_root: Path, home: Path) -> Path:
        return workspace_root.parent.parent / "elsewhere"


# -- rendering -------------------------------------------------------------------------------------


def test_render_keeps_every_file_but_the_eval_answers(tmp_path: Path) -> None:
    skill_dir = write_skill(
        tmp_path,
        "pdf",
        files={
            "scripts/fill.py": "print(1)\n",
            "references/FORMS.md": "forms",
            "evals/evals.json": '{"evals": []}',
            "evals/files/answer.txt": "42",
        },
    )
    skill = render_skill_dir(skill_dir)
    assert skill.name == "pdf"
    assert sorted(skill.files) == ["SKILL.md", "references/FORMS.md", "scripts/fill.py"]


def test_render_uses_the_declared_name_and_falls_back_to_the_folder(tmp_path: Path) -> None:
    declared = write_skill(tmp_path, "folder-name")
    (declared / "SKILL.md").write_text("---\nname: declared\ndescription: d\n---\nbody\n")
    assert render_skill_dir(declared).name == "declared"
    unusable = write_skill(tmp_path, "fallback")
    (unusable / "SKILL.md").write_text("---\nname: ../escape\ndescription: d\n---\nbody\n")
    assert render_skill_dir(unusable).name == "fallback"


def test_render_refuses_a_symlink_out_of_the_skill_and_follows_one_inside(tmp_path: Path) -> None:
    skill_dir = write_skill(tmp_path, "linked", files={"references/real.md": "inside"})
    (skill_dir / "alias.md").symlink_to(skill_dir / "references" / "real.md")
    assert render_skill_dir(skill_dir).files["alias.md"] == b"inside"
    (tmp_path / "secret.txt").write_text("outside")
    (skill_dir / "leak.md").symlink_to(tmp_path / "secret.txt")
    with pytest.raises(InputError, match="outside the skill") as caught:
        render_skill_dir(skill_dir)
    assert "leak.md" in str(caught.value)


def test_render_refuses_a_symlinked_directory(tmp_path: Path) -> None:
    skill_dir = write_skill(tmp_path, "dirlink")
    (tmp_path / "shared").mkdir()
    (skill_dir / "shared").symlink_to(tmp_path / "shared")
    with pytest.raises(InputError, match="symlinked directory"):
        render_skill_dir(skill_dir)


def test_render_names_a_missing_or_lowercase_skill_md(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=r"no SKILL\.md"):
        render_skill_dir(tmp_path / "empty")
    (tmp_path / "lower").mkdir()
    (tmp_path / "lower" / "skill.md").write_text("---\nname: lower\n---\n")
    with pytest.raises(InputError, match=r"rename it to SKILL\.md"):
        render_skill_dir(tmp_path / "lower")
    with pytest.raises(InputError, match="not found"):
        render_skill_dir(tmp_path / "missing")


def test_render_refuses_a_skill_with_too_many_files(tmp_path: Path) -> None:
    skill_dir = write_skill(tmp_path, "huge", files={f"assets/{i}.txt": "x" for i in range(MAX_SKILL_FILES)})
    with pytest.raises(InputError, match=f"more than {MAX_SKILL_FILES} files"):
        render_skill_dir(skill_dir)


# -- staging ---------------------------------------------------------------------------------------


def test_staging_writes_fixtures_skills_and_a_home_then_removes_everything(tmp_path: Path) -> None:
    target = rendered("pdf", files={"scripts/run.sh": "#!/bin/sh\necho hi\n", "notes.md": "plain"})
    req = request("with", target=target, fixtures={"data/in.csv": b"a,b\n"})
    with stage_workspace(req, harness(), tmp_path) as ws:
        assert (ws.root / "data" / "in.csv").read_bytes() == b"a,b\n"
        assert ws.skill_dirs == {"pdf": ws.root / ".agents" / "skills" / "pdf"}
        assert (ws.skill_dirs["pdf"] / "SKILL.md").read_bytes() == target.files["SKILL.md"]
        assert os.access(ws.skill_dirs["pdf"] / "scripts" / "run.sh", os.X_OK)
        assert not os.access(ws.skill_dirs["pdf"] / "notes.md", os.X_OK)
        assert ws.home.is_dir() and not any(ws.home.iterdir())
        (ws.root / "readonly").mkdir()
        (ws.root / "readonly" / "f").write_text("x")
        (ws.root / "readonly").chmod(0o500)
        top = ws.root.parent
    assert not top.exists()


def test_keep_leaves_the_workspace_for_inspection(tmp_path: Path) -> None:
    with stage_workspace(request("with"), harness(), tmp_path, keep=True) as ws:
        pass
    assert (ws.skill_dirs["marker"] / "SKILL.md").is_file()


def test_skills_go_where_the_harness_discovers_them(tmp_path: Path) -> None:
    with stage_workspace(request("with"), HomeHarness(lambda _s: ScriptedClient()), tmp_path) as ws:
        assert (ws.home / ".claude" / "skills" / "marker" / "SKILL.md").is_file()
        assert not (ws.root / ".agents").exists()


def test_supporting_skills_and_decoys_are_identical_in_both_conditions(tmp_path: Path) -> None:
    others = (rendered("helper", body="Helper skill body " * 5), rendered("decoy", body="Decoy skill body " * 5))
    target = rendered()
    trees = {}
    guard = baseline_guard([target])
    for arm in ("with", "without"):
        with stage_workspace(request(arm, target=target, others=others), harness(), tmp_path, guard=guard) as ws:
            skill_root = ws.root / ".agents" / "skills"
            trees[arm] = {
                p.relative_to(skill_root).as_posix(): p.read_bytes() for p in skill_root.rglob("*") if p.is_file()
            }
    extra = {k: v for k, v in trees["with"].items() if not k.startswith("marker/")}
    assert extra == trees["without"]
    assert set(trees["without"]) == {"helper/SKILL.md", "decoy/SKILL.md"}


def test_a_harness_may_not_put_skills_outside_the_workspace(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="outside the workspace"):
        plan_checked(request("with"), EscapingHarness(lambda _s: ScriptedClient()))


@pytest.mark.parametrize(
    ("fixtures", "message"),
    [
        ({"../up.txt": b"x"}, "stay inside the workspace"),
        ({"/etc/passwd": b"x"}, "stay inside the workspace"),
        ({"a": b"file", "a/b": b"under a file"}, "would have to be a directory"),
        ({".agents/skills/marker/SKILL.md": b"clash"}, "same path"),
    ],
)
def test_unsafe_or_colliding_fixture_paths_are_refused(
    tmp_path: Path, fixtures: dict[str, bytes], message: str
) -> None:
    with (
        pytest.raises(InputError, match=message),
        stage_workspace(request("with", fixtures=fixtures), harness(), tmp_path),
    ):
        pass
    assert not list(tmp_path.iterdir())


def test_the_staging_guard_sees_the_whole_plan_before_anything_is_written(tmp_path: Path) -> None:
    seen: list[tuple[str, list[str], str]] = []

    def refuse(req: RolloutRequest, plan: object) -> None:
        seen.append((req.condition, sorted(plan.files), plan.skill_dir("marker")))  # type: ignore[attr-defined]
        raise InputError("refused by the caller's policy")

    with (
        pytest.raises(InputError, match="caller's policy"),
        stage_workspace(request("with", fixtures={"in.txt": b"x"}), harness(), tmp_path, guard=refuse),
    ):
        pass
    assert seen == [("with", ["work/.agents/skills/marker/SKILL.md", "work/in.txt"], "work/.agents/skills/marker")]
    assert not list(tmp_path.iterdir())


# -- the baseline guard ----------------------------------------------------------------------------


def test_the_baseline_guard_needs_the_skill_under_test_to_prove_its_absence() -> None:
    with pytest.raises(InputError, match="absence cannot be proven"):
        plan_checked(request("without"), harness(), baseline_guard([]))
    plan_checked(request("with"), harness(), baseline_guard([]))  # a staged target needs no proof


def test_a_clean_baseline_passes_even_when_it_mentions_the_skill() -> None:
    target = rendered()
    req = request("without", target=target, fixtures={"notes.md": b"Use the marker skill for numbers."})
    plan_checked(req, harness(), baseline_guard([target]))


def guard_error(req: RolloutRequest, target_name: str = "marker") -> str:
    with pytest.raises(InputError) as caught:
        plan_checked(req, harness(), baseline_guard([rendered(target_name)]))
    return str(caught.value)


def test_guard_catches_the_target_under_its_own_name() -> None:
    impostor = rendered("marker", body="A different skill that happens to share the name, long enough to count.")
    message = guard_error(request("without", others=(impostor,)))
    assert "by name" in message and ".agents/skills/marker/SKILL.md" in message


def test_guard_catches_a_fixture_planted_at_the_targets_folder() -> None:
    message = guard_error(request("without", fixtures={".agents/skills/marker/notes.md": b"hello"}))
    assert "by name" in message and "work/.agents/skills/marker/notes.md" in message


def test_guard_catches_a_renamed_copy_of_the_whole_skill() -> None:
    target = rendered()
    renamed = RenderedSkill(name="innocent", files=dict(target.files))
    message = guard_error(request("without", others=(renamed,)))
    assert "renamed copy" in message and "work/.agents/skills/innocent" in message


def test_guard_catches_the_same_skill_md_with_other_resources() -> None:
    target = rendered()
    copy = RenderedSkill(name="alias", files={**target.files, "extra.md": b"more"})
    message = guard_error(request("without", others=(copy,)))
    assert "SKILL.md under another name" in message and "alias/SKILL.md" in message


def test_guard_catches_the_body_pasted_into_a_decoys_reference() -> None:
    decoy = rendered(
        "decoy",
        body="Decoy body that is long enough to be a body of its own, honestly.",
        files={"references/notes.md": f"Copied notes:\n{MARKER_BODY}\nend"},
    )
    message = guard_error(request("without", others=(decoy,)))
    assert "body of skill 'marker'" in message and "decoy/references/notes.md" in message


def test_guard_catches_the_skill_md_inside_a_fixture_even_with_windows_newlines() -> None:
    target = rendered()
    crlf = target.files["SKILL.md"].replace(b"\n", b"\r\n")
    message = guard_error(request("without", fixtures={"docs/guide.txt": b"See:\r\n" + crlf}))
    assert "work/docs/guide.txt" in message


def test_guard_ignores_a_body_too_short_to_identify_the_skill() -> None:
    tiny = rendered("tiny", body="# Title")
    req = request("without", target=tiny, fixtures={"readme.md": b"# Title\n\nSomething else."})
    plan_checked(req, harness(), baseline_guard([tiny]))


def test_the_guard_checks_every_baseline_condition_and_only_those() -> None:
    req = request("without", others=(RenderedSkill(name="innocent", files=dict(rendered().files)),))
    guard = baseline_guard([rendered()], baseline_conditions=("without", "without-again"))
    for label in ("without", "without-again"):
        relabelled = RolloutRequest(req.case, req.skills, label, req.harness, req.model)
        with pytest.raises(InputError, match="renamed copy"):
            plan_checked(relabelled, harness(), guard)
    plan_checked(RolloutRequest(req.case, req.skills, "base", req.harness, req.model), harness(), guard)


@pytest.mark.parametrize("name", ["", "../escape", "a/b"])
def test_the_skill_under_test_needs_a_usable_name(name: str) -> None:
    with pytest.raises(InputError, match="skill under test needs a usable name"):
        SkillSet(skills=(), target=name)
