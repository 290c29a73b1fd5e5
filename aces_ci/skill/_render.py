"""A skill as an agent will be given it: a name and the exact bytes of its files.

Rendering is where the eval answers are kept away from the agent: ``evals/`` (prompts, expected
outputs, fixtures) never enters the rendered tree. It is also where an untrusted repository is
bounded: a symlink may not pull in a file from outside the skill, and a skill may not smuggle a
gigabyte or ten thousand files into every rollout workspace. It walks the directory exactly as
the scan lists it (:func:`~aces_ci.skill._tree.walk_skill`) and refuses exactly what the scan
reports as unstageable, so a skill the scan accepts always renders.

:class:`RenderedSkill` is also the seam for edited variants: SkillSV renders coalitions of a
skill's units into new file trees and hands them on with :meth:`RenderedSkill.with_files`; trials
stage the skill as it is.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Any

from ._discover import LOWERCASE_SKILL_FILE, SKILL_FILE
from ._filemap import FileMap, files_digest
from ._files import Refused, read_head
from ._frontmatter import split_frontmatter
from ._tree import MAX_SKILL_BYTES, MAX_SKILL_FILES, TreeEntry, staging_problem, walk_skill


class RenderError(Exception):
    """The skill cannot be rendered faithfully; ``path`` names the offending file or folder."""

    def __init__(self, message: str, path: str, field: str | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.field = field


def is_safe_name(name: str) -> bool:
    """Whether ``name`` can be one directory level: no separators, no ``.``/``..``, no control characters."""
    return (
        bool(name)
        and name not in (".", "..")
        and "/" not in name
        and "\\" not in name
        and all(ch.isprintable() for ch in name)
        and len(name.encode("utf-8")) <= 255
    )


def safe_relative_path(rel: str) -> PurePosixPath | None:
    """``rel`` as a relative POSIX path that cannot leave its base directory, or None if it could."""
    if not rel or "\x00" in rel or "\\" in rel:
        return None
    path = PurePosixPath(rel)
    if path.is_absolute() or any(part in ("..", "") for part in path.parts) or path.parts == (".",):
        return None
    return path


@dataclass(frozen=True)
class RenderedSkill:
    """A skill as it will be staged: a name and a virtual file tree (SKILL.md plus resources)."""

    name: str
    files: Mapping[str, bytes]
    """Path relative to the skill directory (POSIX) → content. Must contain ``SKILL.md``.
    Always a :class:`FileMap` once built (any mapping given is frozen), so the skill is hashable."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "files", FileMap.of(self.files))

    @property
    def digest(self) -> str:
        return files_digest(self.files)

    def with_files(self, files: Mapping[str, bytes]) -> RenderedSkill:
        """The same skill with another file tree (an edited variant); the paths must stay inside the skill."""
        for rel in files:
            if safe_relative_path(rel) is None:
                raise RenderError("a rendered file path leaves the skill directory", path=rel)
        if SKILL_FILE not in files:
            raise RenderError(f"a rendered skill needs a {SKILL_FILE}", path=self.name)
        return RenderedSkill(self.name, dict(files))


@dataclass(frozen=True)
class SkillCard:
    """What a harness tells an agent about a skill before it is loaded: from the SKILL.md frontmatter."""

    name: str
    description: str | None
    body: str
    """SKILL.md after its frontmatter, newlines normalised to ``\\n``."""


def skill_card(skill: RenderedSkill) -> SkillCard:
    """Name, description and body of a rendered skill (its SKILL.md decoded leniently)."""
    data, body = _parsed(skill.files.get(SKILL_FILE, b""))
    raw = data.get("description")
    description = " ".join(raw.split()) if isinstance(raw, str) and raw.strip() else None
    return SkillCard(name=skill.name, description=description, body=body)


@functools.lru_cache(maxsize=256)
def _parsed(skill_md: bytes) -> tuple[Mapping[str, Any], str]:
    """Frontmatter mapping and body of SKILL.md; cached because every rollout of a batch stages the
    same few skills, and YAML parsing is not free."""
    text = skill_md.decode("utf-8", errors="replace")
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    front, body, _ = split_frontmatter(text)
    return MappingProxyType(dict(front.data or {})), body


def _declared_name(skill_md: bytes) -> str | None:
    declared = _parsed(skill_md)[0].get("name")
    return declared.strip() if isinstance(declared, str) and is_safe_name(declared.strip()) else None


def _read(entry: TreeEntry, budget: int) -> bytes:
    """The bytes of one staged file (a symlink's target, once :func:`staging_problem` allowed it)."""
    try:
        # The bounded reader: a file swapped for a FIFO or a device since the walk is refused, not read.
        data, _ = read_head(entry.path, budget)
    except Refused as refused:
        reason = f"{refused.reason} ({refused.kind})" if refused.kind else refused.reason
        raise RenderError(f"cannot read skill file {entry.rel!r}: {reason}", path=str(entry.path)) from None
    if len(data) > budget:
        raise RenderError(
            f"skill is larger than {MAX_SKILL_BYTES:,} bytes in total; it cannot be staged per rollout",
            path=str(entry.path),
        )
    return data


def read_skill_tree(path: Path, name: str | None = None) -> RenderedSkill:
    """Read the skill at ``path`` into memory, without ``evals/`` and tool folders, under ``name``.

    The name defaults to the one declared in the frontmatter when it is a usable directory name,
    else the directory's own name. Raises :class:`RenderError` naming the offending file when the
    skill cannot be staged faithfully (no SKILL.md, a symlink leaving the skill, too large).
    """
    try:
        skill_dir = path.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        raise RenderError(f"skill directory not found: {exc}", path=str(path)) from exc
    if not skill_dir.is_dir():
        raise RenderError("not a directory; give the folder that holds SKILL.md", path=str(path))
    if not (skill_dir / SKILL_FILE).is_file():
        lower = (skill_dir / LOWERCASE_SKILL_FILE).is_file()
        hint = " (found lowercase skill.md: rename it to SKILL.md)" if lower else ""
        raise RenderError(f"no {SKILL_FILE} in the skill directory{hint}", path=str(path))
    tree = walk_skill(skill_dir)
    if tree.truncated:
        raise RenderError(f"skill holds more than {MAX_SKILL_FILES} files", path=str(skill_dir))
    if tree.unreadable:
        rel, reason = tree.unreadable[0]
        raise RenderError(f"cannot read {rel!r} of the skill: {reason}", path=str(skill_dir / rel))
    files: dict[str, bytes] = {}
    remaining = MAX_SKILL_BYTES
    for entry in tree.entries:
        if entry.in_evals:
            continue
        problem = staging_problem(entry, skill_dir)
        if problem is not None:
            raise RenderError(problem.message, path=str(entry.path))
        data = _read(entry, remaining)
        remaining -= len(data)
        files[entry.rel] = data
    chosen = name if name is not None else (_declared_name(files[SKILL_FILE]) or skill_dir.name)
    if not is_safe_name(chosen):
        raise RenderError(f"skill name {chosen!r} cannot be used as a directory name", path=str(path), field="name")
    return RenderedSkill(name=chosen, files=files)
