"""The incremental result cache: each skill's rule findings, reused while nothing they depend on changed.

CI scans the repository on every push, and most pushes touch one skill. The cache keeps, per skill
directory, the findings the rules produced (before inline suppressions, aces.yml ignores and the
baseline, which are applied afresh on every scan) under the key :mod:`aces_ci.scan._fingerprint`
computes. A skill whose key matches is not parsed or checked again.

Layout: one JSON file per skill directory, ``<cache dir>/<sha256 of rel_dir>.json``, holding the key
it was computed under and the skill's stat index (per file: its ``lstat`` and hash when the key was
computed; see :mod:`aces_ci.scan._fingerprint`), so an unchanged skill's key costs ``lstat`` calls,
not reads; with it, what a host lists of the skill (for the repository rules). Beside them,
``repository-rules.entry`` keeps the repository rules' findings, keyed by those rules, the settings
and every skill's listing (:mod:`aces_ci.scan._repo_rules`). A skill edited since is a key
mismatch, and its entry is overwritten by the new scan, so the cache holds one entry per skill
path it has seen and deleting the directory is always safe. The directory holds a ``.gitignore``
(``*``) so it is never committed, and a ``CACHEDIR.TAG`` so backup tools skip it.

Nothing here may break a scan: an entry that is unreadable, truncated, from another format or
otherwise malformed is a miss; a write that fails (read-only checkout, full disk) is counted and
the scan goes on. Entries are written to a temporary file and renamed into place, so a reader
never sees half an entry.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..atomic import write_atomic
from ..redact import redacted_json
from ._finding import Finding, finding_to_row
from ._finding_rows import FindingRows, RuleFixes, valid_rows
from ._fingerprint import CACHE_FOLDER_NAME, CACHE_FORMAT, KnownStats, StatIndex, file_stat_from_row
from ._listing import ListedSkill

DEFAULT_CACHE_DIR = Path(CACHE_FOLDER_NAME) / "scan"
"""Relative to the scanned directory; ``.aces-cache`` is never listed as a file of a skill."""


def user_cache_dir() -> Path:
    """Where the cache of a scan of one lone skill goes (``$XDG_CACHE_HOME/aces-ci/scan``): never inside
    the skill, whose files it would join and whose rollouts it would then be staged into."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "aces-ci" / "scan"


_FIX = 8
"""Index of the fix in a :data:`~aces_ci.scan._finding.FindingRow`."""
MAX_ENTRY_BYTES = 16 * 1024 * 1024
"""An entry larger than this is not one we wrote: ignored."""

_REPOSITORY_ENTRY = "repository-rules.entry"
"""The repository rules' findings over every skill (one entry: they change with any skill's listing).
Not named ``*.json``: only the per-skill entries are."""
_GITIGNORE = "# Written by aces-ci: a cache of scan results, never committed.\n*\n"
_CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file marks a cache directory written by aces-ci (https://bford.info/cachedir/).\n"
)


CacheUse = Literal["off", "hit", "stored", "not-stored", "not-cacheable"]
"""What the cache did for one skill: not in use, answered, took the new findings, failed to write
them, or had to stay out (a symlink, a timeout: see :mod:`aces_ci.scan._fingerprint`)."""


@dataclass
class CacheStats:
    """How the cache served the last scan, for the command line's summary and the benchmark."""

    hits: int = 0
    stored: int = 0
    not_stored: int = 0
    """Scanned, but the entry could not be written (read-only or full disk)."""
    not_cacheable: int = 0

    def record(self, uses: Iterable[CacheUse]) -> None:
        for use in uses:
            if use == "hit":
                self.hits += 1
            elif use == "stored":
                self.stored += 1
            elif use == "not-stored":
                self.not_stored += 1
            elif use == "not-cacheable":
                self.not_cacheable += 1


@dataclass(frozen=True)
class CachedSkill:
    """What a skill's scan leaves in the cache: enough to report it without reading it."""

    name: str
    """The skill's name as reports show it (declared name, else the directory name)."""
    skill_md: str
    """Repository-relative path of its SKILL.md."""
    findings: Sequence[Finding]
    """The rules' findings as the rules return them: a rule's own policy waivers included, before every
    suppression applied after the rules (inline, config, baseline)."""
    listed: ListedSkill | None = None
    """What a host lists of the skill (its SKILL.md's name and description), for the repository rules
    of a scan that replays it: they then read no SKILL.md of an unchanged skill. None: not kept (a
    listing redaction would alter is never stored, so a replay sees exactly what a read would)."""


