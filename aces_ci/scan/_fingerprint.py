"""What one skill's findings depend on, reduced to a digest: the key of the incremental result cache.

A cached finding is only as good as its key: if anything a rule reads can change without the key
changing, the cache replays a stale finding, which is a wrong report. So the key covers, for the
whole scan (:func:`scan_digest`):

* the cache format, aces-ci's version and the bytes of every loaded ``aces_ci`` module and JSON
  schema (a local edit of a rule changes the key even at the same version);
* the interpreter (SCRIPT001 compiles with it), the platform, and the versions of the libraries
  whose behaviour shapes findings (Markdown, YAML and the libyaml that composes it, JSON Schema);
* the ``bash`` that SCRIPT002 runs (its path, size and modification time);
* every enabled rule with the severity aces.yml forces on it, and the source file of its check
  (so a custom rule edited in place is caught);
* every scan setting a rule may read: all of ``ScanConfig`` except what is applied after the rules
  (suppressions, the gate's minimum score, excludes, the baseline);

and for each skill (:func:`skill_fingerprint`): its ``rel_dir`` and directory name (locations and
SPEC003 use them), and every entry under its directory, recursively, with its relative path,
type, mode bits, size and (for files) a SHA-256 of its bytes. Directories and files that are not
resources (``node_modules/``, empty folders) are included because a rule may test whether a
linked path exists.

Audit of inputs outside the skill directory, and how each is handled:

* symlinks (REF004 resolves them against the repository; a target outside the skill can change
  without any file of the skill changing): a skill holding any symlink is **not cached**;
* FIFOs, sockets and devices, and entries that cannot be read or listed: **not cached**;
* version-control metadata (``.git`` inside the skill: a repository that is one skill): **not
  cached**, it changes on every commit;
* links and mentions with ``../`` or absolute paths: REF003 judges the text only; REF001, REF002
  and REF005 skip such paths, so nothing outside is read (all remaining existence checks resolve
  inside the skill directory, whose every entry is in the key);
* dataset fixtures (EVAL008) are checked inside ``evals/`` by path; symlinks are excluded above;
* ``bash -n`` results depend on the bash binary: in the scan digest;
* a rule outcome that depends on the moment (``bash -n`` timing out, a crash reported as ACES001):
  the runner does not store that skill's findings at all.

The cache's own directory (wherever ``--cache-dir`` puts it) and any ``.aces-cache`` folder are left
out of the walk: they change on every scan, the skill loader never lists them as files of a skill,
and no rule reads them.

**The stat index** (as git's index does it): a file's SHA-256 is only worth computing when the file
may have changed. Each cache entry keeps, per file, what ``lstat`` said when its bytes were hashed
(size, ``mtime_ns``, ``ctime_ns``, inode, mode) with the hash (:class:`FileStat`). The next walk
reuses the stored hash of a file whose ``lstat`` is identical, and reads and hashes only the others.
A file modified in the same clock tick as the entry was written could keep every stat field, so
git's *racily clean* rule applies: a stored stat whose ``mtime_ns`` or ``ctime_ns`` is not older
than the entry file's own modification time is never trusted, and that file is hashed again. The
digest is the one a full read computes, so a replayed finding is exactly as fresh as before; only
the reads are saved.

**Git's index as a second witness** (:mod:`aces_ci.scan._git_index`): a fresh clone gives every file
a new inode and times, so no stat record holds. Each record also keeps the file's git blob id
(computed from the bytes it hashed, in the repository's object format). When a record's stat does
not hold but git's index vouches that the file is still the checkout of that same blob, and its
size is the record's, the stored hash stands in and the file is not read. The record is then
renewed with the file's new stat.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import stat
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from ..skill import LIBYAML_VERSION
from ._config import ScanConfig
from ._finding import Severity
from ._git_index import GitIndex, GitWitness
from ._registry import Rule

CACHE_FORMAT = 4
"""Bumped whenever the layout of a key or of a cache entry changes."""

CACHE_FOLDER_NAME = ".aces-cache"
"""aces-ci's own cache folder: never a file of a skill (the skill loader skips it too), never in a key."""
MAX_FINGERPRINT_ENTRIES = 5000
"""A skill directory with more entries than this (a vendored tree, say) is scanned, not cached."""

