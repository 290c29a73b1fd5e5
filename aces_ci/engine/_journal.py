"""A crash-safe journal of rollouts: append-only JSON Lines, one line per finished rollout.

Each line holds one rollout's whole ungraded result, keyed by its rollout key, with the case,
condition, replicate and seed it belongs to and the label of the batch that ran it (metadata
only). An engine reads its journal once when it opens and appends from then on; any later run
that finds a key completed in the journal reuses it, whichever batch or command wrote it, so
``--runs 5`` after ``--runs 3`` pays only for the two new replicates. Rollouts that ended in an
infrastructure error are run again. A line torn by a crash (no newline at the end, not valid
JSON) is dropped with a warning; any other unreadable line is skipped with a warning; lines of
another format version (an older aces-ci) are ignored with one note. None of it is ever fatal.

What is guaranteed: once :meth:`Journal.append` returns, or the awaitable of
:meth:`JournalAppender.append` completes, the record's line is on stable storage. It was handed
to the kernel with ``write`` on an ``O_APPEND`` descriptor as soon as the record was ready, and
then synced with ``fdatasync`` (``fsync`` where the platform has no ``fdatasync``), which flushes
the data and the new file size, everything reading the line back needs; only timestamps are
left to the kernel. When the file (or a directory for it) is created, the directory holding the
new entry is synced too, so the file itself survives a crash. A record therefore survives SIGKILL
of the process as soon as its ``write`` returns, and a power cut or kernel crash as soon as the
sync returns; the engine reports a rollout finished only after that. A record written but not yet
synced may or may not survive a machine crash; a crash in the middle of a write leaves at most a
torn last line (cut short, or zero bytes on some file systems), which the next run drops.

Syncing is the slow part (milliseconds on a busy disk), so :class:`JournalAppender` syncs on a
worker thread and in groups: every record written while one sync runs is covered by the next,
each caller waiting only until its own record is safe.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

from ..agents import RolloutResult
from ..errors import InputError
from ..redact import get_logger, redacted_json
from ._serialize import result_from_dict, result_to_dict

_log = get_logger(__name__)

JOURNAL_VERSION = 2
"""Version 2 keys records by rollout key alone and holds ungraded results with their artifacts;
version-1 lines (keyed by batch, with a score) are ignored, never misread."""

_sync_data = getattr(os, "fdatasync", os.fsync)
"""``fdatasync`` skips the timestamp update ``fsync`` also waits for; macOS and Windows lack it."""


def _sync_directory(directory: Path) -> None:
    """Make a new entry of ``directory`` durable (POSIX: sync the directory itself); a no-op where unsupported."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return  # Windows cannot open a directory; its file system journals the entry itself
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse to sync a directory; the file's own sync still holds its data
    finally:
        os.close(fd)