_RAW_KINDS: frozenset[str | None] = frozenset({None, "policy"})
"""The suppressions a stored finding may carry: none, or its rule's own policy waiver (a secret-shaped
placeholder SEC001 leaves alone), which is part of the rule's output; inline, config and baseline
suppressions are applied after the rules, on every scan, and never stored."""
_REPOSITORY_KINDS: frozenset[str | None] = frozenset({None})


def _stored_row(finding: Finding) -> list[object]:
    """The row an entry keeps: without the fix (its rule's, put back on load: it was a fifth of an entry,
    and parsing the entries is most of a warm scan)."""
    row: list[object] = list(finding_to_row(finding))
    row[_FIX] = None
    return row


def _entry_from_json(data: object, rel_dir: str, key: str, fixes: RuleFixes) -> CachedSkill | None:
    """The entry if ``data`` is exactly what :meth:`ResultCache.store` writes for this skill and key.

    Its findings stay rows (:class:`~aces_ci.scan._finding_rows.FindingRows`), checked here in bulk:
    a damaged entry is a miss, and a replayed one builds no finding until a report reads it.
    """
    if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT:
        return None
    if data.get("key") != key or data.get("rel_dir") != rel_dir:
        return None
    name, skill_md, rows = data.get("name"), data.get("skill_md"), data.get("findings")
    if not (isinstance(name, str) and isinstance(skill_md, str)):
        return None
    if not valid_rows(rows, _RAW_KINDS):
        return None  # damaged, or not written by store()
    listed = _listed_from_row(data.get("listed"), rel_dir, skill_md)
    return CachedSkill(name, skill_md, FindingRows(rows, rel_dir, fixes), listed)


def _listing_row(listed: ListedSkill | None) -> list[object] | None:
    """The listing as an entry keeps it; None when there is none or redaction would change it."""
    if listed is None:
        return None
    row: list[object] = [listed.name, listed.description, listed.description_line, listed.when_to_use]
    if redacted_json(row) != json.dumps(row):
        return None
    return row


def _listed_from_row(row: object, rel_dir: str, skill_md: str) -> ListedSkill | None:
    if not isinstance(row, list) or len(row) != 4:
        return None
    name, description, line, when = row
    if not (isinstance(name, str) and isinstance(description, str) and isinstance(when, str)):
        return None
    if type(line) is not int:
        return None
    return ListedSkill(rel_dir, skill_md, name, description, line, when)


@dataclass(frozen=True)
class StoredEntry:
    """A skill's entry as read from disk, before its key is compared: what the next walk may reuse."""

    rel_dir: str
    data: dict[str, object]
    known: KnownStats
    """Its stat index, trusted only for files last changed before the entry was written."""

    def for_key(self, key: str, fixes: RuleFixes) -> CachedSkill | None:
        """The findings, if the entry was stored under ``key`` (and is one :meth:`ResultCache.store` wrote)."""
        return _entry_from_json(self.data, self.rel_dir, key, fixes)


def _known_stats(data: dict[str, object], written_ns: int) -> KnownStats:
    rows = data.get("stats")
    files: StatIndex = {}
    if isinstance(rows, dict):
        for rel, row in rows.items():
            record = file_stat_from_row(row)
            if record is not None:
                files[rel] = record
    return KnownStats(files, written_ns)


def _read_entry(path: str) -> tuple[dict[str, object], int] | None:
    """The JSON object stored at ``path`` and the file's modification time; None when absent, unreadable or not one."""
    try:
        # O_NONBLOCK: a FIFO planted in place of an entry must not block the scan.
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        info = os.fstat(descriptor)
        # Sized by the file (an entry is written whole and renamed into place): a read of the largest
        # size allowed would allocate 16 MB per entry, most of reading a warm scan's entries.
        written_ns = info.st_mtime_ns
        raw = os.read(descriptor, min(info.st_size, MAX_ENTRY_BYTES) + 1)
    except OSError:
        return None
    finally:
        os.close(descriptor)
    if len(raw) > MAX_ENTRY_BYTES:
        return None
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    return (data, written_ns) if isinstance(data, dict) else None


def _read_json(path: str) -> dict[str, object] | None:
    found = _read_entry(path)
    return None if found is None else found[0]


