"""A content-addressed cache of finished rollouts: one JSON file per rollout key.

The key (:meth:`RolloutRequest.cache_key`) covers everything that changes what the agent sees —
case, rendered skills, arm, harness and its version, model settings, seed, run index, fixtures —
so an unchanged rerun finds every rollout here and makes no model call. Only completed rollouts
are stored: an infrastructure error must be retried, not remembered. Scores are not stored
either; they are recomputed on every read, so a scorer change never needs a paid rerun.

Files live at ``<dir>/<key[:2]>/<key>.json``. Each is written to a temporary file and renamed into
place (:func:`os.replace`), so a reader sees a whole entry or none. Entries are not fsynced: a
power cut may lose or empty the newest ones, which then read as damaged, and a damaged or foreign
file is a miss (with a warning), never a failure: the rollout is simply run again. Durability of
paid results is the journal's job, which syncs every record. The engine writes entries from a
worker thread; distinct keys never share a file, so writers need no lock.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..agents import RolloutResult
from ..atomic import write_atomic
from ..redact import get_logger, redacted_json
from ._serialize import result_from_dict, result_to_dict

_log = get_logger(__name__)

CACHE_FORMAT = "aces-ci-rollout"
CACHE_VERSION = 1
_KEY = re.compile(r"^[0-9a-f]{64}$")


class RolloutCache:
    """Reads and writes finished rollouts under ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path_for(self, key: str) -> Path:
        if not _KEY.match(key):
            raise ValueError(f"not a rollout key: {key!r}")
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> RolloutResult | None:
        """The cached rollout for ``key``, or None when absent or unreadable."""
        path = self.path_for(key)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            _log.warning("rollout cache: cannot read %s (%s); running the rollout again", path, exc)
            return None
        try:
            document = json.loads(raw)
            if not isinstance(document, dict) or document.get("format") != CACHE_FORMAT:
                raise ValueError("not an aces-ci rollout cache file")
            if document.get("version") != CACHE_VERSION:
                raise ValueError(f"cache format version {document.get('version')!r}, expected {CACHE_VERSION}")
            result = result_from_dict(document.get("result"))
        except (ValueError, UnicodeDecodeError) as exc:
            _log.warning("rollout cache: ignoring damaged entry %s (%s)", path, exc)
            return None
        if result.key != key or result.status != "completed":
            _log.warning("rollout cache: ignoring %s, which holds a different rollout", path)
            return None
        return result

    def put(self, result: RolloutResult) -> bool:
        """Store a completed rollout (its score left out); False when it was not stored."""
        if result.status != "completed":
            return False
        stored = result_to_dict(result)
        stored["score"] = None
        document = {"format": CACHE_FORMAT, "version": CACHE_VERSION, "result": stored}
        try:
            write_atomic(self.path_for(result.key), redacted_json(document, ensure_ascii=False).encode("utf-8"))
        except OSError as exc:
            # The result is still in the batch and the journal; a cache that cannot be written costs money later.
            _log.warning("rollout cache: cannot write %s (%s)", self.path_for(result.key), exc)
            return False
        return True