DIRECTIVE_MARKER = b"aces-ci"
"""Every inline suppression contains it (see :mod:`aces_ci.scan._suppress`)."""

APPLIED_AFTER_RULES = frozenset({"min_score", "exclude", "ignore", "baseline", "severity"})
"""ScanConfig fields no rule reads: applied to findings after the rules ran (severity enters as the rule list)."""

_VERSION_CONTROL = frozenset({".git", ".hg", ".svn"})
"""A skill directory holding one of these (a repository that is itself a skill) is not cached: its
history changes on every commit, and hashing it on every scan would cost more than scanning the skill."""
_LIBRARIES = (
    "markdown-it-py",
    "mdurl",
    "PyYAML",
    "jsonschema",
    "jsonschema-rs",
    "referencing",
    "jsonschema-specifications",
)
"""Distributions whose behaviour shapes findings: Markdown tokens, YAML errors, schema validation."""
_CHUNK = 1024 * 1024
_MARKDOWN_SUFFIX = b".md"


@dataclass(frozen=True)
class FileStat:
    """One file of a skill as the stat index remembers it: what ``lstat`` said, and the hash of the bytes then."""

    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    mode: int
    sha256: str
    directives: bool
    """The file is Markdown and mentions ``aces-ci``."""
    blob: str | None = None
    """Git's blob id of the same bytes (None: hashed where no git index was at hand)."""

    def matches(self, info: os.stat_result, clean_before_ns: int) -> bool:
        """Whether ``info`` is this record's stat and the record is not racily clean (see the module's docstring)."""
        return (
            info.st_size == self.size
            and info.st_mtime_ns == self.mtime_ns
            and info.st_ctime_ns == self.ctime_ns
            and info.st_ino == self.inode
            and info.st_mode == self.mode
            and self.mtime_ns < clean_before_ns
            and self.ctime_ns < clean_before_ns
        )

    def to_row(self) -> list[object]:
        return [self.size, self.mtime_ns, self.ctime_ns, self.inode, self.mode, self.sha256, self.directives, self.blob]

    def restat(self, info: os.stat_result) -> FileStat:
        """The same bytes under the file's new stat (git vouched that they did not change)."""
        return FileStat(
            info.st_size,
            info.st_mtime_ns,
            info.st_ctime_ns,
            info.st_ino,
            info.st_mode,
            self.sha256,
            self.directives,
            self.blob,
        )


def file_stat_from_row(row: object) -> FileStat | None:
    """The record :meth:`FileStat.to_row` wrote, or None for anything else (a damaged index is a miss)."""
    if not isinstance(row, list) or len(row) != 8:
        return None
    *numbers, sha256, directives, blob = row
    if not all(type(number) is int for number in numbers) or not isinstance(sha256, str):
        return None
    if len(sha256) != 64 or not isinstance(directives, bool):
        return None
    if blob is not None and not (isinstance(blob, str) and len(blob) in (40, 64)):
        return None
    size, mtime_ns, ctime_ns, inode, mode = numbers
    return FileStat(size, mtime_ns, ctime_ns, inode, mode, sha256, directives, blob)


StatIndex = dict[str, FileStat]
"""Per file of one skill (path relative to the skill, ``os.fsdecode``d): its stat and hash."""


@dataclass(frozen=True)
class KnownStats:
    """The stat index of a skill's previous scan, and the moment from which its records are not trusted."""

    files: StatIndex
    clean_before_ns: int
    """The cache entry's modification time: a file changed at or after it may not show in its stat."""


@dataclass(frozen=True)
class SkillFingerprint:
    """The cache key of one skill, and whether reading its inline suppressions is needed on a hit."""

    digest: str
    has_directives: bool
    """Some Markdown file of the skill mentions ``aces-ci``: directives must be read even on a cache hit."""
    stats: StatIndex = dataclasses.field(default_factory=dict, compare=False)
    """The stat index of this walk, stored with the entry so the next scan can skip reading unchanged files."""