class ResultCache:
    """Per-skill cached findings under one directory (created on the first write)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory.resolve()
        self.stats = CacheStats()
        """Filled in by the scan that uses this cache."""
        self._prepared = False

    def _entry_path(self, rel_dir: str) -> str:
        digest = hashlib.sha256(rel_dir.encode("utf-8", "surrogatepass")).hexdigest()
        return os.path.join(self.directory, f"{digest[:40]}.json")

    def read(self, rel_dir: str) -> StoredEntry | None:
        """The entry stored for ``rel_dir`` whatever its key, or None (absent, unreadable, not JSON)."""
        found = _read_entry(self._entry_path(rel_dir))
        if found is None:
            return None
        data, written_ns = found
        return StoredEntry(rel_dir, data, _known_stats(data, written_ns))

    def load(self, rel_dir: str, key: str, fixes: RuleFixes | None = None) -> CachedSkill | None:
        """The findings stored for ``rel_dir`` under ``key``, or None (a miss) for anything else."""
        stored = self.read(rel_dir)
        return None if stored is None else stored.for_key(key, fixes or {})

    def store(self, rel_dir: str, key: str, entry: CachedSkill, stats: StatIndex | None = None) -> bool:
        """Write the entry and the skill's stat index atomically; False (nothing raised) when the disk refuses."""
        document = {
            "format": CACHE_FORMAT,
            "key": key,
            "rel_dir": rel_dir,
            "name": entry.name,
            "skill_md": entry.skill_md,
            "findings": [_stored_row(finding) for finding in entry.findings],
            "listed": _listing_row(entry.listed),
            "stats": {rel: record.to_row() for rel, record in (stats or {}).items()},
        }
        # ensure_ascii: file names that are not UTF-8 reach us as lone surrogates; \\udcXX escapes keep them.
        payload = redacted_json(document, ensure_ascii=True, separators=(",", ":")).encode("ascii")
        try:
            self._prepare_directory()
            write_atomic(Path(self._entry_path(rel_dir)), payload)
        except OSError:
            return False
        return True

    def refresh_stats(self, stored: StoredEntry, stats: StatIndex) -> bool:
        """Rewrite a replayed entry with its files' new stats (a checkout touched them, the bytes are the same).

        Only the numbers change, so the entry as read (redacted when it was stored) is written back
        with a plain encoder: redacting it again would cost more than the scan saves. A path the
        stored index does not hold (its name was masked when stored) is left out, so nothing that
        was not redacted reaches the disk; that file is hashed again on the next scan.
        """
        previous = stored.data.get("stats")
        kept = previous if isinstance(previous, dict) else {}
        document = dict(stored.data, stats={rel: record.to_row() for rel, record in stats.items() if rel in kept})
        payload = json.dumps(document, ensure_ascii=True, separators=(",", ":")).encode("ascii")
        try:
            write_atomic(Path(self._entry_path(stored.rel_dir)), payload)
        except OSError:
            return False
        return True

    def load_repository(self, key: str, fixes: RuleFixes) -> dict[str, FindingRows] | None:
        """The repository rules' findings by skill stored under ``key`` (:mod:`aces_ci.scan._repo_rules`), or None."""
        data = _read_json(os.path.join(self.directory, _REPOSITORY_ENTRY))
        if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT or data.get("key") != key:
            return None
        pairs = data.get("findings")
        if not isinstance(pairs, list):
            return None
        rows_by_skill: dict[str, list[object]] = {}
        for pair in pairs:
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)):
                return None
            rows_by_skill.setdefault(pair[0], []).append(pair[1])
        by_skill = {}
        for skill, rows in rows_by_skill.items():
            if not valid_rows(rows, _REPOSITORY_KINDS):
                return None
            by_skill[skill] = FindingRows(rows, skill, fixes)
        return by_skill

    def store_repository(self, key: str, by_skill: Mapping[str, Sequence[Finding]]) -> bool:
        """Keep the repository rules' findings under ``key``; nothing is kept that redaction would alter
        (a replay must report what the rules would), and a refusing disk is not an error."""
        pairs = [[skill, _stored_row(finding)] for skill, found in by_skill.items() for finding in found]
        document = {"format": CACHE_FORMAT, "key": key, "findings": pairs}
        plain = json.dumps(document, ensure_ascii=True, separators=(",", ":"))
        if redacted_json(document, ensure_ascii=True, separators=(",", ":")) != plain:
            return False
        try:
            self._prepare_directory()
            write_atomic(Path(os.path.join(self.directory, _REPOSITORY_ENTRY)), plain.encode("ascii"))
        except OSError:
            return False
        return True

    def _prepare_directory(self) -> None:
        """Create the directory with its .gitignore and CACHEDIR.TAG, once per process."""
        if self._prepared:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        for name, text in ((".gitignore", _GITIGNORE), ("CACHEDIR.TAG", _CACHEDIR_TAG)):
            if not (self.directory / name).exists():
                (self.directory / name).write_text(text, encoding="ascii")
        self._prepared = True
