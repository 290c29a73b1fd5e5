"""A ``git archive`` tar unpacks as plain data on every supported Python, filters or not.

Debian 12's Python (3.11.2) has no tarfile filters; ``extract_data`` then applies the ``data`` rules
itself. Both paths are run here on one hostile archive (the filterless one by hiding
``tarfile.data_filter``, as that Python lacks it).
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from aces_ci.skill import extract_data


def _archive() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:

        def add(name: str, kind: bytes = tarfile.REGTYPE, data: bytes = b"", link: str = "", mode: int = 0o644) -> None:
            info = tarfile.TarInfo(name)
            info.type, info.size, info.linkname, info.mode = kind, len(data), link, mode
            tar.addfile(info, io.BytesIO(data) if data else None)

        add("skill", tarfile.DIRTYPE, mode=0o755)
        add("skill/SKILL.md", data=b"---\nname: s\n---\nbody\n")
        add("skill/run.sh", data=b"#!/bin/sh\n", mode=0o4755)  # set-uid: cleared
        add("skill/inside", tarfile.SYMTYPE, link="SKILL.md")
        add("skill/escape", tarfile.SYMTYPE, link="../../etc/passwd")
        add("skill/absolute", tarfile.SYMTYPE, link="/etc/passwd")
        add("../outside.txt", data=b"no")
        add("/abs.txt", data=b"no")
        add("skill/fifo", tarfile.FIFOTYPE)
    return buffer.getvalue()


@pytest.mark.parametrize("filters", [True, False], ids=["with-tarfile-filters", "python-without-filters"])
def test_a_hostile_archive_unpacks_only_what_stays_inside_as_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, filters: bool
) -> None:
    if filters and not hasattr(tarfile, "data_filter"):
        pytest.skip("this Python's tarfile has no filters (the other case covers it)")
    if not filters:
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    destination = tmp_path / "tree"
    destination.mkdir()
    with tarfile.open(fileobj=io.BytesIO(_archive()), mode="r:") as tar:
        refused = extract_data(tar, destination)

    assert (destination / "skill" / "SKILL.md").read_bytes().startswith(b"---")
    assert (destination / "skill" / "inside").resolve() == (destination / "skill" / "SKILL.md").resolve()
    assert (destination / "skill" / "run.sh").stat().st_mode & 0o7000 == 0, "no set-uid bit survives"
    assert set(refused) >= {"skill/escape", "skill/absolute", "../outside.txt", "skill/fifo"}
    assert not (destination / "skill" / "escape").is_symlink() and not (destination / "skill" / "fifo").exists()
    assert not (tmp_path / "outside.txt").exists()
    assert sorted(p.name for p in (destination / "skill").iterdir()) == ["SKILL.md", "inside", "run.sh"]
