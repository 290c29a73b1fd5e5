"""Find the skills in a repository and load each one.

A skill is any directory holding ``SKILL.md`` (or, with a warning, ``skill.md``). The walk never
follows symlinked directories (no loops, no escaping the repo), skips VCS and dependency folders,
and honours gitignore-style ``exclude`` patterns from aces.yml.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from ._files import is_within, read_text
from ._frontmatter import split_frontmatter
from ._markdown import parse_markdown
from ._model import Frontmatter, ParseProblem, Resource, ResourceKind, Skill, TextFile
from ._tree import MAX_SKILL_FILES, is_skipped_dir, staging_problems, walk_skill

SKILL_FILE = "SKILL.md"
LOWERCASE_SKILL_FILE = "skill.md"
CONVENTIONAL_ROOTS = ("skills", ".claude/skills", ".agents/skills", ".opencode/skills")
"""Where harnesses look for skills; scanned even though some are hidden directories."""

_KIND_BY_TOP = {
    "scripts": "script",
    "references": "reference",
    "reference": "reference",
    "assets": "asset",
    "templates": "asset",
    "evals": "eval",
}
_SCRIPT_SUFFIXES = frozenset({".py", ".sh", ".bash", ".js", ".mjs", ".ts", ".rb", ".pl", ".ps1"})


def _rel(path: Path, root: Path) -> str:
    rel = path.relative_to(root).as_posix()
    return rel or "."


def _is_hidden_but_conventional(rel_dir: str) -> bool:
    return any(
        rel_dir == root or rel_dir.startswith(root + "/") or root.startswith(rel_dir + "/")
        for root in CONVENTIONAL_ROOTS
    )


def _listing(directory: str) -> tuple[list[str], set[str]]:
    """Sub-directories that can be descended (not symlinks) and the names of everything else, as
    ``os.walk`` classifies them; an unreadable directory lists as empty, as ``os.walk`` skips it."""
    walkable: list[str] = []
    others: set[str] = set()
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                try:
                    is_dir = entry.is_dir()
                    is_link = entry.is_symlink()
                except OSError:
                    is_dir = is_link = False
                if not is_dir:
                    others.add(entry.name)
                elif not is_link:  # symlinked directories are never followed: no loops, no escapes
                    walkable.append(entry.name)
    except OSError:
        pass
    return walkable, others


def iter_skill_dirs(root: Path, exclude: Iterable[str] = (), *, within: Path | None = None) -> Iterator[Path]:
    """Yield every directory under ``root`` that holds a SKILL.md (or skill.md), sorted, no duplicates.

    A directory is yielded before the directories under it, and siblings in name order. With
    ``within`` (a directory inside ``root``), only that part of the tree is walked, while
    ``exclude`` patterns and the hidden-folder rule still read paths relative to ``root``.
    """
    patterns = list(exclude)
    spec = None
    if patterns:
        import pathspec  # only a scan with excludes needs it; importing it costs more than a small scan

        spec = pathspec.PathSpec.from_lines("gitignore", patterns)
    root = root.resolve()
    start = root if within is None else within.resolve()
    # (absolute path, path relative to root): relative paths are built by string joins, because this
    # walk visits every directory of the repository.
    pending: list[tuple[str, str]] = [(os.fspath(start), _rel(start, root))]
    while pending:
        directory, rel_here = pending.pop()
        subdirectories, names = _listing(directory)
        if SKILL_FILE in names or LOWERCASE_SKILL_FILE in names:
            yield Path(directory)
        kept = []
        for name in sorted(subdirectories):
            rel_child = name if rel_here == "." else f"{rel_here}/{name}"
            if is_skipped_dir(name, os.path.join(directory, name)):
                continue
            if name.startswith(".") and not _is_hidden_but_conventional(rel_child):
                continue
            if spec is not None and spec.match_file(rel_child + "/"):
                continue
            kept.append((os.path.join(directory, name), rel_child))
        pending.extend(reversed(kept))


def _resource_kind(rel: str) -> ResourceKind:
    top = rel.split("/", 1)[0]
    if top in _KIND_BY_TOP and "/" in rel:
        return _KIND_BY_TOP[top]  # type: ignore[return-value]
    if Path(rel).suffix in _SCRIPT_SUFFIXES:
        return "script"
    return "other"


def _list_resources(skill_dir: Path, repo_root: Path, skill_md_name: str) -> tuple[list[Resource], list[ParseProblem]]:
    """The files of the skill as the renderer will see them (:func:`walk_skill`), and what stops staging."""
    tree = walk_skill(skill_dir)
    resources: list[Resource] = []
    problems: list[ParseProblem] = [
        ParseProblem("unreadable", f"{rel}: {reason}", path=_rel(skill_dir / rel, repo_root))
        for rel, reason in tree.unreadable
    ]
    for entry in tree.entries:
        if entry.rel == skill_md_name:
            continue
        target = None
        size, executable = entry.size, bool(entry.mode & 0o111)
        if entry.is_symlink:
            try:
                target = str(entry.path.resolve(strict=False))
            except (OSError, RuntimeError):
                target = "<unresolvable link loop>"
            try:
                real = entry.path.stat()
                size, executable = real.st_size, bool(real.st_mode & 0o111)
            except OSError:
                size = 0
        resources.append(
            Resource(entry.rel, entry.path, _resource_kind(entry.rel), size, entry.is_symlink, target, executable)
        )
    if tree.truncated:
        problems.append(ParseProblem("too-many-files", f"more than {MAX_SKILL_FILES} files; the rest not listed"))
    for problem in staging_problems(skill_dir, tree):
        if problem.path == skill_md_name and problem.code in ("dangling-symlink", "special-file"):
            continue  # an unreadable SKILL.md is reported as such; there is no skill to stage
        where = _rel(skill_dir / problem.path, repo_root) if problem.path else None
        problems.append(replace(problem, path=where))
    return resources, problems


def load_skill(skill_dir: Path, repo_root: Path) -> Skill:
    """Read one skill directory. Never raises on bad content: problems are recorded on the result."""
    skill_dir = skill_dir.resolve()
    repo_root = repo_root.resolve()
    problems: list[ParseProblem] = []
    md_name = SKILL_FILE
    if not (skill_dir / SKILL_FILE).exists() and (skill_dir / LOWERCASE_SKILL_FILE).exists():
        md_name = LOWERCASE_SKILL_FILE
        problems.append(
            ParseProblem(
                "lowercase-skill-md",
                "skill file is named 'skill.md'; the spec and most harnesses want 'SKILL.md'",
            )
        )

    rel_dir = _rel(skill_dir, repo_root)
    md_rel = md_name if rel_dir == "." else f"{rel_dir}/{md_name}"
    md_path = skill_dir / md_name
    if md_path.is_symlink() and not is_within(md_path, repo_root):
        # Reading it would copy a file from outside the repository into findings and reports.
        outside = ParseProblem("unreadable", f"{md_name} is a symlink leading outside the repository: not read")
        skill_md = TextFile(md_path, md_rel, 0, None, problems=(outside,))
    else:
        skill_md = read_text(md_path, md_rel)
    text = skill_md.text or ""
    front, body_text, body_line = split_frontmatter(text)
    if skill_md.truncated:
        front = _unclosed_within_cap(front, len(text))
    if skill_md.text is None:
        # Binary or unreadable SKILL.md: the file-level problem explains it, no frontmatter to report.
        front = type(front)(None, False)
    body = parse_markdown(body_text, body_line)
    resources, res_problems = _list_resources(skill_dir, repo_root, md_name)
    problems.extend(res_problems)
    return Skill(
        dir=skill_dir,
        rel_dir=rel_dir,
        repo_root=repo_root,
        skill_md=skill_md,
        frontmatter=front,
        body=body,
        resources=tuple(resources),
        problems=tuple(problems),
    )


def _unclosed_within_cap(front: Frontmatter, examined_chars: int) -> Frontmatter:
    """Reword "never closed" for a SKILL.md cut at the read cap: the closing fence may lie past the cut."""
    problems = tuple(
        replace(
            problem,
            message=f"frontmatter opened with '---' on line 1 is not closed within the first "
            f"{examined_chars:,} characters examined (the file is cut at the size cap)",
        )
        if problem.code == "frontmatter-unclosed"
        else problem
        for problem in front.problems
    )
    return replace(front, problems=problems)


def discover_skills(root: Path, exclude: Iterable[str] = ()) -> list[Skill]:
    """Find and load every skill under ``root``."""
    root = root.resolve()
    return [load_skill(path, root) for path in iter_skill_dirs(root, exclude)]
