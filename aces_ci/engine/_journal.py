"""A crash-safe journal of one batch of rollouts: append-only JSON Lines, one line per finished rollout.

Each line holds the whole scored result and is flushed to disk (``fsync``) before the next
rollout's result is written, so a batch killed at any moment keeps everything it had paid for.
Restarted with the same journal, the batch reloads the records of its own run (same
``run_id``), skips the rollouts they completed, and retries the ones that ended in an
infrastructure error. A line torn by the crash (no newline at the end, not valid JSON) is dropped
with a warning; any other unreadable line is skipped with a warning. Neither is ever fatal.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from types import TracebackType

from ..agents import RolloutResult
from ..errors import InputError
from ._serialize import result_from_dict, result_to_dict

_log = logging.getLogger(__name__)

JOURNAL_VERSION = 1


class Journal:
    """The journal file at ``path`` for the run ``run_id``; open it with :meth:`open` or ``with``."""

    def __init__(self, path: Path, run_id: str) -> None:
        self.path = path
        self.run_id = run_id
        self._fd: int | None = None

    def open(self) -> dict[str, RolloutResult]:
        """Open for appending and return this run's latest record per rollout key."""
        records = self._load()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:
            raise InputError(f"cannot open the rollout journal for writing: {exc}", path=str(self.path)) from exc
        return records

    def _load(self) -> dict[str, RolloutResult]:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise InputError(f"cannot read the rollout journal: {exc}", path=str(self.path)) from exc
        lines = data.split(b"\n")
        torn = lines.pop()  # the bytes after the last newline: empty unless the last write was cut short
        records: dict[str, RolloutResult] = {}
        for number, line in enumerate(lines, start=1):
            if line.strip():
                self._take(line, number, records)
        if torn.strip():
            if self._take(torn, len(lines) + 1, records, quiet=True):
                self._append_raw(b"\n")  # complete record, only its newline was lost
            else:
                _log.warning(
                    "%s:%d: ignoring a torn last line (the previous run stopped while writing it)",
                    self.path,
                    len(lines) + 1,
                )
                self._truncate(len(data) - len(torn))
        return records

    def _take(self, line: bytes, number: int, records: dict[str, RolloutResult], *, quiet: bool = False) -> bool:
        try:
            record = json.loads(line)
            if not isinstance(record, dict) or record.get("v") != JOURNAL_VERSION:
                raise ValueError("not a version-1 journal record")
            result = result_from_dict(record.get("result"))
        except (ValueError, UnicodeDecodeError) as exc:
            if not quiet:
                _log.warning("%s:%d: skipping an unreadable journal line (%s)", self.path, number, exc)
            return False
        if record.get("run") == self.run_id:
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

    def append(self, result: RolloutResult) -> None:
        """Write one finished rollout and force it to disk before returning."""
        if self._fd is None:
            raise RuntimeError("the journal is not open")
        record = {"v": JOURNAL_VERSION, "run": self.run_id, "key": result.key, "result": result_to_dict(result)}
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        written = 0
        while written < len(line):
            written += os.write(self._fd, line[written:])
        os.fsync(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> dict[str, RolloutResult]:
        return self.open()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
