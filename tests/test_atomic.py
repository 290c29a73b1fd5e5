"""The one file writer: whole files or none, and a scaffold that never replaces the author's file."""

from __future__ import annotations

import os

from aces_ci.atomic import write_atomic, write_new


def test_write_atomic_replaces_whole_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "deep" / "report.json"
    write_atomic(target, b"first")
    write_atomic(target, b"second")
    assert target.read_bytes() == b"second"
    assert sorted(p.name for p in target.parent.iterdir()) == ["report.json"]
    mask = os.umask(0)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask


def test_write_new_creates_once_and_never_overwrites(tmp_path):
    target = tmp_path / "evals" / "evals.json"
    assert write_new(target, b"scaffold") is True
    assert write_new(target, b"again") is False
    assert target.read_bytes() == b"scaffold"
    assert sorted(p.name for p in target.parent.iterdir()) == ["evals.json"]


def test_write_new_leaves_a_dangling_link_alone(tmp_path):
    target = tmp_path / "evals.json"
    target.symlink_to(tmp_path / "nowhere.json")
    assert write_new(target, b"x") is False
    assert target.is_symlink() and not (tmp_path / "nowhere.json").exists()
