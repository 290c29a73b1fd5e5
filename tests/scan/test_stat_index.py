"""The warm path: an unchanged skill costs ``lstat`` calls, not reads; an edit re-checks exactly its skill."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from aces_ci.scan import DEFAULT_CACHE_DIR, ResultCache, ScanConfig, ScanResult, _fingerprint, _runner, scan_repo
from aces_ci.scan.rules import default_registry

REGISTRY = default_registry()
FRONT = "---\nname: {name}\ndescription: Formats {name} files. Use when the user asks to format one.\n---\n"
BODY = "# Demo\n\nRun the formatter on the file the user names.\n"
HOUR_AGO = time.time() - 3600


def write_skill(root: Path, name: str, files: dict[str, str] | None = None) -> Path:
    skill_dir = root / "skills" / name
    for rel, text in {"SKILL.md": FRONT.format(name=name) + BODY, **(files or {})}.items():
        (skill_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill_dir / rel).write_text(text)
        os.utime(skill_dir / rel, (HOUR_AGO, HOUR_AGO))  # long before any cache entry: not racily clean
    return skill_dir


def three_skills(root: Path) -> None:
    write_skill(root, "alpha")
    write_skill(root, "beta", {"references/guide.md": "# Guide\n"})
    write_skill(root, "gamma", {"scripts/check.sh": "#!/bin/bash\nif true; then\n", "notes.md": "Notes.\n"})


def scan(root: Path, cached: bool = True, jobs: int = 1) -> tuple[ScanResult, ResultCache]:
    cache = ResultCache(root / DEFAULT_CACHE_DIR)
    result = scan_repo(root, ScanConfig(), REGISTRY, cache=cache if cached else None, jobs=jobs)
    return dataclasses.replace(result, generated_at=""), cache


class Spy:
    """Which files the fingerprint walk reads, and which skills the rules run on."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.reads: list[str] = []
        self.scanned: list[str] = []
        read, scan_skill = _fingerprint._TreeWalk._read, _runner._scan_skill

        def spied_read(walk: object, path: str, *args: object) -> object:
            self.reads.append(Path(path).as_posix())
            return read(walk, path, *args)  # type: ignore[arg-type]

        def spied_scan(job: object, skill_dir: Path, *args: object) -> object:
            self.scanned.append(skill_dir.name)
            return scan_skill(job, skill_dir, *args)  # type: ignore[arg-type]

        monkeypatch.setattr(_fingerprint._TreeWalk, "_read", spied_read)
        monkeypatch.setattr(_runner, "_scan_skill", spied_scan)

    def reset(self) -> None:
        self.reads.clear()
        self.scanned.clear()


def test_an_unchanged_repository_is_replayed_without_reading_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    three_skills(tmp_path)
    cold, _ = scan(tmp_path)
    spy = Spy(monkeypatch)
    warm, cache = scan(tmp_path)
    assert (cache.stats.hits, spy.reads, spy.scanned) == (3, [], [])
    assert warm == cold == scan(tmp_path, cached=False)[0]


def test_an_edit_of_one_file_rechecks_exactly_that_skill_and_reads_only_that_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    three_skills(tmp_path)
    scan(tmp_path)
    spy = Spy(monkeypatch)
    edited = tmp_path / "skills" / "gamma" / "scripts" / "check.sh"
    edited.write_text("#!/bin/bash\nif true; then echo ok; fi\n")
    result, cache = scan(tmp_path)
    assert spy.scanned == ["gamma"]
    # The walk before the scan reads the edited file only; the scan's own check afterwards reads the whole skill.
    first_walk = spy.reads[: spy.reads.index(edited.as_posix()) + 1]
    assert first_walk == [edited.as_posix()]
    assert (cache.stats.hits, cache.stats.stored) == (2, 1)
    assert result == scan(tmp_path, cached=False)[0]
    spy.reset()
    again, cache = scan(tmp_path)
    assert (cache.stats.hits, spy.reads, spy.scanned) == (3, [], []), "the edit is in the index now"
    assert again == result


