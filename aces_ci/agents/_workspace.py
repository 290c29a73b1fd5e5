"""Stage one rollout's workspace, and the baseline guard that proves a condition lacks the skill under test.

A rollout gets a fresh temporary tree: the case's fixture files under ``root`` (the agent's working
directory), a throwaway ``home``, and every skill of the request's :class:`SkillSet` written where
the harness discovers skills. Supporting skills and decoys are written the same way in every
condition, so the only difference between the conditions of a pair is what the caller put there.

What a condition must or must not stage is the caller's policy, given to staging as a
:data:`StagingGuard` that sees the whole :class:`StagingPlan` before anything is written.
:func:`baseline_guard` is the one paired trials need: a request that does not stage its skill
under test must carry no copy of it either. A copy can sneak in under another name, as a decoy
with the same bytes, or pasted into a fixture; each of these would make the skill look useless.
The guard checks every file that will be staged, and refuses with the offending path.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..errors import InfraError, InputError
from ..redact import get_logger
from ..skill import SKILL_FILE, RenderedSkill, files_digest, is_safe_name, safe_relative_path, skill_card
from ._harness import Harness, Workspace
from ._types import RolloutRequest

_log = get_logger(__name__)

MIN_GUARDED_BODY_CHARS = 64
"""A SKILL.md body shorter than this is not searched for inside other files: a heading or two
would match innocent text. Byte-identical SKILL.md files and identical trees are still refused."""


def _normalised_text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")


_PROBE_TOP = Path("/aces-workspace")
"""Where :func:`plan_workspace` pretends the workspace is: skill roots are pure functions of the paths."""


def _skill_root_rel(harness: Harness, top: Path) -> PurePosixPath:
    """The harness's skill root relative to the workspace's top directory; refused if it lies outside."""
    skill_root = harness.skill_root(top / "work", top / "home")
    if not skill_root.is_absolute() or ".." in skill_root.parts or not skill_root.is_relative_to(top):
        raise InputError(
            f"harness {harness.name!r} puts skills outside the workspace ({skill_root})", field="skill_root"
        )
    rel = PurePosixPath(skill_root.relative_to(top).as_posix())
    if rel.parts[:1] not in (("work",), ("home",)):
        raise InputError(f"harness {harness.name!r} puts skills outside work/ and home/ ({rel})", field="skill_root")
    return rel


@dataclass(frozen=True)
class StagingPlan:
    """Every file staging will write, before any is written: what a :data:`StagingGuard` inspects."""

    files: Mapping[str, bytes]
    """Path relative to the workspace's top directory (``work/…`` or ``home/…``) → content."""
    skill_root: str
    """Where this harness discovers skills, relative to the top directory (e.g. ``work/.agents/skills``)."""

    def skill_dir(self, name: str) -> str:
        """Where a skill called ``name`` is (or would be) staged, relative to the top directory."""
        return f"{self.skill_root}/{name}"

    def under_root(self) -> dict[str, bytes]:
        """The planned files inside the agent's working directory, relative to it."""
        return {path[len("work/") :]: data for path, data in self.files.items() if path.startswith("work/")}


StagingGuard = Callable[[RolloutRequest, StagingPlan], None]
"""The caller's check of one request's plan (raise :class:`InputError` to refuse); see :func:`baseline_guard`."""


