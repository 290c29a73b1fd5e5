"""A content-addressed cache of finished rollouts: one JSON file per rollout key.

The key (:meth:`RolloutRequest.cache_key`) covers everything that changes what the agent sees —
case, rendered skills, the skill under test, condition, replicate, the harness's cache identity,
model settings, seed, fixtures — so an unchanged rerun finds every rollout here and makes no model
call. Only completed rollouts are stored: an infrastructure error must be retried, not
remembered. Entries are ungraded (the workspace's artifacts included), so any grader, today's or
a new one, grades a cached rollout again without a paid rerun. Each entry also names the case,
condition, replicate and seed it belongs to, for a person reading the directory.

Files live at ``<dir>/<key[:2]>/<key>.json``. Each is written to a temporary file and renamed into
place (:func:`os.replace`), so a reader sees a whole entry or none. Entries are not fsynced: a
power cut may lose or empty the newest ones, which then read as damaged, and a damaged or foreign
file is a miss (with a warning), never a failure: the rollout is simply run again. An entry of
another format version (an older aces-ci) is a miss too, noted once per cache, never misread.
Durability of paid results is the journal's job, which syncs every record. The engine writes
entries from a worker thread; distinct keys never share a file, so writers need no lock.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from ..agents import RolloutResult
from ..atomic import write_atomic
from ..errors import InputError
from ..redact import get_logger, redacted_json
from ..skill import read_bounded
from ._serialize import result_from_dict, result_to_dict

_log = get_logger(__name__)

CACHE_FORMAT = "aces-ci-rollout"
CACHE_VERSION = 2
"""Version 2 entries are ungraded results with their workspace artifacts, keyed by the v2 rollout key."""
MAX_ENTRY_BYTES = 64 * 1024 * 1024
"""Far above any entry aces-ci writes (replies, trajectory and artifacts are each capped); a larger file is a miss."""
_KEY = re.compile(r"^[0-9a-f]{64}$")


class RolloutStore(Protocol):
    """Where the engine looks a rollout up before paying for it, and puts a finished one.

    :class:`RolloutCache` is the store of every run; a merge of sharded trials hands the engine a read-only
    store of the shards' part files instead (:mod:`aces_ci.trials._shards`), so the merge replays, never runs.
    """

    def get(self, key: str) -> RolloutResult | None: ...

    def put(self, result: RolloutResult, rollout: Mapping[str, str | int] | None = None) -> bool: ...


GITIGNORE = "# Written by aces-ci: a cache of paid rollouts, never committed.\n*\n"


class RolloutCache:
    """Reads and writes finished rollouts under ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._ignored = False
        self.other_versions = 0
        """Entries of another format version met so far (each a miss)."""

    def path_for(self, key: str) -> Path:
        if not _KEY.match(key):
            raise ValueError(f"not a rollout key: {key!r}")
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> RolloutResult | None:
        """The cached rollout for ``key``, or None when absent or unreadable."""
        path = self.path_for(key)
        if not path.exists():
            return None
        try:
            # A cache restored in CI may hold anything at a key's path: read it as untrusted, within a cap.
            raw = read_bounded(path, what="rollout cache entry", max_bytes=MAX_ENTRY_BYTES, inside=self.directory)
        except InputError as exc:
            _log.warning("rollout cache: %s; running the rollout again", exc)
            return None
        try:
            document = json.loads(raw)
            if not isinstance(document, dict) or document.get("format") != CACHE_FORMAT:
                raise ValueError("not an aces-ci rollout cache file")
            if document.get("version") != CACHE_VERSION:
                self._note_other_version(path, document.get("version"))
                return None
            result = result_from_dict(document.get("result"))
        except (ValueError, UnicodeDecodeError) as exc:
            _log.warning("rollout cache: ignoring damaged entry %s (%s)", path, exc)
            return None
        if result.key != key or result.status != "completed":
            _log.warning("rollout cache: ignoring %s, which holds a different rollout", path)
            return None
        return result

    def _note_other_version(self, path: Path, version: object) -> None:
        self.other_versions += 1
        if self.other_versions == 1:
            _log.warning(
                "rollout cache: ignoring %s, written in cache format %r (this aces-ci writes %d); such entries "
                "are misses and their rollouts run again",
                path,
                version,
                CACHE_VERSION,
            )

    def _ignore_in_git(self) -> None:
        """A ``.gitignore`` of ``*`` in the cache directory, so ``git add -A`` never commits paid rollouts."""
        if self._ignored:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        marker = self.directory / ".gitignore"
        if not marker.exists():
            marker.write_text(GITIGNORE, encoding="ascii")
        self._ignored = True

    def put(self, result: RolloutResult, rollout: Mapping[str, str | int] | None = None) -> bool:
        """Store a completed rollout, with the request's identity for readers; False when it was not stored."""
        if result.status != "completed":
            return False
        document = {
            "format": CACHE_FORMAT,
            "version": CACHE_VERSION,
            "rollout": dict(rollout) if rollout is not None else None,
            "result": result_to_dict(result),
        }
        try:
            self._ignore_in_git()
            write_atomic(self.path_for(result.key), redacted_json(document, ensure_ascii=False).encode("utf-8"))
        except OSError as exc:
            # The result is still in the batch and the journal; a cache that cannot be written costs money later.
            _log.warning("rollout cache: cannot write %s (%s)", self.path_for(result.key), exc)
            return False
        return True