class Journal:
    """The journal file at ``path``; open it with :meth:`open` or ``with``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._lock = threading.Lock()
        """Held while syncing, so :meth:`close` never closes a descriptor a worker thread is syncing."""
        self._unusable: OSError | None = None
        """Why the journal takes no more records: a failed write that could not be cut back off."""
        self.batches: Counter[str] = Counter()
        """Lines read at :meth:`open` per batch label: the rollouts each label paid for in earlier sessions."""

    def open(self) -> dict[str, RolloutResult]:
        """Open for appending and return the record of every rollout key: its latest completed one, else its latest."""
        records = self._load()
        new_entries = [path for path in (self.path, *self.path.parents) if not path.exists()]
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:
            raise InputError(f"cannot open the rollout journal for writing: {exc}", path=str(self.path)) from exc
        for path in reversed(new_entries):  # the file, and any directory made for it, must outlive a crash
            _sync_directory(path.parent)
        return records

    def read(self) -> dict[str, RolloutResult]:
        """Every rollout key's record, without opening for appending or repairing anything (``cache export``):
        a torn last line is skipped, not cut off."""
        data = self._bytes()
        records: dict[str, RolloutResult] = {}
        other_versions: list[int] = []
        for number, line in enumerate(data.split(b"\n"), start=1):
            if line.strip():
                self._take(line, number, records, other_versions, quiet=True)
        return records

    def _bytes(self) -> bytes:
        """The journal as it is on disk; empty when there is none yet."""
        try:
            return self.path.read_bytes()
        except FileNotFoundError:
            return b""
        except OSError as exc:
            raise InputError(f"cannot read the rollout journal: {exc}", path=str(self.path)) from exc

    def _load(self) -> dict[str, RolloutResult]:
        data = self._bytes()
        lines = data.split(b"\n")
        torn = lines.pop()  # the bytes after the last newline: empty unless the last write was cut short
        records: dict[str, RolloutResult] = {}
        other_versions: list[int] = []
        for number, line in enumerate(lines, start=1):
            if line.strip():
                self._take(line, number, records, other_versions)
        if torn.strip():
            if self._take(torn, len(lines) + 1, records, other_versions, quiet=True):
                self._append_raw(b"\n")  # complete record, only its newline was lost
            else:
                _log.warning(
                    "%s:%d: ignoring a torn last line (the previous run stopped while writing it)",
                    self.path,
                    len(lines) + 1,
                )
                self._truncate(len(data) - len(torn))
        if other_versions:
            _log.warning(
                "%s: ignoring %d line(s) written in another journal format (first at line %d; this aces-ci "
                "writes version %d); their rollouts will run again",
                self.path,
                len(other_versions),
                other_versions[0],
                JOURNAL_VERSION,
            )
        return records

    def _take(
        self,
        line: bytes,
        number: int,
        records: dict[str, RolloutResult],
        other_versions: list[int],
        *,
        quiet: bool = False,
    ) -> bool:
        try:
            record = json.loads(line)
            if not isinstance(record, dict) or "v" not in record:
                raise ValueError("not a journal record")
            if record["v"] != JOURNAL_VERSION:
                other_versions.append(number)
                return True
            result = result_from_dict(record.get("result"))
            if record.get("key") != result.key:
                raise ValueError("the record's key is not its result's")
        except (ValueError, UnicodeDecodeError) as exc:
            if not quiet:
                _log.warning("%s:%d: skipping an unreadable journal line (%s)", self.path, number, exc)
            return False
        self.batches[str(record.get("batch") or "")] += 1
        earlier = records.get(result.key)
        if earlier is None or result.status == "completed" or earlier.status != "completed":
            records[result.key] = result
        return True

    def _truncate(self, size: int) -> None:
        try:
            os.truncate(self.path, size)
        except OSError as exc:
            raise InputError(f"cannot repair the torn rollout journal: {exc}", path=str(self.path)) from exc

    def _append_raw(self, data: bytes) -> None:
        try:
            with open(self.path, "ab") as handle:
                handle.write(data)
        except OSError as exc:
            raise InputError(f"cannot repair the rollout journal: {exc}", path=str(self.path)) from exc

    def encode(
        self, result: RolloutResult, *, rollout: Mapping[str, str | int] | None = None, batch: str | None = None
    ) -> bytes:
        """The journal line of ``result``, newline included.

        ``rollout`` is the request's :meth:`~aces_ci.agents.RolloutRequest.identity` (case,
        condition, replicate, seed, target), ``batch`` the label of the run that made it; both are
        for readers of the file, the journal itself resumes by key.
        """
        record = {
            "v": JOURNAL_VERSION,
            "key": result.key,
            "batch": batch,
            "rollout": dict(rollout) if rollout is not None else None,
            "result": result_to_dict(result),
        }
        return redacted_json(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"

    def write(self, line: bytes) -> None:
        """Append one encoded line (not yet synced: see :meth:`sync`). It survives the process dying from now on.

        A write the disk refuses half-way is cut back off, so no later line is glued to a torn one;
        if even that fails, the journal refuses every further write rather than bury good records
        behind garbage. Raises OSError in both cases, and when the journal is closed.
        """
        if self._fd is None:
            raise OSError("the journal is closed")
        if self._unusable is not None:
            raise OSError(f"the journal stopped taking records after a failed write ({self._unusable})")
        start = os.lseek(self._fd, 0, os.SEEK_END)
        try:
            written = 0
            while written < len(line):  # a regular file takes it all at once; a signal may still cut it short
                written += os.write(self._fd, line[written:])
        except OSError as exc:
            try:
                os.ftruncate(self._fd, start)
            except OSError:
                self._unusable = exc
            raise

    def sync(self) -> None:
        """Force every line written so far to stable storage. Safe to call from a worker thread."""
        with self._lock:
            if self._fd is None:
                raise OSError("the journal is closed")
            _sync_data(self._fd)

    def append(
        self, result: RolloutResult, *, rollout: Mapping[str, str | int] | None = None, batch: str | None = None
    ) -> None:
        """Write one finished rollout and force it to disk before returning."""
        if self._fd is None:
            raise RuntimeError("the journal is not open")
        self.write(self.encode(result, rollout=rollout, batch=batch))
        self.sync()

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> dict[str, RolloutResult]:
        return self.open()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class JournalAppender:
    """Appends to an open :class:`Journal` from the event loop without waiting on the disk: group commit.

    Each record is written at once (a ``write`` only reaches the page cache, so it is cheap); the
    sync runs on a worker thread, and every record written while one sync runs is covered by the
    next. Concurrent rollouts thus share syncs, and a serial batch overlaps each sync with its
    next rollout.
    """

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self._unsynced: list[asyncio.Future[None]] = []
        self._syncer: asyncio.Task[None] | None = None

    async def append(
        self, result: RolloutResult, *, rollout: Mapping[str, str | int] | None = None, batch: str | None = None
    ) -> None:
        """Return once ``result`` is on stable storage; raise OSError when it could not be written or synced."""
        self.journal.write(self.journal.encode(result, rollout=rollout, batch=batch))
        safe = asyncio.get_running_loop().create_future()
        self._unsynced.append(safe)
        if self._syncer is None:
            self._syncer = asyncio.create_task(self._sync_groups())
        await safe

    async def _sync_groups(self) -> None:
        group: list[asyncio.Future[None]] = []
        try:
            while self._unsynced:
                # Every record of the group was written before this sync starts, so the sync covers it.
                group, self._unsynced = self._unsynced, []
                failure: Exception | None = None
                try:
                    await asyncio.to_thread(self.journal.sync)
                except Exception as exc:  # every waiter must hear of it; none may wait forever
                    failure = exc
                for safe in group:
                    if safe.done():  # its caller was cancelled
                        continue
                    if failure is None:
                        safe.set_result(None)
                    else:
                        safe.set_exception(failure)
        finally:
            self._syncer = None
            # Only when this task itself is cancelled (the event loop shutting down) can records be
            # left unconfirmed; their callers are told so rather than left waiting.
            for safe in (*group, *self._unsynced):
                if not safe.done():
                    safe.cancel()
            self._unsynced = []
