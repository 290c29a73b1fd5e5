"""Git's own index as a witness of a file's content: what lets a fresh CI checkout replay the result cache.

On a hosted runner every job clones the repository anew and restores the cache: every file has a
new inode and change time, so no record of the stat index (:mod:`aces_ci.scan._fingerprint`) holds
and every file would be read and hashed again. Git already knows better: its index holds, for each
tracked file, the blob id of its content and the file's stat at the moment git wrote it (a
checkout, an ``add``). A worktree file whose ``lstat`` still equals that stat is, as far as git
itself will ever tell, blob ``X``; and a cache record that hashed bytes whose blob id was ``X``
then hashed the same bytes (blob ids are content hashes). So a stored SHA-256 is reused without
reading the file. Never more is trusted than git trusts:

* the stat is compared here, field by field as git's ``ie_match_stat`` does (mtime and ctime with
  nanoseconds, inode, size, uid, gid, all as the index truncates them), never ``git diff-files``'s
  verdict: no command of the repository's configuration (a filter, an fsmonitor hook) ever runs;
* git's *racily clean* rule: an entry whose file changed in the same instant as, or after, the
  index was written is not trusted;
* only stage-0 regular files (``100644``/``100755``); not symlinks, submodules (``160000``), sparse
  directory entries, intent-to-add, assume-unchanged or skip-worktree entries;
* a file whose checkout may not be its blob's bytes is never vouched for: the attributes
  ``filter`` (Git LFS: the blob is a pointer), ``ident`` and ``working-tree-encoding`` exclude it
  (``git check-attr``, which reads attributes and runs nothing); end-of-line conversion only adds
  bytes, so the walk's size check (record and file the same size) leaves it out.

Three calls of ``git`` (``rev-parse``, ``ls-files --debug``, ``check-attr``), each with a timeout
and a bound on its output, made once per scanning process, the first time a record's stat does not
hold or a file is read (its blob id is recorded then): a scan where every stat holds runs none.
Anything unexpected (no git, not a repository, a refusal, output this module cannot parse) means
no witness, and the scan reads and hashes the file as before. Paths are the raw bytes git prints
with ``-z``: names with newlines or that are not UTF-8 are matched as they are.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

GIT_TIMEOUT_SECONDS = 60.0
MAX_GIT_OUTPUT_BYTES = 256 * 1024 * 1024
"""Beyond this (a huge monorepo), the witness is given up: the scan reads files, as without git."""

_ENTRY = re.compile(
    rb"(?P<mode>\d{6}) (?P<oid>[0-9a-f]{40}|[0-9a-f]{64}) (?P<stage>\d)\t(?P<path>[^\0]*)\0"
    rb"  ctime: (?P<cs>\d+):(?P<cn>\d+)\n  mtime: (?P<ms>\d+):(?P<mn>\d+)\n"
    rb"  dev: \d+\tino: (?P<ino>\d+)\n  uid: (?P<uid>\d+)\tgid: (?P<gid>\d+)\n"
    rb"  size: (?P<size>\d+)\tflags: (?P<flags>[0-9a-f]+)\n"
)
"""One entry of ``git ls-files --debug -s -z``: the ``-s`` line ends in NUL, the debug lines in newlines."""
_REGULAR_MODES = frozenset({b"100644", b"100755"})
_UNTRUSTED_FLAGS = 0x8000 | (1 << 29) | (1 << 30)
"""CE_VALID (assume-unchanged), CE_INTENT_TO_ADD, CE_SKIP_WORKTREE: git does not vouch for the worktree file."""
_CHECKOUT_CHANGES_BYTES = (b"filter", b"ident", b"working-tree-encoding")
_NOT_SET = frozenset({b"unspecified", b"unset"})
_U32 = 0xFFFFFFFF

IndexStat = tuple[int, int, int, int, int, int, int, int]
"""mtime s, mtime ns, ctime s, ctime ns, inode, size (each as the index truncates it), uid, gid."""


def index_stat(info: os.stat_result) -> IndexStat:
    """``info`` as git's index would record it (32-bit seconds, inode and size)."""
    mtime_s, mtime_ns = divmod(info.st_mtime_ns, 1_000_000_000)
    ctime_s, ctime_ns = divmod(info.st_ctime_ns, 1_000_000_000)
    return (
        mtime_s & _U32,
        mtime_ns,
        ctime_s & _U32,
        ctime_ns,
        info.st_ino & _U32,
        info.st_size & _U32,
        info.st_uid,
        info.st_gid,
    )


@dataclass(frozen=True)
class GitIndex:
    """Blob ids git vouches for, by path relative to the scanned root (raw bytes)."""

    blobs: dict[bytes, tuple[str, IndexStat]]
    """Per tracked, eligible file: its blob id and the stat git recorded for it."""
    algorithm: str
    """``sha1`` or ``sha256``: the repository's object format, which the walk hashes blob ids with."""

    def blob_of(self, path: bytes, info: os.stat_result) -> str | None:
        """The blob id of the file at ``path`` if git's index vouches that ``info`` is still its checkout."""
        known = self.blobs.get(path)
        if known is None or known[1] != index_stat(info):
            return None
        return known[0]


