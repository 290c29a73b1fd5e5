"""Reading files from an untrusted repository without crashing or blowing memory.

A skill repo may hold a 10 MB SKILL.md, a PNG named ``notes.md``, Latin-1 text, a FIFO, a
committed link to ``/dev/zero`` or a symlink loop. Every file aces-ci reads from a repository goes
through :func:`read_head` here: regular files only (checked on the opened descriptor, so a file
swapped after a ``stat`` is still caught), and never more than the cap plus one byte, whatever
``st_size`` claims (``/dev/zero`` and ``/proc`` files report 0). :func:`read_text` returns a
:class:`TextFile` recording what went wrong; :func:`read_bounded` is the strict form for
documents that must be whole (a baseline, a result file) and raises an :class:`InputError`
naming the file and the limit.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import InputError
from ._model import ParseProblem, Resource, Skill, TextFile

MAX_TEXT_BYTES = 2 * 1024 * 1024
"""Read at most this much of any text file; the rest is reported, not parsed."""

_BINARY_SNIFF = 8192


def looks_binary(head: bytes) -> bool:
    """NUL bytes in the first block mark a binary file, as git and grep decide."""
    return b"\x00" in head[:_BINARY_SNIFF]


class Refused(Exception):
    """A file :func:`read_head` would not read: ``code`` for a :class:`ParseProblem`, ``reason`` for people."""

    def __init__(self, code: str, reason: str, size: int = 0, *, missing: bool = False, kind: str = "") -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.size = size
        self.missing = missing
        self.kind = kind
        """For a file that is not regular: what it is instead ("a FIFO", "a character device")."""


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "some other kind of file")


def read_head(path: Path, max_bytes: int) -> tuple[bytes, os.stat_result]:
    """At most ``max_bytes + 1`` bytes of the regular file ``path`` (one more tells the caller it is larger).

    The kind is checked twice: ``stat`` first, so a device is never even opened, then ``fstat`` on
    the descriptor, so a FIFO swapped in between is still refused (``O_NONBLOCK`` keeps its
    ``open`` from waiting for a writer). The read is capped by count, not by ``st_size``.
    """
    try:
        before = path.stat()
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop on older Pythons
        raise Refused("unreadable", f"cannot stat: {exc}", missing=isinstance(exc, FileNotFoundError)) from None
    if not stat.S_ISREG(before.st_mode):
        raise Refused("not-a-file", "not a regular file", kind=_kind(before.st_mode))
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
        with os.fdopen(fd, "rb") as handle:
            st = os.fstat(handle.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise Refused("not-a-file", "not a regular file", kind=_kind(st.st_mode))
            return handle.read(max_bytes + 1), st
    except OSError as exc:
        raise Refused("unreadable", str(exc), before.st_size) from None


def _describe_limit(max_bytes: int) -> str:
    if max_bytes >= 1024 * 1024 and max_bytes % (1024 * 1024) == 0:
        return f"{max_bytes // (1024 * 1024)} MiB"
    if max_bytes >= 1024 and max_bytes % 1024 == 0:
        return f"{max_bytes // 1024} KiB"
    return f"{max_bytes:,} bytes"


def read_bounded(path: Path, *, what: str, max_bytes: int, inside: Path | None = None) -> bytes:
    """The whole of a regular file no larger than ``max_bytes``, or an :class:`InputError` naming file and limit.

    ``inside`` is the repository the path was written in (by aces.yml, a committed file): the file
    the path finally names, links resolved, must lie inside it too, so a committed link to
    ``/dev/zero`` or ``~/.ssh/id_rsa`` is refused before anything is opened. A path the operator
    typed on the command line passes ``inside=None``: where it points is their choice, but the
    kind and size checks still apply.
    """
    limit = _describe_limit(max_bytes)
    if inside is not None and not is_within(path, inside):
        raise InputError(f"{what} leads outside the repository {inside} (links followed): not read", path=str(path))
    try:
        data, _ = read_head(path, max_bytes)
    except Refused as refused:
        if refused.missing:
            raise InputError(f"{what} not found", path=str(path)) from None
        reason = f"{refused.reason} ({refused.kind})" if refused.kind else refused.reason
        message = f"{what} is unusable: {reason}; only regular files up to {limit} are read"
        raise InputError(message, path=str(path)) from None
    if len(data) > max_bytes:
        raise InputError(f"{what} is larger than the {limit} limit: not read", path=str(path))
    return data


def _line_of_offset(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def read_text(path: Path, rel: str, max_bytes: int = MAX_TEXT_BYTES) -> TextFile:
    """Read ``path`` as UTF-8 text, tolerating every kind of bad file.

    Invalid UTF-8 is decoded with replacement characters and reported at the line of the
    first bad byte; binary files, special files and unreadable files yield ``text=None``.
    """
    problems: list[ParseProblem] = []
    try:
        data, st = read_head(path, max_bytes)
    except Refused as refused:
        return TextFile(path, rel, refused.size, None, problems=(ParseProblem(refused.code, refused.reason),))
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
