"""Turn a skill directory on disk into a :class:`RenderedSkill`: the exact bytes an agent will be given.

Rendering is where the eval answers are kept away from the agent: ``evals/`` (prompts, expected
outputs, fixtures) never enters the rendered tree. It is also where an untrusted repository is
bounded: a symlink may not pull in a file from outside the skill, and a skill may not smuggle a
gigabyte or ten thousand files into every rollout workspace.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Any

from ..errors import InputError
from ..skill import SKILL_FILE, split_frontmatter
from ._types import RenderedSkill

MAX_SKILL_FILES = 1000
"""More files than this in one skill is not a skill but a repository; refuse to stage it."""
MAX_SKILL_BYTES = 32 * 1024 * 1024
"""Upper bound on the total size of one rendered skill: it is copied into every workspace."""
EVALS_DIR = "evals"
"""The skill's evaluation data: never shown to the agent it evaluates."""
_SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__"})
"""Version-control and bytecode folders are not part of the skill an agent would install."""


@dataclass(frozen=True)
class SkillCard:
    """What a harness tells an agent about a skill before it is loaded: from the SKILL.md frontmatter."""

    name: str
    description: str | None
    body: str
    """SKILL.md after its frontmatter, newlines normalised to ``\\n``."""


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


def _read_regular(path: Path, rel: str, skill_dir: Path, budget: int) -> bytes:
    """Read one file of the skill, following a symlink only when it stays inside the skill."""
    try:
        st = path.lstat()
        if stat.S_ISLNK(st.st_mode):
            target = path.resolve(strict=True)
            if not target.is_relative_to(skill_dir):
                raise InputError(
                    f"symlink points outside the skill ({target}); copy the file into the skill instead",
                    path=str(path),
                )
            st = target.stat()
            path = target
        if not stat.S_ISREG(st.st_mode):
            raise InputError("not a regular file; a skill may only hold files and directories", path=str(path))
        if st.st_size > budget:
            raise InputError(
                f"skill is larger than {MAX_SKILL_BYTES:,} bytes in total; it cannot be staged per rollout",
                path=str(path),
            )
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(budget + 1)
    except (OSError, RuntimeError) as exc:
        raise InputError(f"cannot read skill file {rel!r}: {exc}", path=str(path)) from exc
    if len(data) > budget:
        raise InputError(f"skill is larger than {MAX_SKILL_BYTES:,} bytes in total", path=str(path))
    return data


def render_skill_dir(path: Path, name: str | None = None) -> RenderedSkill:
    """Read the skill at ``path`` into memory, without ``evals/``, under ``name``.

    The name defaults to the one declared in the frontmatter when it is a usable directory name,
    else the directory's own name. Raises :class:`InputError` naming the offending file when the
    skill cannot be staged faithfully (no SKILL.md, a symlink leaving the skill, too large).
    """
    try:
        skill_dir = path.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        raise InputError(f"skill directory not found: {exc}", path=str(path)) from exc
    if not skill_dir.is_dir():
        raise InputError("not a directory; give the folder that holds SKILL.md", path=str(path))
    if not (skill_dir / SKILL_FILE).is_file():
        hint = " (found lowercase skill.md: rename it to SKILL.md)" if (skill_dir / "skill.md").is_file() else ""
        raise InputError(f"no {SKILL_FILE} in the skill directory{hint}", path=str(path))
    files: dict[str, bytes] = {}
    remaining = MAX_SKILL_BYTES
    for dirpath, dirnames, filenames in os.walk(skill_dir, followlinks=False):
        here = Path(dirpath)
        rel_here = here.relative_to(skill_dir).as_posix()
        descend = []
        for dirname in sorted(dirnames):
            rel = dirname if rel_here == "." else f"{rel_here}/{dirname}"
            if dirname in _SKIPPED_DIRS or rel == EVALS_DIR:
                continue
            if (here / dirname).is_symlink():
                # os.walk does not descend into a linked directory; staging it would silently drop it.
                raise InputError(
                    "symlinked directory in the skill; replace it with a real directory", path=str(here / dirname)
                )
            descend.append(dirname)
        dirnames[:] = descend
        for filename in sorted(filenames):
            rel = filename if rel_here == "." else f"{rel_here}/{filename}"
            if len(files) >= MAX_SKILL_FILES:
                raise InputError(f"skill holds more than {MAX_SKILL_FILES} files", path=str(skill_dir))
            data = _read_regular(here / filename, rel, skill_dir, remaining)
            remaining -= len(data)
            files[rel] = data
    chosen = name if name is not None else (_declared_name(files[SKILL_FILE]) or skill_dir.name)
    if not is_safe_name(chosen):
        raise InputError(f"skill name {chosen!r} cannot be used as a directory name", path=str(path), field="name")
    return RenderedSkill(name=chosen, files=files)
