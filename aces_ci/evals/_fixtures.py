"""Fixture files of a case: where an author's ``files`` entry points, and reading them for a rollout.

agentskills.io and skill-creator write ``files`` relative to the skill directory
(``evals/files/sales.csv``); SkillEvaluator writes them relative to ``evals/`` (``files/sales.csv``).
Both are accepted: the candidate that exists wins, and when both exist the dialect's own
convention wins. Whatever the spelling, a fixture must stay inside the skill's ``evals/``
directory (symlinks are followed to check): its bytes are copied into the workspace of *both*
arms, so a fixture elsewhere would hand the skill's own files (or files outside the skill) to
the without-skill baseline.

In the workspace a fixture appears at its path relative to the skill directory, the path
:attr:`EvalCase.files <aces_ci.evals.EvalCase.files>` records.
"""

from __future__ import annotations

import os
import posixpath
import stat
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..skill import is_within
from ._model import EvalCase

EVALS_DIR = "evals"
MAX_FIXTURE_FILES = 1000
MAX_FIXTURE_BYTES = 32 * 1024 * 1024
"""Fixtures of one case are staged for every rollout; a case needing more is not a unit test."""


@dataclass(frozen=True)
class ResolvedFixture:
    """Where one ``files`` entry points: a path relative to the skill, and what is wrong with it."""

    rel: str
    problem: str | None = None
    """``None`` when the file exists inside the skill; otherwise why it cannot be staged."""
    code: str | None = None
    """``fixture-missing`` or ``fixture-escapes`` when ``problem`` is set."""


def _normalised(written: str) -> str | None:
    """The entry as a clean relative POSIX path, or None when it is absolute or not a path at all."""
    if not written.strip() or "\x00" in written or "\\" in written:
        return None
    if written.startswith("/") or written[1:3] == ":/":
        return None
    return posixpath.normpath(written)


def _in_evals(rel: str) -> bool:
    return rel.startswith(f"{EVALS_DIR}/")


def _leaves_skill(rel: str) -> bool:
    return rel == ".." or rel.startswith("../")


def resolve_fixture(skill_dir: Path, written: str, evals_relative_first: bool) -> ResolvedFixture:
    """Resolve one ``files`` entry of a case against the skill directory."""
    clean = _normalised(written)
    if clean is None:
        return ResolvedFixture(
            written,
            f"fixture {written!r} is not a relative path with '/' separators",
            "fixture-escapes",
        )
    from_root, from_evals = clean, posixpath.normpath(f"{EVALS_DIR}/{clean}")
    ordered = (from_evals, from_root) if evals_relative_first else (from_root, from_evals)
    inside = [rel for rel in ordered if _in_evals(rel)]
    for rel in inside:
        path = skill_dir / rel
        if os.path.lexists(path):
            if not is_within(path, skill_dir / EVALS_DIR):
                return ResolvedFixture(rel, f"fixture {rel!r} is a link leading outside evals/", "fixture-escapes")
            return ResolvedFixture(rel)
    # Nothing under evals/: the author may mean one of the skill's own files, which must not be a fixture.
    own_files = [rel for rel in ordered if not _in_evals(rel) and not _leaves_skill(rel)]
    if any(os.path.lexists(skill_dir / rel) for rel in own_files) or not inside:
        return ResolvedFixture(clean, f"fixture {written!r} is outside evals/", "fixture-escapes")
    read_as = f" (read as {inside[0]!r})" if inside[0] != written else ""
    return ResolvedFixture(inside[0], f"fixture {written!r} does not exist{read_as}", "fixture-missing")


class _Unstageable(Exception):
    """A fixture that exists but cannot be copied; the message says why."""


def _read_regular(path: Path, budget: int) -> bytes:
    """Read one regular file, refusing FIFOs and devices, and at most ``budget`` bytes."""
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise _Unstageable("fixture is not a regular file")
            data = handle.read(budget + 1)
    except OSError as exc:
        raise _Unstageable(f"fixture cannot be read: {exc.strerror or exc}") from None
    if len(data) > budget:
        raise _Unstageable(f"fixtures of one case exceed {MAX_FIXTURE_BYTES // (1024 * 1024)} MiB")
    return data


class _Collector:
    """Gathers a case's fixture files within the skill and within the size limits."""

    def __init__(self, skill_root: Path, case: EvalCase) -> None:
        self.skill_root = skill_root
        self.evals_root = skill_root / EVALS_DIR
        self.case = case
        self.files: dict[str, bytes] = {}
        self.total = 0

    def _error(self, rel: str, message: str) -> InputError:
        return InputError(f"case {self.case.id!r}: {message}", path=f"{self.skill_root}/{rel}", field="files")

    def add(self, rel: str) -> None:
        clean = _normalised(rel)
        if clean is None or not _in_evals(clean):
            raise self._error(rel, "fixture path points outside evals/")
        path = self.skill_root / clean
        if not os.path.lexists(path):
            raise self._error(clean, "fixture does not exist")
        if not is_within(path, self.evals_root):
            raise self._error(clean, "fixture is a link leading outside evals/")
        if path.is_dir():
            self._add_directory(clean)
        else:
            self._add_file(clean)

    def _add_file(self, rel: str) -> None:
        if rel in self.files:
            return
        if len(self.files) >= MAX_FIXTURE_FILES:
            raise self._error(rel, f"more than {MAX_FIXTURE_FILES} fixture files")
        try:
            data = _read_regular(self.skill_root / rel, MAX_FIXTURE_BYTES - self.total)
        except _Unstageable as exc:
            raise self._error(rel, str(exc)) from None
        self.total += len(data)
        self.files[rel] = data

    def _add_directory(self, rel: str) -> None:
        """Every file under a directory entry, following only links that stay inside ``evals/``."""
        pending = [rel]
        visited: set[Path] = set()
        while pending:
            current = pending.pop()
            real = (self.skill_root / current).resolve()
            if real in visited:
                continue
            visited.add(real)
            try:
                entries = sorted(os.listdir(self.skill_root / current))
            except OSError as exc:
                raise self._error(current, f"fixture directory cannot be listed: {exc.strerror or exc}") from None
            for entry in entries:
                child = f"{current}/{entry}"
                path = self.skill_root / child
                if not is_within(path, self.evals_root):
                    raise self._error(child, "fixture is a link leading outside evals/")
                if path.is_dir():
                    pending.append(child)
                else:
                    self._add_file(child)


def load_fixtures(skill_dir: Path, case: EvalCase) -> dict[str, bytes]:
    """The case's fixture files, as workspace-relative path → content, for staging a rollout.

    Raises :class:`~aces_ci.errors.InputError` naming the file when a fixture is missing, lies
    outside ``evals/`` (by its path, ``..`` or a symlink), is not a regular file, or the fixtures
    are too large.
    """
    collector = _Collector(skill_dir.resolve(), case)
    for rel in case.files:
        collector.add(rel)
    return collector.files