def _git(root: Path, args: list[str], stdin: bytes | None = None) -> bytes | None:
    """Output of one git command run in ``root``, or None (no git, an error, too slow, too much output)."""
    git = shutil.which("git")
    if git is None:
        return None
    # No hook, fsmonitor or pager of the repository's configuration runs; no lock is taken.
    command = [git, "-c", "core.fsmonitor=false", "--no-pager", *args]
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    try:
        with subprocess.Popen(
            command,
            cwd=root,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        ) as process:
            try:
                if stdin is not None:
                    # check-attr prints a bounded multiple of what it is given.
                    output, _ = process.communicate(stdin, timeout=GIT_TIMEOUT_SECONDS)
                else:
                    assert process.stdout is not None
                    output = process.stdout.read(MAX_GIT_OUTPUT_BYTES + 1)
                    if len(output) > MAX_GIT_OUTPUT_BYTES:
                        process.kill()
                        return None
                    process.wait(timeout=GIT_TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                return None
    except OSError:
        return None
    return output if process.returncode == 0 else None


def _index_stat(index_file: bytes) -> tuple[int, int, int] | None:
    """The index file's (mtime_ns, inode, size)."""
    try:
        info = os.stat(index_file)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_ino, info.st_size


def _entries(listing: bytes, index_written_ns: int) -> dict[bytes, tuple[str, IndexStat]] | None:
    """Eligible entries of ``ls-files --debug -s -z`` output; None when it is not in the expected form."""
    blobs: dict[bytes, tuple[str, IndexStat]] = {}
    position = 0
    for match in _ENTRY.finditer(listing):
        if match.start() != position:
            return None
        position = match.end()
        if match["mode"] not in _REGULAR_MODES or match["stage"] != b"0" or int(match["flags"], 16) & _UNTRUSTED_FLAGS:
            continue
        mtime_s, mtime_ns = int(match["ms"]), int(match["mn"])
        ctime_s, ctime_ns = int(match["cs"]), int(match["cn"])
        # Racily clean: changed in the instant the index was written (or later) may not show in its stat.
        if max(mtime_s * 1_000_000_000 + mtime_ns, ctime_s * 1_000_000_000 + ctime_ns) >= index_written_ns:
            continue
        recorded = (mtime_s, mtime_ns, ctime_s, ctime_ns, int(match["ino"]), int(match["size"]))
        blobs[match["path"]] = (match["oid"].decode("ascii"), (*recorded, int(match["uid"]), int(match["gid"])))
    return blobs if position == len(listing) else None


def _checkout_is_blob(root: Path, paths: list[bytes]) -> set[bytes] | None:
    """Those of ``paths`` no attribute makes differ from their blob when checked out (filters, ident, encoding)."""
    if not paths:
        return set()
    attributes = [name.decode("ascii") for name in _CHECKOUT_CHANGES_BYTES]
    answer = _git(root, ["check-attr", "-z", "--stdin", *attributes], b"\0".join(paths) + b"\0")
    if answer is None:
        return None
    fields = answer.split(b"\0")
    if fields[-1] != b"" or (len(fields) - 1) % 3:
        return None
    changed = {fields[i] for i in range(0, len(fields) - 1, 3) if fields[i + 2] not in _NOT_SET}
    return {path for path in paths if path not in changed}


def read_git_index(root: Path) -> GitIndex | None:
    """What git's index vouches for under ``root`` (see the module's docstring), or None."""
    where = _git(root, ["rev-parse", "--git-path", "index"])
    if where is None or not where.strip():
        return None  # not a repository, or git refused it (say, another user's)
    index_file = os.path.join(os.fsencode(root), where.rstrip(b"\n"))
    before = _index_stat(index_file)
    if before is None:
        return None
    listing = _git(root, ["ls-files", "--debug", "-s", "-z"])
    if listing is None or _index_stat(index_file) != before:
        return None  # no index, or it was rewritten while being read
    blobs = _entries(listing, before[0])
    if blobs is None:
        return None
    plain = _checkout_is_blob(root, list(blobs))
    if plain is None:
        return None
    kept = {path: known for path, known in blobs.items() if path in plain}
    lengths = {len(oid) for oid, _ in kept.values()}
    if len(lengths) > 1:
        return None
    return GitIndex(kept, "sha256" if lengths == {64} else "sha1")


@dataclass
class GitWitness:
    """Git's index for one scan, asked for the first time a record's stat does not hold, then kept.

    Travels to worker processes with what it read, so they do not ask git again.
    """

    root: Path
    _asked: bool = False
    _index: GitIndex | None = field(default=None, repr=False)

    def index(self) -> GitIndex | None:
        if not self._asked:
            self._index = read_git_index(self.root)
            self._asked = True
        return self._index
