"""One way to write a file that others read: whole or not at all.

Reports, baselines, cache entries and state files are read by later runs, CI steps and people.
A crash (or a full disk) half-way through a plain ``write`` leaves a torn file that looks valid
to nobody and damaged to everybody; writing to a temporary sibling and renaming it into place
(:func:`os.replace`, atomic on POSIX and Windows) means a reader sees the old file or the new
one, never part of either. The rename is not synced: durability of paid results is the rollout
journal's job, which syncs every record.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .errors import InputError


@contextlib.contextmanager
def _sibling(path: Path, data: bytes) -> Iterator[str]:
    """A temporary file beside ``path`` holding ``data`` with the umask's permissions; removed unless moved."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # mkstemp makes 0600; a report is as readable as any file the user writes
        yield tmp
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary sibling and a rename; parent folders are created.

    Raises :class:`OSError` when the file cannot be written; the temporary file never stays behind.
    The file gets the usual permissions of the user's umask.
    """
    with _sibling(path, data) as tmp:
        os.replace(tmp, path)


def write_output(path: Path, data: bytes | str, what: str) -> None:
    """Write a file the user asked for (``--json out.json``): atomically, UTF-8, errors naming the path.

    A path that cannot be written is the user's input, so the failure is an :class:`InputError`
    (exit 2) saying which report and why. Text from skill files may hold lone surrogates (bytes
    that were not UTF-8); they are written as backslash escapes rather than failing the run.
    """
    payload = data.encode("utf-8", errors="backslashreplace") if isinstance(data, str) else data
    try:
        write_atomic(path, payload)
    except OSError as exc:
        raise InputError(f"cannot write the {what}: {exc.strerror or exc}", path=str(path)) from None


def write_new(path: Path, data: bytes) -> bool:
    """Create ``path`` holding ``data`` whole, unless an entry of that name exists: then write nothing, return False.

    For files a command scaffolds (``aces-ci init``), which must never replace the author's work:
    the content goes to a temporary sibling that is then hard-linked into place, and a link never
    replaces an existing entry, so even a file created a moment earlier by someone else survives.
    Where hard links are not supported, an exclusive create (``O_EXCL``) keeps the no-overwrite rule.
    """
    if os.path.lexists(path):
        return False
    with _sibling(path, data) as tmp:
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        except OSError:
            try:
                with open(path, "xb") as handle:
                    handle.write(data)
            except FileExistsError:
                return False
    return True
