"""A fresh clone with a restored cache: git's index vouches for unchanged files, and for nothing it does not know.

Each test commits a repository, fills the cache with a cold scan of one clone, then restores that
cache into a second clone (every file a new inode and times, as a CI job's checkout) and changes
it the way a push would. The second scan must replay exactly the skills a cold scan would report
alike, and read no file git vouches for.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from aces_ci.scan import DEFAULT_CACHE_DIR, ResultCache, ScanConfig, ScanResult, _git_index, scan_repo
from aces_ci.scan.rules import default_registry
from tests.scan.test_stat_index import Spy, three_skills, write_skill

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

REGISTRY = default_registry()
GIT_ENV = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env={**os.environ, **GIT_ENV}, check=True, capture_output=True, timeout=120)


def scan(root: Path, cached: bool = True) -> tuple[ScanResult, ResultCache]:
    cache = ResultCache(root / DEFAULT_CACHE_DIR)
    result = scan_repo(root, ScanConfig(), REGISTRY, cache=cache if cached else None)
    return dataclasses.replace(result, generated_at=""), cache


def settle_index(clone: Path) -> None:
    """Write the index once more a moment after its files.

    A clone writes its index right after the files; on a coarse clock they can share the instant,
    and git's racy rule (kept here) would then read them. Any later git command in a workspace that
    lives longer than a test's does this.
    """
    time.sleep(0.05)
    git(clone, "update-index", "--refresh", "--force-write-index")


def fresh_clone(origin: Path, target: Path, source: Path | None = None) -> Path:
    """A clone of ``source`` (default: ``origin``) with ``origin``'s cache restored into it, as a CI job gets it."""
    git(target.parent, "clone", "-q", os.fspath(source or origin), target.name)
    settle_index(target)
    shutil.copytree(origin / DEFAULT_CACHE_DIR, target / DEFAULT_CACHE_DIR)
    return target


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    """A committed repository of three skills whose cache a cold scan of a first clone filled."""
    source = tmp_path / "source"
    three_skills(source)
    git(source, "init", "-q")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "skills")
    first = tmp_path / "first"
    git(tmp_path, "clone", "-q", os.fspath(source), first.name)
    scan(first)
    return first


def test_a_fresh_clone_with_the_restored_cache_replays_everything_without_reading_a_file(
    origin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clone = fresh_clone(origin, tmp_path / "ci")
    spy = Spy(monkeypatch)
    warm, cache = scan(clone)
    assert (cache.stats.hits, spy.reads, spy.scanned) == (3, [], [])
    spy.reset()
    assert warm == scan(clone, cached=False)[0]


def recheck(clone: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The skills a scan of ``clone`` re-checks; its report must equal a scan without cache."""
    spy = Spy(monkeypatch)
    warm, cache = scan(clone)
    scanned = list(spy.scanned)
    assert cache.stats.hits == 3 - len(scanned)
    assert warm == scan(clone, cached=False)[0]
    return scanned


def test_an_unstaged_same_size_edit_is_rechecked(origin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clone = fresh_clone(origin, tmp_path / "ci")
    script = clone / "skills" / "gamma" / "scripts" / "check.sh"
    script.write_text(script.read_text().replace("then", "than"))
    assert recheck(clone, monkeypatch) == ["gamma"]


def test_a_staged_same_size_edit_is_rechecked(origin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clone = fresh_clone(origin, tmp_path / "ci")
    guide = clone / "skills" / "beta" / "references" / "guide.md"
    guide.write_text(guide.read_text().replace("Guide", "Gulde"))
    git(clone, "add", "-A")
    settle_index(clone)
    assert recheck(clone, monkeypatch) == ["beta"]


def test_an_untracked_new_file_is_rechecked(origin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clone = fresh_clone(origin, tmp_path / "ci")
    (clone / "skills" / "alpha" / "extra.md").write_text("# Extra\n")
    assert recheck(clone, monkeypatch) == ["alpha"]


def test_a_deleted_file_is_rechecked(origin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clone = fresh_clone(origin, tmp_path / "ci")
    (clone / "skills" / "gamma" / "notes.md").unlink()
    assert recheck(clone, monkeypatch) == ["gamma"]


def test_a_mode_change_is_rechecked(origin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clone = fresh_clone(origin, tmp_path / "ci")
    script = clone / "skills" / "gamma" / "scripts" / "check.sh"
    script.chmod(0o755)
    assert recheck(clone, monkeypatch) == ["gamma"]


def test_a_commit_pulled_into_the_clone_rechecks_only_its_skill(
    origin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The next push: a new commit, checked out fresh, with the cache of the previous job."""
    source = tmp_path / "source"
    skill_md = source / "skills" / "alpha" / "SKILL.md"
    skill_md.write_text(skill_md.read_text() + "More.\n")
    git(source, "commit", "-q", "-am", "edit alpha")
    clone = fresh_clone(origin, tmp_path / "ci", source)
    assert recheck(clone, monkeypatch) == ["alpha"]


def test_a_file_git_filters_on_checkout_is_read_not_vouched_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``filter`` (Git LFS), the checkout need not be the blob's bytes: the file is read."""
    source = tmp_path / "source"
    three_skills(source)
    (source / ".gitattributes").write_text("*.sh filter=demo\n")
    git(source, "init", "-q")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "skills")
    first = tmp_path / "first"
    git(tmp_path, "clone", "-q", os.fspath(source), first.name)
    scan(first)
    clone = fresh_clone(first, tmp_path / "ci")
    spy = Spy(monkeypatch)
    _, cache = scan(clone)
    assert cache.stats.hits == 3
    assert spy.reads == [(clone / "skills" / "gamma" / "scripts" / "check.sh").as_posix()]


def test_names_with_newlines_and_bytes_that_are_not_utf8_are_vouched_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "source"
    skill_dir = write_skill(source, "odd", {"line\nbreak.md": "Notes.\n"})
    (skill_dir / os.fsdecode(b"caf\xe9.md")).write_text("More notes.\n")
    git(source, "init", "-q")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "odd names")
    first = tmp_path / "first"
    git(tmp_path, "clone", "-q", os.fspath(source), first.name)
    scan(first)
    clone = fresh_clone(first, tmp_path / "ci")
    spy = Spy(monkeypatch)
    warm, cache = scan(clone)
    assert (cache.stats.hits, spy.reads, spy.scanned) == (1, [], [])
    assert warm == scan(clone, cached=False)[0]


