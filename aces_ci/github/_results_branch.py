"""The results branch: files committed on a branch of the repository itself, where a later run finds them.

Why a branch (``aces-results`` by default) and not an artifact or a digest in a comment:
artifacts expire (90 days by default) and a later workflow can only find them through the
Actions API by run; a release has no pull request to carry a comment; a branch keeps every
release's record for good, needs no service beyond the repository, is read with a plain
``git fetch`` (``contents: read``) and its history *is* the history of the baselines.

The branch is written with git plumbing only — blobs, a tree built in a private index file, a
commit whose parent is the branch's last commit (none for the first) — and pushed with
``git push origin <commit>:refs/heads/<branch>``. The work tree, the index and HEAD of the
checkout are never touched, so the job's checkout of the tag stays as it was. A push that
loses a race with another run is retried on top of the new tip. Pushing needs
``permissions: contents: write`` and ``actions/checkout``'s persisted credentials.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from ..config import DEFAULT_RESULTS_BRANCH

GIT_TIMEOUT_S = 120.0
PUSH_ATTEMPTS = 3
_LOCAL_REF = "refs/aces-ci/results"
"""Where the fetched branch tip is kept locally: outside refs/heads, so no branch of the checkout moves."""
_IDENTITY = {
    "GIT_AUTHOR_NAME": "github-actions[bot]",
    "GIT_AUTHOR_EMAIL": "41898282+github-actions[bot]@users.noreply.github.com",
    "GIT_COMMITTER_NAME": "github-actions[bot]",
    "GIT_COMMITTER_EMAIL": "41898282+github-actions[bot]@users.noreply.github.com",
}


Reader = Callable[[str], bytes | None]
"""Reads a file of the results branch (None when missing)."""


MAX_STORED_BYTES = 64 * 1024 * 1024
"""A stored file this size or smaller is read; baselines and rerun records are kilobytes."""


class ResultsBranchError(Exception):
    """git could not read or write the results branch; the message says which command and why."""


@dataclass(frozen=True)
class Stored:
    commit: str
    branch: str
    paths: tuple[str, ...]


def _git(repo: Path, *args: str, env: Mapping[str, str] | None = None, stdin: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), *args],
            input=stdin,
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
            env={**os.environ, **(env or {})},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ResultsBranchError(f"git {args[0]} failed: {exc}") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()[:500]
        raise ResultsBranchError(f"git {' '.join(args[:2])} failed: {message}")
    return done.stdout


class ResultsBranch:
    """Read and write files on ``branch`` of ``remote`` from the checkout at ``repo``."""

    def __init__(self, repo: Path, branch: str = DEFAULT_RESULTS_BRANCH, remote: str = "origin") -> None:
        self.repo, self.branch, self.remote = repo, branch, remote

    def lacks_remote(self) -> bool:
        """Whether the checkout has no remote of this name: then nothing can be pushed, whatever the permissions."""
        try:
            _git(self.repo, "remote", "get-url", self.remote)
        except ResultsBranchError:
            return True
        return False

    def fetch(self) -> str | None:
        """Fetch the branch's tip into a private ref; its commit, or None when the branch does not exist yet."""
        heads = _git(self.repo, "ls-remote", "--heads", self.remote, f"refs/heads/{self.branch}").decode().split()
        if not heads:
            return None
        _git(self.repo, "fetch", "--quiet", "--no-tags", self.remote, f"+refs/heads/{self.branch}:{_LOCAL_REF}")
        return _git(self.repo, "rev-parse", _LOCAL_REF).decode().strip()

    def read(self, path: str) -> bytes | None:
        """The file at ``path`` on the branch (fetched now); None when the branch or the file is missing."""
        return self._read_at(self.fetch(), path)

    def read_folder(self, folder: str, pick: Callable[[list[str]], list[str]]) -> dict[str, bytes]:
        """The files ``pick`` chooses among those under ``folder`` on the branch, read from one fetch of its tip."""
        tip = self.fetch()
        if tip is None:
            return {}
        try:
            listed = _git(self.repo, "ls-tree", "-r", "--name-only", tip, "--", f"{folder.rstrip('/')}/")
        except ResultsBranchError:
            return {}
        files = {}
        for path in pick(listed.decode("utf-8", "replace").splitlines()):
            content = self._read_at(tip, path)
            if content is not None:
                files[path] = content
        return files

    def _read_at(self, tip: str | None, path: str) -> bytes | None:
        """The file's bytes; None when missing. One larger than :data:`MAX_STORED_BYTES` is an error, not read:
        anyone who can push to the branch can put a blob there, and a baseline must not be merged from nothing."""
        if tip is None:
            return None
        try:
            size = int(_git(self.repo, "cat-file", "-s", f"{tip}:{path}"))
        except (ResultsBranchError, ValueError):
            return None
        if size > MAX_STORED_BYTES:
            raise ResultsBranchError(f"{self.branch}:{path} is {size:,} bytes, over the {MAX_STORED_BYTES:,} allowed")
        try:
            return _git(self.repo, "show", f"{tip}:{path}")
        except ResultsBranchError:
            return None

    def _commit(self, parent: str | None, files: Mapping[str, bytes], message: str) -> str:
        with tempfile.TemporaryDirectory(prefix="aces-results-") as scratch:
            index = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
            if parent is not None:
                _git(self.repo, "read-tree", parent, env=index)
            for path, content in sorted(files.items()):
                blob = _git(self.repo, "hash-object", "-w", "--stdin", stdin=content).decode().strip()
                _git(self.repo, "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", env=index)
            tree = _git(self.repo, "write-tree", env=index).decode().strip()
        parents = ["-p", parent] if parent is not None else []
        return _git(self.repo, "commit-tree", tree, *parents, "-m", message, env=_IDENTITY).decode().strip()

    def write(self, make_files: Callable[[Reader], Mapping[str, bytes]], message: str) -> Stored:
        """Commit the files ``make_files`` builds (path → bytes) on top of the branch, and push.

        ``make_files`` reads the branch's current files through the reader it is given, so a file
        merged from the previous content (the baselines) is rebuilt when another run pushed first
        and the push is retried on top of the new tip.
        """
        last: ResultsBranchError | None = None
        for _ in range(PUSH_ATTEMPTS):
            parent = self.fetch()
            files = make_files(partial(self._read_at, parent))
            commit = self._commit(parent, files, message)
            try:
                _git(self.repo, "push", "--quiet", self.remote, f"{commit}:refs/heads/{self.branch}")
            except ResultsBranchError as exc:
                last = exc
                continue
            return Stored(commit, self.branch, tuple(sorted(files)))
        raise ResultsBranchError(f"could not push to {self.branch} after {PUSH_ATTEMPTS} attempts: {last}")
