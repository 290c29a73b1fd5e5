"""Unpack a ``git archive`` tar as plain data: regular files, folders and links that stay inside.

Python's tarfile ``data`` filter (3.11.4 and later, and backported security releases) refuses absolute
names, names and links that leave the destination, devices and FIFOs, and clears set-uid bits. The
Python of Debian 12 (3.11.2) has no filters at all, and ``extractall(filter=...)`` is then a
TypeError; there the same rules are applied here, so a skill at a git ref or a pull request's pinned
tree unpacks the same way on every supported Python. A refused member is skipped and named, never
fatal: one hostile link costs that link, not the run.
"""

from __future__ import annotations

import copy
import os
import tarfile
from pathlib import Path

_SAFE_MODE_BITS = 0o755
"""Permission bits kept from the archive (no set-uid, set-gid, sticky or group/other write)."""


def _inside(root: str, path: str) -> bool:
    return os.path.commonpath([root, path]) == root


def _portable_data_filter(member: tarfile.TarInfo, destination: str) -> tarfile.TarInfo | None:
    """The ``data`` filter's rules for a Python without :func:`tarfile.data_filter`; None refuses ``member``."""
    root = os.path.realpath(destination)
    if os.path.isabs(member.name) or not _inside(root, os.path.realpath(os.path.join(root, member.name))):
        return None
    if member.issym():
        target = os.path.join(os.path.dirname(os.path.join(root, member.name)), member.linkname)
        if os.path.isabs(member.linkname) or not _inside(root, os.path.realpath(target)):
            return None
    elif member.islnk():
        if os.path.isabs(member.linkname) or not _inside(root, os.path.realpath(os.path.join(root, member.linkname))):
            return None
    elif not (member.isfile() or member.isdir()):
        return None  # devices, FIFOs
    safe = copy.copy(member)
    owner = 0o600 if member.isfile() else 0o700
    safe.mode = (member.mode & _SAFE_MODE_BITS) | owner
    safe.uid, safe.gid, safe.uname, safe.gname = os.getuid(), os.getgid(), "", ""
    return safe


def extract_data(tar: tarfile.TarFile, destination: Path) -> tuple[str, ...]:
    """Unpack ``tar`` into ``destination`` under the ``data`` rules; the names of the members refused."""
    refused: list[str] = []
    if hasattr(tarfile, "data_filter"):

        def keep(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
            try:
                return tarfile.data_filter(member, path)
            except tarfile.FilterError:
                refused.append(member.name)
                return None

        tar.extractall(destination, filter=keep)
        return tuple(refused)
    kept = []
    for member in tar.getmembers():
        safe = _portable_data_filter(member, str(destination))
        if safe is None:
            refused.append(member.name)
        else:
            kept.append(safe)
    tar.extractall(destination, members=kept)
    return tuple(refused)
