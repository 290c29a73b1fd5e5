"""What an agent left in its workspace: the files it wrote or changed, captured before the workspace goes.

A grader that checks an output file (a report the skill should produce, a fixed config) needs
those files after the rollout, and a grader written next month needs them for rollouts cached
today; the workspace itself is deleted as soon as the harness returns. So the engine captures the
files under the workspace root that differ from what was staged, and the capture travels with the
rollout's result into the cache and the journal.

A capture is bounded, because an agent can write anything: a file above
:attr:`ArtifactLimits.max_file_bytes`, files past :attr:`ArtifactLimits.max_total_bytes` in total,
and entries past :attr:`ArtifactLimits.max_files` are listed without content (or, past the count,
not listed at all and :attr:`WorkspaceArtifacts.truncated` says so). Symlinks and special files are
listed, never followed or read: a link to ``/etc/shadow`` must not pull that file into the cache.
Content is kept as bytes (binary-safe); text that holds a secret is redacted like a trajectory,
and a binary file that holds one is listed without content.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from ..redact import find_secrets, redact_text

Omission = Literal["too_large", "over_total", "symlink", "special_file", "unreadable", "holds_secret"]
"""Why an artifact is listed without content: the file exceeds the per-file cap; the capture's
total cap was reached; it is a symlink (never followed); a device, socket or pipe; it could not
be read; a binary file holding a secret (text is redacted instead)."""
OMISSIONS: tuple[str, ...] = get_args(Omission)


@dataclass(frozen=True)
class ArtifactLimits:
    """Caps on one rollout's capture; recorded with it, so a grader can tell "absent" from "not kept"."""

    max_file_bytes: int = 256 * 1024
    max_total_bytes: int = 1024 * 1024
    max_files: int = 100
    """Entries listed (with or without content); unchanged staged files do not count."""

    def __post_init__(self) -> None:
        for name in ("max_file_bytes", "max_total_bytes", "max_files"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"artifact limit {name} must be a whole number ≥ 0, got {value!r}")


@dataclass(frozen=True)
class Artifact:
    """One file the agent wrote or changed, by its path relative to the workspace root."""

    path: str
    """POSIX path relative to the agent's working directory, e.g. ``out/report.md``."""
    size: int
    """Bytes on disk when captured (for a symlink: the length of the path it holds)."""
    content: bytes | None
    """The file's bytes (secrets redacted when ``redacted``); None when ``omitted`` says why."""
    omitted: Omission | None = None
    redacted: bool = False

    @property
    def text(self) -> str | None:
        """The content as UTF-8 text; None when omitted or not valid UTF-8 (a binary file)."""
        if self.content is None:
            return None
        try:
            return self.content.decode("utf-8")
        except UnicodeDecodeError:
            return None


@dataclass(frozen=True)
class WorkspaceArtifacts:
    """The capture of one rollout's workspace; empty for a rollout that never got one."""

    files: tuple[Artifact, ...] = ()
    """Written or changed files, sorted by path."""
    deleted: tuple[str, ...] = ()
    """Staged files (fixtures, skill files under the workspace root) the agent removed, sorted."""
    truncated: bool = False
    """More entries existed than :attr:`ArtifactLimits.max_files`; the rest are not listed."""
    limits: ArtifactLimits = ArtifactLimits()

    def file(self, path: str) -> Artifact | None:
        """The artifact at ``path`` (relative to the workspace root, ``./`` allowed), or None."""
        wanted = path.removeprefix("./")
        return next((a for a in self.files if a.path == wanted), None)

    def text(self, path: str) -> str | None:
        """The text of the file at ``path``; None when absent, omitted or binary."""
        found = self.file(path)
        return found.text if found is not None else None


NO_ARTIFACTS = WorkspaceArtifacts()
"""The capture of a rollout that had no workspace to capture (staging failed, or nothing was written)."""


class _Capture:
    def __init__(self, limits: ArtifactLimits, secrets: tuple[str, ...]) -> None:
        self.limits = limits
        self.secrets = secrets
        self.files: list[Artifact] = []
        self.total = 0
        self.truncated = False

    @property
    def full(self) -> bool:
        return len(self.files) >= self.limits.max_files

    def add(self, path: str, rel: str, info: os.stat_result, staged: bytes | None) -> None:
        regular = stat.S_ISREG(info.st_mode)
        if regular and staged is not None and info.st_size == len(staged) and _read(path, len(staged)) == staged:
            return  # staged and untouched
        if self.full:
            self.truncated = True
            return
        if stat.S_ISLNK(info.st_mode):
            self.files.append(Artifact(rel, info.st_size, None, "symlink"))
            return
        if not regular:
            self.files.append(Artifact(rel, info.st_size, None, "special_file"))
            return
        if info.st_size > self.limits.max_file_bytes:
            self.files.append(Artifact(rel, info.st_size, None, "too_large"))
            return
        if self.total + info.st_size > self.limits.max_total_bytes:
            self.files.append(Artifact(rel, info.st_size, None, "over_total"))
            return
        data = _read(path, self.limits.max_file_bytes)
        if data is None:
            self.files.append(Artifact(rel, info.st_size, None, "unreadable"))
            return
        self.total += len(data)
        self.files.append(self._screened(rel, data))

    def _screened(self, rel: str, data: bytes) -> Artifact:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            literal = any(s.encode("utf-8") in data for s in self.secrets)
            if literal or find_secrets(data.decode("latin-1")):
                return Artifact(rel, len(data), None, "holds_secret")
            return Artifact(rel, len(data), data)
        clean = redact_text(text, self.secrets)
        if clean == text:
            return Artifact(rel, len(data), data)
        return Artifact(rel, len(data), clean.encode("utf-8"), redacted=True)


def _read(path: str, cap: int) -> bytes | None:
    """Up to ``cap + 1`` bytes of a regular file, never following a symlink swapped in since ``lstat``."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        try:
            return handle.read(cap + 1)
        except OSError:
            return None


def capture_artifacts(
    root: Path,
    staged: Mapping[str, bytes],
    limits: ArtifactLimits = ArtifactLimits(),
    secrets: tuple[str, ...] = (),
) -> WorkspaceArtifacts:
    """The files under ``root`` that differ from ``staged`` (root-relative path → staged bytes).

    Walks without following symlinks, in sorted order, so the same workspace always gives the
    same capture; ``secrets`` are literal values to redact besides the detected shapes. A
    directory the agent made unreadable is skipped.
    """
    capture = _Capture(limits, secrets)
    seen: set[str] = set()
    pending = [(str(root), "")]
    while pending and not capture.truncated:
        directory, prefix = pending.pop()
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError:
            continue
        subdirectories = []
        for entry in entries:
            rel = prefix + entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    subdirectories.append((entry.path, rel + "/"))
                    continue
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue  # removed while we walked: a background process of the agent
            seen.add(rel)
            capture.add(entry.path, rel, info, staged.get(rel))
        pending.extend(reversed(subdirectories))  # depth first, in name order
    deleted = tuple(sorted(rel for rel in staged if rel not in seen and not os.path.lexists(root / rel)))
    files = tuple(sorted(capture.files, key=lambda artifact: artifact.path))
    return WorkspaceArtifacts(files, deleted, capture.truncated, limits)