def test_a_same_size_edit_that_restores_the_modification_time_is_still_seen(tmp_path: Path) -> None:
    """Size and mtime can be forged back (``touch -d``, some unpackers); the change time cannot."""
    three_skills(tmp_path)
    scan(tmp_path)
    script = tmp_path / "skills" / "gamma" / "scripts" / "check.sh"
    before = script.read_text()
    time.sleep(0.01)
    script.write_text(before.replace("then", "than"))
    os.utime(script, (HOUR_AGO, HOUR_AGO))
    result, cache = scan(tmp_path)
    assert (cache.stats.hits, cache.stats.stored) == (2, 1)
    assert result == scan(tmp_path, cached=False)[0]


def test_a_racily_clean_file_is_hashed_again_and_still_replayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file whose mtime is not older than the entry may have changed unseen in the same tick: re-hashed."""
    three_skills(tmp_path)
    notes = tmp_path / "skills" / "gamma" / "notes.md"
    future = time.time() + 3600
    os.utime(notes, (future, future))
    scan(tmp_path)
    spy = Spy(monkeypatch)
    result, cache = scan(tmp_path)
    assert spy.reads == [notes.as_posix()]
    assert (cache.stats.hits, spy.scanned) == (3, [])
    assert result == scan(tmp_path, cached=False)[0]


def test_a_forged_hash_in_the_stat_index_costs_a_rescan_never_a_wrong_replay(tmp_path: Path) -> None:
    three_skills(tmp_path)
    scan(tmp_path)
    cache_dir = tmp_path / DEFAULT_CACHE_DIR
    for entry_path in cache_dir.glob("*.json"):
        document = json.loads(entry_path.read_text())
        if document["rel_dir"] == "skills/gamma":
            document["stats"]["scripts/check.sh"][5] = "0" * 64
            entry_path.write_text(json.dumps(document))
            os.utime(entry_path, None)
    result, cache = scan(tmp_path)
    assert (cache.stats.hits, cache.stats.stored) == (2, 1)
    assert result == scan(tmp_path, cached=False)[0]


def test_an_unchanged_repository_starts_no_worker_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for index in range(40):  # more than two batches: a cold scan with jobs=2 uses workers
        write_skill(tmp_path, f"skill-{index:02d}")
    cold, _ = scan(tmp_path, jobs=2)

    def no_workers(*args: object) -> object:
        raise AssertionError("a worker pool was started for skills that did not change")

    monkeypatch.setattr(_runner, "run_in_workers", no_workers)
    warm, cache = scan(tmp_path, jobs=2)
    assert cache.stats.hits == 40
    assert warm == cold


def test_a_checkout_that_moves_every_stat_is_replayed_and_the_index_refreshed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """New inodes and times (a fresh clone, a branch switch and back): files are hashed once, then stat suffices."""
    three_skills(tmp_path / "first")
    cold, _ = scan(tmp_path / "first")
    (tmp_path / "first").rename(tmp_path / "moved")
    shutil.copytree(tmp_path / "moved", tmp_path / "first")  # every file a new inode with a new change time
    spy = Spy(monkeypatch)
    after_checkout, cache = scan(tmp_path / "first")
    assert (cache.stats.hits, spy.scanned) == (3, [])
    assert spy.reads, "new stats: the files are hashed"
    assert after_checkout == cold
    spy.reset()
    again, cache = scan(tmp_path / "first")
    assert (cache.stats.hits, spy.reads) == (3, []), "the refreshed index spares the reads"
    assert again == cold


def test_a_refreshed_index_writes_no_secret_the_stored_entry_had_masked(tmp_path: Path) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    write_skill(tmp_path / "first", "alpha", {f"notes-{token}.md": "Notes.\n"})
    scan(tmp_path / "first")
    (tmp_path / "first").rename(tmp_path / "moved")
    shutil.copytree(tmp_path / "moved", tmp_path / "first")
    _, cache = scan(tmp_path / "first")
    assert cache.stats.hits == 1
    for entry_path in (tmp_path / "first" / DEFAULT_CACHE_DIR).glob("*.json"):
        assert token not in entry_path.read_text()
