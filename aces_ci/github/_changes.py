"""Which skills a change touched: ``git diff`` between two commits, or since the previous release tag.

Runs ``git`` in the checkout (never a shell; bounded by a timeout). When the base commit is not in
the clone — ``actions/checkout`` fetches one commit by default — the answer is "unknown", with the
reason and the fix (``fetch-depth: 0``), and callers treat every skill as changed: a gate must not
skip a skill because the clone was shallow.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

GIT_TIMEOUT_S = 60.0
_SHALLOW_HINT = "the clone may be shallow: check out with `fetch-depth: 0`"


@dataclass(frozen=True)
class ChangeSet:
    """Files and skills changed between ``base`` and ``head``; ``files`` None means "could not tell"."""

    base: str | None
    head: str | None
    files: tuple[str, ...] | None
    """Repository-relative POSIX paths; None when the diff could not be computed (see ``reason``)."""
    skills: tuple[str, ...]
    """Repository-relative skill directories touched; every skill when ``files`` is None."""
    reason: str

    @property
    def known(self) -> bool:
        return self.files is not None


def _git(repo: Path, *args: str) -> tuple[int, str]:
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
            encoding="utf-8",
            errors="surrogateescape",
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 1, str(exc)
    return done.returncode, done.stdout if done.returncode == 0 else done.stderr.strip()


def changed_files(repo: Path, base: str, head: str) -> tuple[tuple[str, ...] | None, str]:
    """Paths changed from ``base`` to ``head`` (three-dot: since they diverged), or None and why not."""
    for ref in (base, head):
        code, _ = _git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        if code != 0:
            return None, f"commit {ref[:12]} is not in this clone; {_SHALLOW_HINT}"
    code, out = _git(repo, "diff", "--name-only", "--no-renames", "-z", f"{base}...{head}")
    if code != 0:
        return None, f"git diff {base[:12]}...{head[:12]} failed: {out[:200]}"
    files = tuple(sorted(name for name in out.split("\0") if name))
    return files, f"{len(files)} file(s) changed since {base[:12]}"


def previous_tag(repo: Path, tag: str) -> str | None:
    """The closest tag reachable from ``tag``'s parent commit: the previous release."""
    code, out = _git(repo, "describe", "--tags", "--abbrev=0", f"{tag}^")
    return out.strip() if code == 0 and out.strip() else None


def skills_touched(files: Iterable[str], skill_dirs: Sequence[str]) -> tuple[str, ...]:
    """The skill directories (repository-relative) that hold at least one of ``files``.

    A file belongs to the deepest skill directory above it, so a skill nested in another is
    attributed to itself only.
    """
    ordered = sorted(skill_dirs, key=lambda d: -len(d))
    touched = set()
    for name in files:
        for skill in ordered:
            if skill in ("", ".") or name == skill or name.startswith(skill.rstrip("/") + "/"):
                touched.add(skill)
                break
    return tuple(sorted(touched))


def change_set(repo: Path | None, base: str | None, head: str | None, skill_dirs: Sequence[str]) -> ChangeSet:
    """The skills changed between ``base`` and ``head``; all of them when that cannot be told."""
    everything = tuple(sorted(skill_dirs))
    if repo is None:
        return ChangeSet(base, head, None, everything, "not a git checkout: every skill counts as changed")
    if base is None or head is None:
        return ChangeSet(base, head, None, everything, "no base to compare with: every skill counts as changed")
    files, reason = changed_files(repo, base, head)
    if files is None:
        return ChangeSet(base, head, None, everything, f"{reason}; every skill counts as changed")
    return ChangeSet(base, head, files, skills_touched(files, skill_dirs), reason)


def release_change_set(repo: Path | None, tag: str | None, skill_dirs: Sequence[str]) -> ChangeSet:
    """The skills changed since the release before ``tag`` (all of them for a first release)."""
    if repo is None or tag is None:
        return change_set(repo, None, tag, skill_dirs)
    previous = previous_tag(repo, tag)
    if previous is None:
        everything = tuple(sorted(skill_dirs))
        return ChangeSet(None, tag, None, everything, f"no release before {tag}: every skill counts as changed")
    return change_set(repo, previous, tag, skill_dirs)