def plan_workspace(request: RolloutRequest, harness: Harness) -> StagingPlan:
    """Every file staging will write, keyed by its path relative to the workspace's top directory.

    Fixtures go under ``work/`` (the agent's working directory); each skill under
    ``<skill root>/<name>/``, which lies in ``work/`` or ``home/`` depending on the harness.
    Raises :class:`InputError` for a path that would leave its directory or collide with another.
    """
    skill_root = _skill_root_rel(harness, _PROBE_TOP)
    planned: dict[str, bytes] = {}
    for rel, data in request.fixtures.items():
        safe = safe_relative_path(rel)
        if safe is None:
            raise InputError("fixture path must be relative and stay inside the workspace", path=rel)
        planned[f"work/{safe.as_posix()}"] = data
    seen: set[str] = set()
    for skill in request.skills.skills:
        if not is_safe_name(skill.name):
            raise InputError(f"skill name {skill.name!r} cannot be used as a directory name", field="name")
        if skill.name in seen:
            raise InputError(f"two staged skills are both named {skill.name!r}", field="name")
        seen.add(skill.name)
        if SKILL_FILE not in skill.files:
            raise InputError(f"rendered skill {skill.name!r} has no {SKILL_FILE}", path=skill.name)
        for rel, data in skill.files.items():
            safe = safe_relative_path(rel)
            if safe is None:
                raise InputError(f"file path in skill {skill.name!r} leaves the skill directory", path=rel)
            staged = f"{skill_root.as_posix()}/{skill.name}/{safe.as_posix()}"
            if staged in planned:
                raise InputError("a fixture and a staged skill file would land on the same path", path=staged)
            planned[staged] = data
    for path in planned:
        parent = path.rsplit("/", 1)[0]
        while "/" in parent:
            if parent in planned:
                raise InputError("a staged file would have to be a directory too", path=parent)
            parent = parent.rsplit("/", 1)[0]
    return StagingPlan(files=planned, skill_root=skill_root.as_posix())


def _skill_trees(planned: Mapping[str, bytes]) -> dict[str, dict[str, bytes]]:
    """Every directory of the plan that holds a SKILL.md, with the files beneath it (relative to it)."""
    dirs = [path[: -len(SKILL_FILE) - 1] for path in planned if path.endswith(f"/{SKILL_FILE}")]
    return {
        d: {path[len(d) + 1 :]: data for path, data in planned.items() if path.startswith(d + "/")}
        for d in sorted(dirs)
    }


def check_baseline(planned: Mapping[str, bytes], target: RenderedSkill, target_dir: str) -> None:
    """Refuse a baseline workspace plan that still carries the target skill in any form.

    ``planned`` is a :class:`StagingPlan`'s files; ``target_dir`` is where the target would be
    staged (:meth:`StagingPlan.skill_dir`). Checked in this order, the first offending path named in the
    :class:`InputError`:

    1. anything staged at the target's own directory (its name);
    2. a directory holding SKILL.md whose file tree hashes like the target's (a renamed copy);
    3. a SKILL.md with exactly the target's SKILL.md bytes, under any name (resources may differ);
    4. any staged file or fixture containing the target's whole SKILL.md, or its body text
       (when the body has at least :data:`MIN_GUARDED_BODY_CHARS` characters; newlines normalised).
    """
    target_md = target.files.get(SKILL_FILE, b"")
    for path in sorted(planned):
        if path.startswith(target_dir + "/"):
            raise InputError(f"the baseline stages the skill under test, {target.name!r}, by name", path=path)
    target_digest = target.digest
    for directory, tree in _skill_trees(planned).items():
        if files_digest(tree) == target_digest:
            raise InputError(f"the baseline stages a renamed copy of skill {target.name!r}", path=directory)
    for path in sorted(planned):
        if path.endswith(f"/{SKILL_FILE}") and planned[path] == target_md:
            raise InputError(f"the baseline stages a copy of {target.name!r}'s SKILL.md under another name", path=path)
    body = skill_card(target).body.strip()
    whole = _normalised_text(target_md).strip()
    for path in sorted(planned):
        data = planned[path]
        if target_md and target_md in data:
            raise InputError(f"the baseline carries {target.name!r}'s SKILL.md inside this file", path=path)
        if len(body) >= MIN_GUARDED_BODY_CHARS:
            text = _normalised_text(data)
            if body in text or whole in text:
                raise InputError(f"the baseline carries the body of skill {target.name!r} inside this file", path=path)