class _NotCacheable(Exception):
    """The skill's findings may depend on more than the key can capture."""


class _NeedsRead(Exception):
    """A stat-only walk met a file whose stored stat no longer holds."""


def _file_digest(path: str | Path) -> str:
    hasher = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            hasher.update(chunk)
    return hasher.hexdigest()


def _package_digest() -> str:
    """SHA-256 over the source of every loaded aces_ci module and every JSON schema, in path order.

    Every module a rule can use is loaded before the scan starts (:func:`~aces_ci.scan.rules.default_registry`
    imports every family, and those import what they use), so an edited rule, parser or schema
    changes the key even when the version number does not. Modules a scan never loads (the live
    tier) are left out, so editing them does not throw the cache away.
    """
    package = Path(__file__).resolve().parents[1]
    files = set()
    for name, module in list(sys.modules.items()):
        source = getattr(module, "__file__", None)
        if (name == "aces_ci" or name.startswith("aces_ci.")) and source:
            files.add(Path(source).resolve())
    files.update(path.resolve() for path in (package / "_schemas").glob("*.json"))
    hasher = hashlib.sha256()
    for path in sorted(files):
        shown = path.relative_to(package).as_posix() if path.is_relative_to(package) else path.name
        hasher.update(f"{shown}\0{_file_digest(path)}\n".encode("utf-8", "surrogatepass"))
    return hasher.hexdigest()


def _library_versions() -> dict[str, str]:
    # libyaml is screened to compose exactly what PyYAML would (aces_ci.skill._yaml), but a new
    # libyaml is a new parser: a stale key would replay findings it never checked.
    import importlib.metadata  # only a scan with a cache asks: importing it costs a one-skill scan a tenth

    versions = {"libyaml": LIBYAML_VERSION or "not installed"}
    for name in _LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def _bash_identity() -> list[object] | None:
    """Which bash SCRIPT002 would run: its resolved path, size and modification time (None: no bash)."""
    found = shutil.which("bash")
    if found is None:
        return None
    real = os.path.realpath(found)
    try:
        info = os.stat(real)
    except OSError:
        return [real, None, None]
    return [real, info.st_size, info.st_mtime_ns]


def _check_source(check: Callable[..., object], digests: dict[str, str]) -> str | None:
    """Digest of the file that defines a rule's check; None when no file pins down what it does.

    A check that is not a plain module-level function (a closure, a lambda, a partial) may carry
    state no file shows, so a scan using one is not cached. ``digests`` keeps each file's digest.
    """
    code = getattr(check, "__code__", None)
    if code is None or getattr(check, "__closure__", None) or "<" in getattr(check, "__qualname__", "<"):
        return None
    filename = str(code.co_filename)
    if filename not in digests:
        try:
            digests[filename] = _file_digest(filename)
        except OSError:
            return None
    return digests[filename]


def _settings(config: ScanConfig) -> dict[str, object]:
    """Every scan setting a rule may read; fields added later count until listed in APPLIED_AFTER_RULES."""
    return {
        field.name: repr(getattr(config, field.name))
        for field in dataclasses.fields(config)
        if field.name not in APPLIED_AFTER_RULES
    }


def scan_environment() -> dict[str, object]:
    """What every key depends on besides the rules and settings: aces-ci's own source, Python, the libraries, bash.

    Hashing the source is most of it: a scan computes this once for both of its keys (:func:`scan_digest`,
    :func:`repository_digest`).
    """
    return {
        "format": CACHE_FORMAT,
        "aces_ci": __version__,
        "package": _package_digest(),
        "python": [sys.version, sys.implementation.cache_tag],
        "platform": [sys.platform, os.name],
        "libraries": _library_versions(),
        "bash": _bash_identity(),
    }