def test_without_git_a_fresh_clone_is_hashed_as_before(
    origin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clone = fresh_clone(origin, tmp_path / "ci")
    which = shutil.which
    monkeypatch.setattr(_git_index.shutil, "which", lambda name: None if name == "git" else which(name))
    spy = Spy(monkeypatch)
    warm, cache = scan(clone)
    assert (cache.stats.hits, spy.scanned) == (3, [])
    assert len(spy.reads) == 6, "every file of the three skills is read and hashed"
    assert warm == scan(clone, cached=False)[0]


def test_outside_a_repository_there_is_no_witness(tmp_path: Path) -> None:
    write_skill(tmp_path, "alpha")
    assert _git_index.read_git_index(tmp_path) is None


def test_an_entry_written_in_the_instant_of_the_index_is_not_trusted(origin: Path) -> None:
    """git's racily clean rule: the index's own modification time bounds what its stats vouch for."""
    settle_index(origin)
    index = _git_index.read_git_index(origin)
    assert index is not None and len(index.blobs) == 6
    index_file = origin / ".git" / "index"
    listing = subprocess.run(
        ["git", "ls-files", "--debug", "-s", "-z"], cwd=origin, capture_output=True, check=True, timeout=60
    ).stdout
    written = max(os.stat(origin / os.fsdecode(path)).st_mtime_ns for path in index.blobs)
    assert _git_index._entries(listing, written) is not None
    assert len(_git_index._entries(listing, written) or {}) < len(index.blobs)
    assert _git_index._entries(listing, index_file.stat().st_mtime_ns) == index.blobs
    assert _git_index._entries(listing + b"junk", index_file.stat().st_mtime_ns) is None


def test_a_folder_inside_the_repository_is_vouched_for_with_paths_relative_to_it(
    origin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scan(origin / "skills")
    clone = tmp_path / "ci"
    git(tmp_path, "clone", "-q", os.fspath(origin), clone.name)
    settle_index(clone)
    shutil.copytree(origin / "skills" / DEFAULT_CACHE_DIR, clone / "skills" / DEFAULT_CACHE_DIR)
    spy = Spy(monkeypatch)
    _, cache = scan(clone / "skills")
    assert (cache.stats.hits, spy.reads, spy.scanned) == (3, [], [])
