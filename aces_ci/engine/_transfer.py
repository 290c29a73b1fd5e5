"""Carry finished rollouts between machines: the rollout cache (and a journal) as one file, and back.

A matrix job's cache and journal die with its runner. ``aces-ci cache export`` writes every
completed rollout of a cache directory — and of a journal, which holds the rollouts a killed run
finished but may not have cached — into one gzip'd JSON Lines archive, one cache entry a line, in
key order (the same rollouts give the same bytes). ``aces-ci cache import`` adds each entry whose
key the cache lacks: the cache is content-addressed, so importing archives in any order, or twice, is a
union, and a key already present is left as it is.

What travels is what the cache already holds: completed, ungraded results, redacted when they were
stored and redacted again on the way out. An archive is read as untrusted (restored by ``actions/cache``
or downloaded): each line within :data:`~aces_ci.engine._cache.MAX_ENTRY_BYTES`, its key a rollout
key, its result valid and completed, the key its own; anything else is skipped with a warning naming
the line, and only the cache's own writer places an entry (the key picks the file, never the archive).
"""

from __future__ import annotations

import gzip
import json
import zlib
from dataclasses import dataclass
from pathlib import Path

from ..agents import RolloutResult
from ..atomic import write_atomic
from ..errors import InputError
from ..redact import get_logger, redacted_json
from ._cache import _KEY, CACHE_FORMAT, CACHE_VERSION, MAX_ENTRY_BYTES, RolloutCache
from ._journal import Journal
from ._serialize import result_from_dict, result_to_dict

_log = get_logger(__name__)


@dataclass(frozen=True)
class Imported:
    """What ``cache import`` did with an archive's lines."""

    added: int
    present: int
    """Keys the cache already held (left as they were)."""
    skipped: int
    """Lines that were not a valid completed rollout (each warned about)."""


def _cached(cache: RolloutCache) -> dict[str, RolloutResult]:
    found: dict[str, RolloutResult] = {}
    if not cache.directory.is_dir():
        return found
    for path in sorted(cache.directory.glob("??/*.json")):
        key = path.stem
        if _KEY.match(key) and path.parent.name == key[:2]:
            result = cache.get(key)  # validated, completed, its own key; a damaged entry is a miss
            if result is not None:
                found[key] = result
    return found


def export_rollouts(cache: RolloutCache, journal: Path | None, out: Path) -> int:
    """Write every completed rollout of ``cache`` (and ``journal``) to the archive ``out``; the number written."""
    results = _cached(cache)
    if journal is not None:
        for key, result in Journal(journal).read().items():
            if result.status == "completed":
                results.setdefault(key, result)
    lines = []
    for key in sorted(results):
        entry = {
            "format": CACHE_FORMAT,
            "version": CACHE_VERSION,
            "rollout": None,
            "result": result_to_dict(results[key]),
        }
        lines.append(redacted_json(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")
    write_atomic(out, gzip.compress(b"".join(lines), mtime=0))
    return len(lines)


def _entry(line: bytes) -> RolloutResult:
    document = json.loads(line)
    if not isinstance(document, dict) or document.get("format") != CACHE_FORMAT:
        raise ValueError("not an aces-ci rollout cache entry")
    if document.get("version") != CACHE_VERSION:
        raise ValueError(f"cache format {document.get('version')!r}; this aces-ci reads {CACHE_VERSION}")
    result = result_from_dict(document.get("result"))
    if not _KEY.match(result.key):
        raise ValueError("not a rollout key")
    if result.status != "completed":
        raise ValueError("only completed rollouts are cached")
    return result


def import_rollouts(archive: Path, cache: RolloutCache) -> Imported:
    """Add every valid entry of ``archive`` that ``cache`` lacks (see the module docstring)."""
    added = present = skipped = 0
    try:
        with gzip.open(archive, "rb") as stream:
            number = 0
            while line := stream.readline(MAX_ENTRY_BYTES + 1):
                number += 1
                if len(line) > MAX_ENTRY_BYTES:
                    raise InputError(f"line {number} is longer than any cache entry aces-ci writes", path=str(archive))
                try:
                    result = _entry(line)
                except (ValueError, UnicodeDecodeError) as exc:
                    _log.warning("%s:%d: skipping an unreadable rollout (%s)", archive, number, exc)
                    skipped += 1
                    continue
                if cache.get(result.key) is not None:
                    present += 1
                elif cache.put(result):
                    added += 1
                else:
                    skipped += 1
    except FileNotFoundError:
        raise InputError("no such rollout archive", path=str(archive)) from None
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"not a readable rollout archive (gzip'd JSON Lines): {exc}", path=str(archive)) from None
    return Imported(added, present, skipped)