def baseline_guard(
    skills_under_test: Iterable[RenderedSkill], baseline_conditions: Iterable[str] = ("without",)
) -> StagingGuard:
    """The guard of paired trials: a request of a baseline condition holds no copy of its skill under test.

    ``skills_under_test`` are the skills requests may name as their target (by name);
    ``baseline_conditions`` the condition labels that must lack it. A request of such a condition
    must name a known skill and pass :func:`check_baseline` against it (so not even a different
    skill may take the target's name there); a target unknown to the guard is refused, since its
    absence could not be proven. Requests of other conditions pass.
    """
    by_name = {skill.name: skill for skill in skills_under_test}
    baselines = frozenset(baseline_conditions)

    def guard(request: RolloutRequest, plan: StagingPlan) -> None:
        if request.condition not in baselines:
            return
        target = request.skills.target
        skill = by_name.get(target)
        if skill is None:
            raise InputError(
                f"condition {request.condition!r} must lack skill {target!r}, but the baseline guard was not "
                f"given that skill, so its absence cannot be proven",
                field="skills.target",
            )
        check_baseline(plan.files, skill, plan.skill_dir(target))

    return guard


def plan_checked(request: RolloutRequest, harness: Harness, guard: StagingGuard | None = None) -> StagingPlan:
    """:func:`plan_workspace`, passed through ``guard``: cheap, so run it before spending money."""
    plan = plan_workspace(request, harness)
    if guard is not None:
        guard(request, plan)
    return plan


def _make_executable_if_script(path: Path, data: bytes) -> None:
    """Files starting with ``#!`` become executable: the bytes carry no mode, and scripts must run."""
    if data.startswith(b"#!"):
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _write_tree(top: Path, planned: Mapping[str, bytes]) -> None:
    for rel, data in planned.items():
        target = top / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        # O_EXCL + O_NOFOLLOW: never write through anything that already exists at that path.
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        _make_executable_if_script(target, data)


def _make_directories_writable(path: Path) -> None:
    """Give the owner rwx on every directory below ``path`` (links untouched), so their entries can go."""
    for dirpath, dirnames, _ in os.walk(path, followlinks=False):
        for name in dirnames:
            child = os.path.join(dirpath, name)
            with contextlib.suppress(OSError):
                mode = os.lstat(child).st_mode
                if stat.S_ISDIR(mode):
                    os.chmod(child, mode | stat.S_IRWXU)


def remove_tree(path: Path) -> None:
    """Delete a workspace, even when the agent left read-only directories in it; warn, never raise."""
    try:
        shutil.rmtree(path)
        return
    except FileNotFoundError:
        return
    except OSError:
        _make_directories_writable(path)
    try:
        shutil.rmtree(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        # A leftover temp dir is a nuisance; failing the rollout over it would lose its result.
        _log.warning("could not remove workspace %s: %s", path, exc)


@contextlib.contextmanager
def stage_workspace(
    request: RolloutRequest,
    harness: Harness,
    base_dir: Path | None = None,
    keep: bool = False,
    *,
    guard: StagingGuard | None = None,
) -> Iterator[Workspace]:
    """Create the rollout's workspace under ``base_dir`` (the system temp dir by default).

    ``guard`` sees the plan first and may refuse it (:class:`InputError`), before anything is
    written. The tree is deleted on exit unless ``keep``.
    """
    plan = plan_checked(request, harness, guard)
    try:
        top = Path(tempfile.mkdtemp(prefix="aces-rollout-", dir=base_dir)).resolve()
    except OSError as exc:
        raise InfraError(f"cannot create a workspace under {base_dir or tempfile.gettempdir()}: {exc}") from exc
    try:
        root, home = top / "work", top / "home"
        root.mkdir()
        home.mkdir()
        skill_root = top / plan.skill_root
        try:
            _write_tree(top, plan.files)
            skill_root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InfraError(f"cannot stage the workspace in {top}: {exc}") from exc
        yield Workspace(
            root=root,
            home=home,
            skill_dirs={s.name: skill_root / s.name for s in request.skills.skills},
            staged=plan.under_root(),
        )
    finally:
        if not keep:
            remove_tree(top)
