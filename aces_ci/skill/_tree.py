"""The one walk over a skill directory: which entries belong to the skill, and which could not be staged.

Two readers look at a skill on disk: the scan (which lists every file to check it) and the
renderer (which copies the files into each rollout's workspace). If they disagreed about which
folders to skip or how many files are too many, a skill could scan clean and then refuse to stage,
or carry ``node_modules/`` into every workspace. Both therefore walk with :func:`walk_skill` and
judge entries with :func:`staging_problem`: the scan reports as an error every reason the renderer
would refuse, so a skill the scan accepts always stages.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ._files import is_within
from ._model import ParseProblem

SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".aces-cache",
    }
)
"""Never skills, never files of a skill: version control, dependencies, tool caches (aces-ci's own included).
Any other folder holding ``pyvenv.cfg`` is a virtualenv and is skipped too."""
MAX_SKILL_FILES = 2000
"""More files than this in one skill is not a skill but a repository: listed up to here, refused for staging."""
MAX_SKILL_BYTES = 32 * 1024 * 1024
"""Upper bound on the total size of one staged skill: it is copied into every rollout workspace."""
EVALS_DIR = "evals"
"""The skill's evaluation data: checked by the scan, never shown to the agent it evaluates."""


def is_skipped_dir(name: str, path: str | Path) -> bool:
    """Whether the folder ``name`` at ``path`` is a tool's, not the skill's (see :data:`SKIPPED_DIRS`).

    ``path`` may be a plain string: discovery calls this for every folder of a repository, and a
    ``Path`` per folder was a tenth of a warm scan's discovery walk.
    """
    return name in SKIPPED_DIRS or os.path.isfile(os.path.join(path, "pyvenv.cfg"))


@dataclass(frozen=True)
class TreeEntry:
    """One entry of a skill directory other than a folder it descends into."""

    rel: str
    """Path relative to the skill directory, POSIX separators."""
    path: Path
    mode: int
    """``lstat`` mode: a symlink is reported as a symlink, not as what it points at."""
    size: int

    @property
    def is_symlink(self) -> bool:
        return stat.S_ISLNK(self.mode)

    @property
    def in_evals(self) -> bool:
        return self.rel == EVALS_DIR or self.rel.startswith(EVALS_DIR + "/")


@dataclass(frozen=True)
class SkillTree:
    """The entries of one skill directory, and what the walk could not do."""

    entries: tuple[TreeEntry, ...]
    truncated: bool
    """More than :data:`MAX_SKILL_FILES` entries: the rest were not listed."""
    unreadable: tuple[tuple[str, str], ...] = ()
    """(relative path, reason) of entries that could not be examined."""


def walk_skill(skill_dir: Path) -> SkillTree:
    """Every file, special file and symlink under ``skill_dir`` (resolved), sorted; folders of tools skipped.

    Symlinked folders are entries, never descended: no loops, no escapes. At most
    :data:`MAX_SKILL_FILES` entries are listed.
    """
    entries: list[TreeEntry] = []
    unreadable: list[tuple[str, str]] = []
    for here, rel_here, names in _folders(skill_dir, unreadable):
        for name in names:
            path = here / name
            rel = name if rel_here == "." else f"{rel_here}/{name}"
            if len(entries) >= MAX_SKILL_FILES:
                return SkillTree(tuple(entries), True, tuple(unreadable))
            try:
                st = path.lstat()
            except OSError as exc:
                unreadable.append((rel, exc.strerror or str(exc)))
                continue
            entries.append(TreeEntry(rel, path, st.st_mode, st.st_size))
    return SkillTree(tuple(entries), False, tuple(unreadable))


def _folders(skill_dir: Path, unreadable: list[tuple[str, str]]) -> Iterator[tuple[Path, str, list[str]]]:
    """(folder, its path relative to the skill, the names in it to list) for every folder walked, in order."""

    def failed(error: OSError) -> None:
        where = Path(error.filename or skill_dir)
        rel = where.relative_to(skill_dir).as_posix() if where.is_relative_to(skill_dir) else str(where)
        unreadable.append((rel, error.strerror or str(error)))

    for dirpath, dirnames, filenames in os.walk(skill_dir, followlinks=False, onerror=failed):
        here = Path(dirpath)
        rel_here = here.relative_to(skill_dir).as_posix()
        linked = [d for d in dirnames if (here / d).is_symlink()]
        dirnames[:] = sorted(d for d in dirnames if d not in linked and not is_skipped_dir(d, here / d))
        yield here, rel_here, sorted(filenames + linked)


def staging_problem(entry: TreeEntry, skill_dir: Path) -> ParseProblem | None:
    """Why ``entry`` cannot be copied faithfully into a rollout workspace; None when it can.

    A symlink is followed only when it stays inside the skill; a symlinked folder, a FIFO or a
    device is refused. Entries under ``evals/`` are never staged, so nothing about them is refused.
    """
    if entry.in_evals:
        return None
    if entry.is_symlink:
        try:
            target = entry.path.resolve(strict=True)
            st = target.stat()
        except (OSError, RuntimeError) as exc:
            message = f"symlink {entry.rel!r} cannot be resolved ({exc})"
            return ParseProblem("dangling-symlink", message, path=entry.rel)
        if stat.S_ISDIR(st.st_mode):
            return ParseProblem(
                "symlinked-directory",
                f"{entry.rel!r} is a symlinked directory; replace it with a real directory",
                path=entry.rel,
            )
        if not is_within(entry.path, skill_dir):
            return ParseProblem(
                "symlink-leaves-skill",
                f"symlink {entry.rel!r} points outside the skill ({target}); copy the file into the skill instead",
                path=entry.rel,
            )
        mode = st.st_mode
    else:
        mode = entry.mode
    if not stat.S_ISREG(mode):
        return ParseProblem(
            "special-file",
            f"{entry.rel!r} is not a regular file; a skill may only hold files and directories",
            path=entry.rel,
        )
    return None


def staging_problems(skill_dir: Path, tree: SkillTree) -> list[ParseProblem]:
    """Every reason the renderer would refuse the skill in ``tree``, as the scan reports them.

    A truncated or partly unreadable listing is refused too; the scan reports that as ``too-many-files``
    and ``unreadable`` (see :func:`walk_skill`), so it is not repeated here.
    """
    problems = [problem for entry in tree.entries if (problem := staging_problem(entry, skill_dir)) is not None]
    staged = sum(entry.size for entry in tree.entries if not entry.in_evals and not entry.is_symlink)
    if staged > MAX_SKILL_BYTES:
        problems.append(
            ParseProblem(
                "too-large-to-stage",
                f"the skill's files add up to {staged:,} bytes, more than the {MAX_SKILL_BYTES:,} a rollout stages",
            )
        )
    return problems
