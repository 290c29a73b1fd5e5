"""The skill as it was at a git ref, read from git's objects: the control of ``trial --against REF``.

"Did my change help?" compares this version of a skill with an earlier one (the PR's base, the
last release tag) on the same cases, seeds and scorer. The earlier version is materialised from
the repository's objects with ``git archive`` into a private temporary directory and read with
the same reader that stages every skill (:func:`aces_ci.skill.read_skill_tree`), so both versions
go through one set of skip rules and limits. The user's work tree, index and HEAD are never
touched: no checkout, no stash.

``git`` runs without a shell, with a timeout, in the repository that holds the skill. A ref is
refused before git sees it when it could be read as an option (a leading ``-``) or holds control
characters; then git itself must resolve it to a commit. A skill directory that did not exist at
that commit is an :class:`~aces_ci.errors.InputError` (exit 2) saying so, since "no earlier
version" is not something a lift can be computed against.
"""

from __future__ import annotations

import io
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..errors import InfraError, InputError
from ..skill import RenderedSkill, RenderError, extract_data, read_skill_tree

GIT_TIMEOUT_S = 60.0
MAX_ARCHIVE_BYTES = 64 * 1024 * 1024
"""A skill's tree at a ref is read into memory; a skill is capped far below this when it is staged."""


@dataclass(frozen=True)
class SkillAtRef:
    """A skill as it was at ``ref`` (resolved to ``commit``), rendered exactly as staging would render it."""

    ref: str
    commit: str
    path: str
    """The skill directory relative to the repository root (POSIX)."""
    skill: RenderedSkill


def _git(repo: Path, *args: str, binary: bool = False) -> tuple[int, bytes, str]:
    try:
        completed = subprocess.run(
            ["git", "-C", str(repo), *args],
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError as exc:
        raise InfraError("git is not installed, so --against cannot read earlier versions of the skill") from exc
    except subprocess.TimeoutExpired as exc:
        raise InfraError(f"git {' '.join(args[:2])} did not finish within {GIT_TIMEOUT_S:g}s") from exc
    return completed.returncode, completed.stdout, completed.stderr.decode("utf-8", errors="replace").strip()


def checked_ref(ref: str) -> str:
    """``ref`` if it can only be read as a revision; InputError otherwise."""
    if not ref or ref != ref.strip() or ref.startswith("-") or not ref.isprintable() or len(ref) > 256:
        raise InputError(f"{ref!r} is not a usable git ref (a branch, tag or commit such as HEAD~1)", field="--against")
    return ref


def repository_of(path: Path) -> Path:
    """The top of the git work tree holding ``path``; InputError when it is not in one."""
    code, out, err = _git(path, "rev-parse", "--show-toplevel")
    if code != 0:
        raise InputError(f"--against needs the skill to be inside a git repository ({err[:200]})", path=str(path))
    return Path(out.decode("utf-8", errors="replace").strip()).resolve()


def resolve_commit(repo: Path, ref: str) -> str:
    """The commit ``ref`` names in ``repo``; InputError naming the ref when there is none."""
    code, out, _ = _git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{checked_ref(ref)}^{{commit}}")
    if code != 0:
        raise InputError(f"git ref {ref!r} does not name a commit in {repo}", field="--against")
    return out.decode().strip()


def working_commit(skill_dir: Path) -> str | None:
    """The commit checked out where ``skill_dir`` lives, ``-dirty`` when the skill has uncommitted changes; None
    outside a git repository or without git (a trial runs anywhere, and says so rather than failing)."""
    try:
        code, out, _ = _git(skill_dir, "rev-parse", "--verify", "--quiet", "HEAD")
        if code != 0:
            return None
        # --no-optional-locks: reading the state must not rewrite the user's index (git status refreshes it).
        status, changes, _ = _git(skill_dir, "--no-optional-locks", "status", "--porcelain", "--", ".")
    except InfraError:
        return None
    commit = out.decode("ascii", errors="replace").strip()
    return f"{commit}-dirty" if status == 0 and changes.strip() else commit


def _extract(archive: bytes, destination: Path) -> None:
    """Unpack a ``git archive`` tar under the ``data`` rules (no links leaving it, no devices: those are skipped)."""
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:") as tar:
        extract_data(tar, destination)


def skill_at_ref(skill_dir: Path, ref: str, name: str) -> SkillAtRef:
    """The skill at ``skill_dir`` as it was at ``ref``, rendered under ``name`` (the current skill's).

    Staged under the current name, the two versions sit at the same place in every workspace, so
    only their content differs between the conditions.
    """
    skill_dir = skill_dir.resolve()
    repo = repository_of(skill_dir)
    commit = resolve_commit(repo, ref)
    rel = PurePosixPath(skill_dir.relative_to(repo).as_posix()) if skill_dir != repo else PurePosixPath(".")
    spec = "." if str(rel) == "." else f"{rel}/"
    code, listing, _ = _git(repo, "ls-tree", "-d", "--name-only", commit, "--", str(rel))
    if str(rel) != "." and (code != 0 or not listing.strip()):
        raise InputError(
            f"{rel} does not exist at {ref} ({commit[:12]}): there is no earlier version to compare against; "
            "run the trial without --against for a with/without lift",
            path=str(rel),
            field="--against",
        )
    code, archive, err = _git(repo, "archive", "--format=tar", commit, "--", spec)
    if code != 0:
        raise InfraError(f"git archive of {rel} at {ref} failed: {err[:300]}")
    if len(archive) > MAX_ARCHIVE_BYTES:
        raise InputError(f"{rel} at {ref} is larger than {MAX_ARCHIVE_BYTES:,} bytes: not read", path=str(rel))
    with tempfile.TemporaryDirectory(prefix="aces-against-") as tmp:
        top = Path(tmp)
        _extract(archive, top)
        try:
            skill = read_skill_tree(top / rel, name)
        except RenderError as exc:
            shown = exc.path.replace(str(top), f"{ref}:").replace(":/", ":")
            raise InputError(f"the skill at {ref} cannot be staged: {exc}", path=shown, field=exc.field) from None
    return SkillAtRef(ref=ref, commit=commit, path=str(rel), skill=skill)
