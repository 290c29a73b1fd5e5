"""Reading files from an untrusted repository without crashing or blowing memory.

A skill repo may hold a 10 MB SKILL.md, a PNG named ``notes.md``, Latin-1 text, a FIFO or a
symlink loop. Every reader here returns a :class:`TextFile` and records what went wrong.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ._model import ParseProblem, Resource, Skill, TextFile

MAX_TEXT_BYTES = 2 * 1024 * 1024
"""Read at most this much of any text file; the rest is reported, not parsed."""

_BINARY_SNIFF = 8192


def looks_binary(head: bytes) -> bool:
    """NUL bytes in the first block mark a binary file, as git and grep decide."""
    return b"\x00" in head[:_BINARY_SNIFF]


def _line_of_offset(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def read_text(path: Path, rel: str, max_bytes: int = MAX_TEXT_BYTES) -> TextFile:
    """Read ``path`` as UTF-8 text, tolerating every kind of bad file.

    Invalid UTF-8 is decoded with replacement characters and reported at the line of the
    first bad byte; binary files, special files and unreadable files yield ``text=None``.
    """
    problems: list[ParseProblem] = []
    try:
        st = path.stat()
    except OSError as exc:
        return TextFile(path, rel, 0, None, problems=(ParseProblem("unreadable", f"cannot stat: {exc}"),))
    if not stat.S_ISREG(st.st_mode):
        return TextFile(path, rel, 0, None, problems=(ParseProblem("not-a-file", "not a regular file"),))
    try:
        # O_NONBLOCK guards against a FIFO swapped in after the stat above.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        return TextFile(path, rel, st.st_size, None, problems=(ParseProblem("unreadable", str(exc)),))
    truncated = len(data) > max_bytes
    if truncated:
        data = data[:max_bytes]
        problems.append(
            ParseProblem(
                "too-large",
                f"file is {st.st_size:,} bytes; only the first {max_bytes:,} bytes were examined",
            )
        )
    if looks_binary(data):
        problems.append(ParseProblem("binary", "file holds NUL bytes: treated as binary, not parsed"))
        return TextFile(path, rel, st.st_size, None, truncated, tuple(problems))
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
        problems.append(ParseProblem("bom", "file starts with a UTF-8 byte-order mark", 1))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A cut at the read cap may split a multi-byte character: that is not the author's fault.
        if truncated and exc.start >= len(data) - 4:
            text = data[: exc.start].decode("utf-8", errors="replace")
        else:
            text = data.decode("utf-8", errors="replace")
            problems.append(
                ParseProblem(
                    "invalid-utf8",
                    f"invalid UTF-8 at byte {exc.start}: decoded with replacement characters",
                    _line_of_offset(data, exc.start),
                )
            )
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return TextFile(path, rel, st.st_size, text, truncated, tuple(problems))


def is_within(path: Path, root: Path) -> bool:
    """Whether ``path`` (resolved, following links) stays inside ``root``."""
    try:
        resolved = path.resolve(strict=False)
    except (OSError, RuntimeError):  # RuntimeError: symlink loop on older Pythons
        return False
    root_resolved = root.resolve()
    return resolved == root_resolved or root_resolved in resolved.parents


def read_resource(skill: Skill, resource: Resource) -> TextFile | None:
    """Read a file of the skill under the size cap, or None for a link leading out of the repository.

    Every reader of skill files goes through here: a symlink to ``~/.ssh/id_rsa`` must never end up
    in a report or a staged workspace.
    """
    if resource.is_symlink and not is_within(resource.path, skill.repo_root):
        return None
    return read_text(resource.path, skill.rel_path(resource.rel))
