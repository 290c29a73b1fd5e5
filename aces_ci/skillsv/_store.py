"""The persistent coalition-evaluation cache: a killed valuation loses nothing, a rerun pays nothing.

One JSON Lines file, appended as scores arrive. Each batch of records is written with a single
``write`` on a file opened for appending, so once a batch returns its scores are in the file: a
SIGKILL of aces-ci cannot lose them (the kernel holds the written pages), and leaves at worst one
torn last line. The file is synced to the disk at most every ``SYNC_SECONDS`` and when the store is
closed, which also bounds what a crash of the whole machine could lose. Reading skips any line
that is not a whole, well-formed record of this format version
(and counts it), so a damaged or foreign line is never misread as a score. The key of a record is
:func:`~aces_ci.skillsv.store_key`: the scorer's identity, the rendered skill's bytes, the case's
content and the seed — what was scored, not how the estimator got there.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import InputError

STORE_FORMAT = "aces-ci-skillsv-scores"
STORE_VERSION = 1
STORE_FILE = "scores.jsonl"
SYNC_SECONDS = 5.0
_GITIGNORE = "# aces-ci's SkillSV score cache: safe to delete, costly to rebuild\n*\n"


class EvaluationStore:
    """Scores by key, loaded once at open and appended after every scored batch."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / STORE_FILE
        self.scores: dict[str, float] = {}
        self._last_sync = time.monotonic()
        self._unsynced = False
        self.skipped_lines = 0
        """Lines that were not whole records of this version (a torn tail after a kill, a foreign line)."""
        try:
            directory.mkdir(parents=True, exist_ok=True)
            ignore = directory / ".gitignore"
            if not ignore.exists():
                ignore.write_text(_GITIGNORE, encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot use the cache directory: {exc.strerror or exc}", path=str(directory)) from exc
        self._load()

    def _load(self) -> None:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            raise InputError(f"cannot read the score cache: {exc.strerror or exc}", path=str(self.path)) from exc
        for line in data.split(b"\n"):
            if not line.strip():
                continue
            record = _parse(line)
            if record is None:
                self.skipped_lines += 1
                continue
            self.scores[record[0]] = record[1]

    def get(self, key: str) -> float | None:
        return self.scores.get(key)

    def put(self, entries: Sequence[tuple[str, float, Mapping[str, Any]]]) -> None:
        lines = []
        for key, score, about in entries:
            record = {"format": STORE_FORMAT, "version": STORE_VERSION, "key": key, "score": score, **about}
            lines.append(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
            self.scores[key] = score
        payload = "".join(lines).encode("utf-8", errors="backslashreplace")
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                # One write per batch: after a kill the file holds whole lines and at most one torn tail.
                written = os.write(fd, payload)
                while written < len(payload):
                    written += os.write(fd, payload[written:])
                self._unsynced = True
                if time.monotonic() - self._last_sync >= SYNC_SECONDS:
                    os.fsync(fd)
                    self._last_sync, self._unsynced = time.monotonic(), False
            finally:
                os.close(fd)
        except OSError as exc:
            raise InputError(f"cannot write the score cache: {exc.strerror or exc}", path=str(self.path)) from exc

    def close(self) -> None:
        """Sync what was appended since the last sync."""
        if not self._unsynced:
            return
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            raise InputError(f"cannot sync the score cache: {exc.strerror or exc}", path=str(self.path)) from exc
        self._unsynced = False


def _parse(line: bytes) -> tuple[str, float] | None:
    try:
        record = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(record, dict) or record.get("format") != STORE_FORMAT or record.get("version") != STORE_VERSION:
        return None
    key, score = record.get("key"), record.get("score")
    if not isinstance(key, str) or isinstance(score, bool) or not isinstance(score, int | float):
        return None
    if not math.isfinite(score):
        return None
    return key, float(score)
