"""``--against REF``: the skill as it was at a ref, read from git objects, the work tree left alone."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from aces_ci.errors import InputError
from aces_ci.trials import skill_at_ref
from tests.engine.helpers import write_skill
from tests.trials.helpers import commit


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def test_the_skill_at_a_ref_is_the_committed_version_under_the_current_name(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    skill = write_skill(repo / "skills", "marker", body="# Old\n\nThe first rules.", files={"ref.md": "old ref\n"})
    (skill / "evals").mkdir()
    (skill / "evals" / "evals.json").write_text('{"evals": []}')
    commit(repo, "v1")
    write_skill(repo / "skills", "marker", body="# New\n\nThe second rules.", files={"ref.md": "new ref\n"})
    (skill / "extra.md").write_text("uncommitted\n")
    at = skill_at_ref(skill, "HEAD", "marker")
    assert at.path == "skills/marker" and len(at.commit) == 40
    assert b"The first rules." in at.skill.files["SKILL.md"]
    assert at.skill.files["ref.md"] == b"old ref\n"
    assert "extra.md" not in at.skill.files and not any(p.startswith("evals/") for p in at.skill.files)
    assert (skill / "extra.md").exists() and b"second" in (skill / "SKILL.md").read_bytes()


def test_refs_that_are_not_commits_or_look_like_options_are_refused(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    skill = write_skill(repo / "skills", "marker")
    commit(repo, "v1")
    for ref in ("-x", "--output=/tmp/x", "no-such-ref", "HEAD~5", "a\nb"):
        with pytest.raises(InputError):
            skill_at_ref(skill, ref, "marker")


def test_outside_a_git_repository_against_is_an_input_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    skill = write_skill(tmp_path / "plain", "marker")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    with pytest.raises(InputError, match="inside a git repository"):
        skill_at_ref(skill, "HEAD", "marker")
