"""Changed skills from git: between two commits, since the previous tag, and when the clone cannot tell."""

from __future__ import annotations

from pathlib import Path

from aces_ci.config import repository_root
from aces_ci.github import change_set, release_change_set, skills_touched

from .helpers import git, make_repo

SKILLS = ["skills/csv-summary", "skills/broken-skill"]


def test_diff_between_base_and_head(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, broken=True)
    changes = change_set(repo.root, repo.base, repo.head, SKILLS)
    assert changes.known
    assert changes.skills == ("skills/broken-skill", "skills/csv-summary")
    assert "skills/csv-summary/SKILL.md" in (changes.files or ())


def test_a_commit_missing_from_a_shallow_clone_means_every_skill(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, broken=False)
    changes = change_set(repo.root, "9" * 40, repo.head, SKILLS)
    assert not changes.known
    assert changes.skills == tuple(sorted(SKILLS))
    assert "fetch-depth: 0" in changes.reason


def test_since_the_previous_release_tag(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, broken=False)
    git(repo.root, "tag", "v1.0.0", repo.base)
    git(repo.root, "tag", "v1.1.0", repo.head)
    changes = release_change_set(repo.root, "v1.1.0", SKILLS)
    assert changes.base == "v1.0.0"
    assert changes.skills == ("skills/csv-summary",)
    first = release_change_set(repo.root, "v1.0.0", SKILLS)
    assert not first.known and "no release before v1.0.0" in first.reason


def test_nested_skills_are_attributed_to_the_deepest() -> None:
    touched = skills_touched(["a/b/SKILL.md", "a/x.md", "c/readme"], ["a", "a/b"])
    assert touched == ("a", "a/b")
    assert skills_touched(["a/b/ref.md"], ["a", "a/b"]) == ("a/b",)


def test_outside_git(tmp_path: Path) -> None:
    assert repository_root(tmp_path) is None
    assert not change_set(None, "a", "b", SKILLS).known