def scan_digest(
    enabled: Sequence[tuple[Rule, Severity | None]], config: ScanConfig, environment: Mapping[str, object] | None = None
) -> str | None:
    """The part of every skill's key that is the same for the whole scan; None when caching must be off.

    ``environment`` is this scan's :func:`scan_environment` (computed here when not given).
    """
    rules = []
    digests: dict[str, str] = {}
    for rule, forced in enabled:
        source = _check_source(rule.check, digests)
        if source is None:
            return None
        rules.append([rule.id, rule.severity.value, forced.value if forced else None, rule.weight, source])
    material = {
        **(scan_environment() if environment is None else environment),
        "rules": rules,
        "settings": _settings(config),
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


def repository_digest(
    enabled: Sequence[tuple[Rule, Severity | None]],
    config: ScanConfig,
    checks: Mapping[str, Callable[..., object]],
    environment: Mapping[str, object] | None = None,
) -> str | None:
    """The key part of the repository rules' stored findings that is not the skills' listings: as
    :func:`scan_digest` for those rules, and the source of each one's repository-wide check
    (``checks`` by rule id); None when caching them must be off."""
    base = scan_digest(enabled, config, environment)
    digests: dict[str, str] = {}
    sources = [_check_source(checks[rule.id], digests) for rule, _ in enabled if rule.id in checks]
    if base is None or len(sources) != len(enabled) or None in sources:
        return None
    return hashlib.sha256(json.dumps([base, sources]).encode()).hexdigest()


class _TreeWalk:
    """One pass over a skill directory: a line per entry for the digest, and whether directives may exist.

    With ``known`` stats, a file whose ``lstat`` matches its record is not read: the stored hash
    stands in. With ``read_changed`` False, a file that would need reading stops the walk
    (:class:`_NeedsRead`): the cheap look the scanning process takes before handing work out.
    """

    def __init__(
        self,
        excluded: str | None,
        known: KnownStats | None = None,
        read_changed: bool = True,
        git: GitWitness | None = None,
        prefix: bytes = b"",
    ) -> None:
        self.excluded = excluded
        self.known = known
        self.read_changed = read_changed
        self.git = git
        self.prefix = prefix
        """The skill's directory relative to the scanned root, as git names paths (``b""`` or ``b"dir/"``)."""
        self.budget = MAX_FINGERPRINT_ENTRIES
        self.lines: list[bytes] = []
        self.has_directives = False
        self.stats: StatIndex = {}

    def walk(self, directory: str, rel: bytes) -> None:
        """Record every entry under ``directory``, sorted, recursively; raise :class:`_NotCacheable`."""
        try:
            with os.scandir(directory) as scan:
                children = sorted(scan, key=lambda entry: entry.name)
        except OSError as exc:
            raise _NotCacheable(f"cannot list {directory}") from exc
        for entry in children:
            self.budget -= 1
            if self.budget < 0:
                raise _NotCacheable("too many entries")
            if entry.path == self.excluded or entry.name == CACHE_FOLDER_NAME:
                continue
            child = rel + os.fsencode(entry.name)
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError as exc:
                raise _NotCacheable(f"cannot stat {entry.path}") from exc
            if stat.S_ISDIR(info.st_mode):
                if entry.name in _VERSION_CONTROL:
                    raise _NotCacheable(f"{entry.path} is version-control metadata")
                self.lines.append(b"%s\0%o\0dir\n" % (child, info.st_mode))
                self.walk(entry.path, child + b"/")
            elif stat.S_ISREG(info.st_mode):
                record = self._file(entry.path, child, info)
                self.has_directives = self.has_directives or record.directives
                digest = record.sha256.encode()
                self.lines.append(b"%s\0%o\0%d\0%s\n" % (child, info.st_mode, info.st_size, digest))
            else:  # symlinks, FIFOs, sockets, devices
                raise _NotCacheable(f"{entry.path} is not a regular file or directory")

    def _file(self, path: str, child: bytes, info: os.stat_result) -> FileStat:
        """The file's record: the stored one when its stat still holds, else one from reading the file."""
        rel = os.fsdecode(child)
        if self.known is not None:
            record = self.known.files.get(rel)
            if record is not None and record.matches(info, self.known.clean_before_ns):
                self.stats[rel] = record
                return record
            if record is not None and record.blob is not None and record.size == info.st_size:
                index = self.git.index() if self.git is not None else None
                if index is not None and index.blob_of(self.prefix + child, info) == record.blob:
                    renewed = record.restat(info)
                    self.stats[rel] = renewed
                    return renewed
        if not self.read_changed:
            raise _NeedsRead(path)
        markdown = child.lower().endswith(_MARKDOWN_SUFFIX)
        index = self.git.index() if self.git is not None else None
        digest, directives, after, blob = self._read(path, info.st_size, markdown, index)
        record = FileStat(
            info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_mode, digest, directives, blob
        )
        if record.matches(after, clean_before_ns=sys.maxsize):
            self.stats[rel] = record  # only a stat taken around the read it describes is kept
        return record

    def _read(
        self, path: str, size: int, markdown: bool, index: GitIndex | None
    ) -> tuple[str, bool, os.stat_result, str | None]:
        """SHA-256 of the file's bytes (``size`` is what its stat said), whether Markdown holds a directive
        marker, the file's stat once read, and (in a git repository) the bytes' blob id."""
        hasher = hashlib.sha256()
        blob = hashlib.new(index.algorithm) if index is not None else None
        if blob is not None:
            blob.update(b"blob %d\0" % size)
        length = 0
        tail = b""
        directives = False
        try:
            # O_NONBLOCK: a FIFO swapped in after the stat reads as empty instead of blocking the scan
            # (the digest then differs from the file's, and the scan's second look sees the change).
            descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError as exc:
            raise _NotCacheable(f"cannot open {path}") from exc
        try:
            wanted = min(size + 1, _CHUNK)  # one read for a file that did not grow since its stat
            while chunk := os.read(descriptor, wanted):
                hasher.update(chunk)
                length += len(chunk)
                if blob is not None:
                    blob.update(chunk)
                if markdown and not directives:
                    directives = DIRECTIVE_MARKER in tail + chunk
                    tail = chunk[-len(DIRECTIVE_MARKER) :]
                if len(chunk) < wanted:
                    break
                wanted = _CHUNK
            after = os.fstat(descriptor)
        except OSError as exc:
            raise _NotCacheable(f"cannot read {path}") from exc
        finally:
            os.close(descriptor)
        # The blob header named the stat's size: a file that changed size while read has no blob id.
        blob_id = blob.hexdigest() if blob is not None and length == size else None
        return hasher.hexdigest(), directives, after, blob_id


def skill_fingerprint(
    skill_dir: Path,
    rel_dir: str,
    scan_key: str,
    cache_dir: Path | None = None,
    known: KnownStats | None = None,
    *,
    read_changed: bool = True,
    git: GitWitness | None = None,
) -> SkillFingerprint | None:
    """The key of one skill's cached findings, or None when the skill must be scanned every time.

    ``cache_dir`` (the cache's own directory) is left out of the walk when it lies inside the skill.
    ``known`` (the stat index of the skill's cache entry) spares reading files whose stat still
    holds. With ``read_changed`` False the walk reads nothing and returns None as soon as a file
    would need reading: the key of an unchanged skill at the cost of its ``lstat`` calls. ``git``
    (git's index of the scanned root, ``rel_dir`` being relative to it) vouches for files whose
    stat moved but whose blob did not, and gives every file read its blob id.
    """
    prefix = b"" if rel_dir == "." else os.fsencode(rel_dir) + b"/"
    excluded = os.fspath(cache_dir) if cache_dir is not None else None
    tree = _TreeWalk(excluded, known, read_changed, git, prefix)
    try:
        tree.walk(os.fspath(skill_dir), b"")
    except (_NotCacheable, _NeedsRead):
        return None
    hasher = hashlib.sha256()
    hasher.update(f"{scan_key}\0{rel_dir}\0{skill_dir.name}\n".encode("utf-8", "surrogatepass"))
    for line in tree.lines:
        hasher.update(line)
    return SkillFingerprint(hasher.hexdigest(), tree.has_directives, tree.stats)
