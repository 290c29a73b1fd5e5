"""REF: every file SKILL.md points at exists, stays inside the skill, and is one level deep.

An agent follows SKILL.md's links and commands literally. A missing file is a dead end at the
moment the skill is needed; a path that leaves the skill directory breaks as soon as the skill is
installed on its own; a symlink out of the repository pulls in whatever lives on the machine.

This module also answers, for the SCRIPT and SEC families, two questions about references:
which scripts SKILL.md runs (:func:`script_invocations`) and which files of a skill may be read
without following a link out of the repository (:func:`aces_ci.skill.read_resource`).
"""

from __future__ import annotations

import errno
import os
import posixpath
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from ...redact import excerpt, redact_text
from ...skill import Link, Resource, Skill, is_within
from .._context import ScanContext
from .._finding import Hit, Location, Severity
from .._registry import Rule, define

RULES: list[Rule] = []

SKILL_FOLDERS = frozenset({"scripts", "references", "reference", "assets", "templates"})
"""Top-level folders that, by the spec and by habit, belong to the skill itself."""

_CLAUSE_REFS = "agentskills.io: file references are relative to the skill root"
_CLAUSE_ONE_LEVEL = "agentskills.io: keep file references one level deep from SKILL.md"

_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")

# ``python3 -u scripts/x.py``, ``uv run --with pandas scripts/x.py``, ``bash "$SKILL_DIR/scripts/y.sh"``.
_INTERPRETED_RUN = re.compile(
    r"(?:^|(?<=[\s;&|(`]))(?:sudo\s+)?"
    r"(?:python[0-9.]*|py|uv\s+run|pipx\s+run|bash|sh|zsh|node|deno\s+run|bun(?:\s+run)?|tsx|ts-node"
    r"|ruby|perl|pwsh|powershell(?:\.exe)?|Rscript|source|\.)"
    r"\s+(?:--?[\w-]+(?:=\S+|\s+[^\s-]\S*)?\s+)*[\"']?"
    r"(?P<path>(?:\$\{?[A-Za-z_]\w*\}?/|\{[A-Za-z_]\w*\}/|\.\.?/|~/|/)?[\w.-]+(?:/[\w.-]+)*"
    r"\.(?:py|sh|bash|zsh|js|mjs|cjs|ts|rb|pl|ps1|R))"
    r"(?=[\"']?(?:$|[\s;&|)`]))"
)
# ``./scripts/setup.sh`` or ``"${CLAUDE_SKILL_DIR}/scripts/setup"`` where a command starts: the
# file has a script suffix or none (a Markdown link ``(./reference/x.md)`` is not a command).
_DIRECT_RUN = re.compile(
    r"(?:^\s*(?:\$\s+)?|[;&|`]\s*|\$\(\s*)[\"']?"
    r"(?P<path>(?:\$\{?[A-Za-z_]\w*\}?/|\{[A-Za-z_]\w*\}/|\./)(?:[\w.-]+/)*"
    r"(?:[\w-]+|[\w.-]+\.(?:py|sh|bash|zsh|js|mjs|cjs|ts|rb|pl|ps1|R)))"
    r"(?=[\"']?(?:$|[\s;&|)`]))"
)
_SKILL_DIR_VARIABLE = re.compile(r"^(?:\$\{?(?P<var>[A-Za-z_]\w*)\}?|\{(?P<brace>[A-Za-z_]\w*)\})/")
_NAMES_SKILL_DIR = re.compile(r"skill|basedir", re.IGNORECASE)


@dataclass(frozen=True)
class ScriptRun:
    """A script SKILL.md tells the agent to run, as a path relative to the skill directory."""

    path: str
    line: int
    direct: bool
    """Run as a program (``./scripts/x.sh``) rather than through an interpreter: needs the exec bit."""


def local_path(target: str) -> str | None:
    """The file path a link or mention names (fragment and query dropped, %-escapes decoded).

    None when it names no local file: a URL, ``mailto:``, an in-page ``#anchor`` or nothing.
    """
    value = target.strip().removeprefix("<").removesuffix(">")
    if not value or value.startswith(("#", "//")):
        return None
    if not _WINDOWS_DRIVE.match(value) and _URL_SCHEME.match(value):
        return None
    value = value.split("#", 1)[0].split("?", 1)[0]
    return unquote(value) or None


def _outside_reason(path: str) -> str | None:
    """Why ``path`` (relative to the skill directory) does not stay inside it, or None if it does."""
    if path.startswith(("/", "\\", "~")) or _WINDOWS_DRIVE.match(path):
        return "is an absolute path"
    normalized = posixpath.normpath(path)
    if normalized == ".." or normalized.startswith("../"):
        return "leaves the skill directory"
    return None


def _exists(path: Path, *, directory: bool = False) -> bool:
    """``Path.exists`` (or ``is_dir``) that answers "no" for names the system refuses.

    A link target may be 5,000 characters long or hold a NUL byte; pathlib raises on those.
    """
    try:
        return path.is_dir() if directory else path.exists()
    except (OSError, ValueError):
        return False


def _quoted(value: str) -> str:
    """A user-written path made safe for a one-line message: redacted, shortened, control characters escaped."""
    shown = excerpt(redact_text(value), limit=120)
    return f"'{shown}'" if shown.isprintable() else ascii(shown)


def _case_hint(skill: Skill, path: str) -> str:
    wanted = path.lower()
    for resource in skill.resources:
        if resource.rel.lower() == wanted:
            return f" ({_quoted(resource.rel)} exists: file names are case-sensitive on Linux)"
    return ""


def _in_skill_folder(skill: Skill, path: str, *, conventional: bool) -> bool:
    """Whether ``path`` lies under a folder the skill has (or, with ``conventional``, a skill folder name).

    That is what tells a path of the skill from one of the user's project or a made-up example.
    """
    if "/" not in path:
        return False
    first = path.split("/", 1)[0]
    return (conventional and first in SKILL_FOLDERS) or _exists(skill.dir / first, directory=True)


def _evidence(lines: list[str], line: int) -> str | None:
    return excerpt(lines[line - 1]) if 0 < line <= len(lines) else None


def _skill_md_evidence(ctx: ScanContext, line: int) -> str | None:
    """SKILL.md's line ``line``, redacted: computed only when a finding needs it."""
    return _evidence(ctx.inputs.skill_md_lines(), line)


def _body_lines(skill: Skill) -> Iterator[tuple[int, str]]:
    """(file line, text) of every SKILL.md line after the frontmatter."""
    lines = (skill.skill_md.text or "").split("\n")
    first = skill.body.first_line
    for index in range(first - 1, len(lines)):
        yield index + 1, lines[index]


def _strip_skill_dir_variable(path: str) -> tuple[str, bool]:
    """``${CLAUDE_SKILL_DIR}/scripts/x.py`` → (``scripts/x.py``, True); other paths unchanged."""
    match = _SKILL_DIR_VARIABLE.match(path)
    if match is None:
        return path, False
    if _NAMES_SKILL_DIR.search(match["var"] or match["brace"]):
        return path[match.end() :], True
    return path, False


def script_invocations(skill: Skill) -> list[ScriptRun]:
    """Scripts SKILL.md runs, in commands anywhere in its body, that can be checked against the skill.

    A path counts when it is anchored in the skill: under a skill folder (``scripts/``), under a
    directory the skill has, or behind a variable naming the skill directory. ``python main.py``
    names a file of the user's project and is left alone; so are absolute paths.
    """
    runs: dict[tuple[int, str], ScriptRun] = {}
    for number, text in _body_lines(skill):
        found = [(m, False) for m in _INTERPRETED_RUN.finditer(text)]
        found += [(m, True) for m in _DIRECT_RUN.finditer(text)]
        for match, direct in found:
            raw, anchored = _strip_skill_dir_variable(match["path"])
            if raw.startswith(("/", "~", "$", "{")):
                continue
            path = posixpath.normpath(raw)
            if path.startswith("../") or not (anchored or _in_skill_folder(skill, path, conventional=True)):
                continue
            previous = runs.get((number, path))
            runs[(number, path)] = ScriptRun(path, number, direct or (previous is not None and previous.direct))
    return sorted(runs.values(), key=lambda run: (run.line, run.path))


def skill_script_runs(ctx: ScanContext) -> list[ScriptRun]:
    """:func:`script_invocations` of the context's skill, worked out once for the REF and SCRIPT rules."""
    return ctx.inputs.cached((script_invocations,), lambda: script_invocations(ctx.skill))


@define(
    RULES,
    id="REF001",
    name="broken-link",
    severity=Severity.ERROR,
    summary="A Markdown link or image in SKILL.md points at a file the skill does not have.",
    fix="Fix the path (relative to the skill directory, case-sensitive) or add the missing file.",
)
def broken_link(ctx: ScanContext) -> Iterator[Hit]:
    """A link in SKILL.md is an instruction to read a file; a missing file is a dead end.

    URLs, ``mailto:`` and in-page anchors are not files and are skipped; ``#fragment`` and
    ``?query`` are dropped and %-escapes decoded before the check. Paths leaving the skill are
    REF003's business.

    PASS: ``See [the API notes](references/api.md)`` with ``references/api.md`` present.
    FAIL: ``See [the API notes](references/API.md)`` when only ``references/api.md`` exists.
    """
    for link in ctx.skill.body.links:
        if link.kind == "mention":
            continue
        path = local_path(link.target)
        if path is None or _outside_reason(path) is not None:
            continue
        if _exists(ctx.skill.dir / path):
            continue
        what = "image" if link.kind == "image" else "link target"
        hint = _case_hint(ctx.skill, posixpath.normpath(path))
        if not hint and "\\" in path:
            hint = " (use forward slashes: backslashes are part of the name on Linux and macOS)"
        yield Hit(
            f"{what} {_quoted(link.target)} does not exist in the skill{hint}",
            ctx.at(link.line),
            evidence=_skill_md_evidence(ctx, link.line),
            clause=_CLAUSE_REFS,
        )


@define(
    RULES,
    id="REF002",
    name="broken-file-mention",
    severity=Severity.WARNING,
    summary="SKILL.md mentions a file under a skill folder that the skill does not have.",
    fix="Correct the path, add the file, or reword if the path names a file of the user's project.",
)
def broken_mention(ctx: ScanContext) -> Iterator[Hit]:
    """A path written in prose or code (``references/forms.md``) tells the agent a file exists.

    Mentions are softer evidence than links: a path in prose may name a file the agent is to
    create, one in the user's project, or an example (``e.g. `assets/logo.png```). So a mention is
    checked only when its first folder exists in the skill: with a ``references/`` folder present,
    a missing ``references/forms.md`` is a broken reference. Scripts that SKILL.md runs are
    REF005's business.

    PASS: ``Fill in `references/forms.md` first`` with that file present.
    FAIL: the same line when the skill has ``references/`` but no ``forms.md`` in it.
    """
    runs = {(run.line, run.path) for run in skill_script_runs(ctx)}
    seen: set[tuple[int, str]] = set()
    for link in ctx.skill.body.links:
        if link.kind != "mention":
            continue
        path = local_path(link.target)
        if path is None or _outside_reason(path) is not None:
            continue
        normalized = posixpath.normpath(path)
        key = (link.line, normalized)
        if key in seen or key in runs or not _in_skill_folder(ctx.skill, normalized, conventional=False):
            continue
        seen.add(key)
        if _exists(ctx.skill.dir / normalized):
            continue
        yield Hit(
            f"{_quoted(link.target)} is mentioned but does not exist in the skill" + _case_hint(ctx.skill, normalized),
            ctx.at(link.line),
            evidence=_skill_md_evidence(ctx, link.line),
            clause=_CLAUSE_REFS,
        )


@define(
    RULES,
    id="REF003",
    name="path-outside-skill",
    severity=Severity.WARNING,
    summary="SKILL.md points at a path outside the skill directory (../ or absolute).",
    fix="Copy the file into the skill (e.g. references/) and link it relative to the skill root.",
)
def path_outside_skill(ctx: ScanContext) -> Iterator[Hit]:
    """A skill is installed as one directory (``~/.claude/skills/<name>/``): nothing above it comes along.

    A link to ``../shared/style.md`` works in the repository and breaks for every user who installs
    the skill; an absolute path names a file on the author's machine.

    PASS: ``[style guide](references/style.md)``.
    FAIL: ``[style guide](../shared/style.md)`` or ``[notes](/home/me/notes.md)``.
    """
    seen: set[tuple[int, str]] = set()
    for link in ctx.skill.body.links:
        path = local_path(link.target)
        if path is None:
            continue
        reason = _outside_reason(path)
        if reason is None or (link.line, path) in seen:
            continue
        seen.add((link.line, path))
        yield Hit(
            f"{_quoted(link.target)} {reason}: it breaks when the skill is installed on its own",
            ctx.at(link.line),
            evidence=_skill_md_evidence(ctx, link.line),
            clause=_CLAUSE_REFS,
        )


@define(
    RULES,
    id="REF004",
    name="symlink-escape",
    severity=Severity.ERROR,
    summary="A symlink in the skill (SKILL.md included) points outside the repository, or loops.",
    fix="Replace the symlink with a copy of the file it should provide.",
)
def symlink_escape(ctx: ScanContext) -> Iterator[Hit]:
    """A symlink is resolved on whichever machine checks the skill out or runs it.

    One that leaves the repository hands the agent (and every tool that packages the skill)
    whatever lives at that path there: ``/etc/passwd``, ``~/.aws/credentials``. A link that loops
    cannot be read at all. Both are errors. A link that stays in the repository but leaves the skill
    directory is a warning: it dangles once the skill is installed on its own.

    PASS: ``references/style.md`` is a regular file.
    FAIL: ``references/style.md -> /home/me/notes/style.md``.
    """
    skill_md = ctx.skill.skill_md
    if skill_md.path.is_symlink():
        yield from _symlink_hits(ctx, skill_md.path, ctx.at())
    for resource in ctx.skill.resources:
        if resource.is_symlink:
            yield from _symlink_hits(ctx, resource.path, ctx.in_skill(resource.rel))


def _symlink_hits(ctx: ScanContext, link: Path, location: Location) -> Iterator[Hit]:
    """REF004's verdict on one symlink; the message shows the link as written, never its content."""
    try:
        written = os.readlink(link)
    except OSError:
        return
    shown = _quoted(written)
    try:
        link.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            yield Hit(f"symlink to {shown} loops and cannot be resolved", location)
            return
        # A dangling link is checked like any other: where it points is what matters.
    if not is_within(link, ctx.skill.repo_root):
        yield Hit(f"symlink points outside the repository (to {shown}): it reads whatever lives there", location)
    elif not is_within(link, ctx.skill.dir):
        yield Hit(
            f"symlink points outside the skill directory (to {shown}): "
            "it dangles when the skill is installed on its own",
            location,
            severity=Severity.WARNING,
        )


@define(
    RULES,
    id="REF005",
    name="missing-script",
    severity=Severity.ERROR,
    summary="SKILL.md tells the agent to run a script the skill does not have.",
    fix="Add the script under the path SKILL.md uses, or correct the command.",
)
def missing_script(ctx: ScanContext) -> Iterator[Hit]:
    """A command in SKILL.md (``python scripts/fill.py``) that names a missing script fails every time.

    Commands are found anywhere in the body: fenced code, inline code and prose. A path counts when
    it is anchored in the skill (under ``scripts/`` or another folder of the skill, or behind a
    variable naming the skill directory such as ``${CLAUDE_SKILL_DIR}``); ``python main.py`` names a
    file of the user's project and is not checked.

    PASS: ``python3 scripts/fill_form.py input.pdf`` with ``scripts/fill_form.py`` present.
    FAIL: ``bash ${CLAUDE_SKILL_DIR}/scripts/setup.sh`` when ``scripts/setup.sh`` does not exist.
    """
    for run in skill_script_runs(ctx):
        if _exists(ctx.skill.dir / run.path):
            continue
        yield Hit(
            f"SKILL.md runs {_quoted(run.path)}, which the skill does not have" + _case_hint(ctx.skill, run.path),
            ctx.at(run.line),
            evidence=_skill_md_evidence(ctx, run.line),
            clause=_CLAUSE_REFS,
        )


def _direct_targets(ctx: ScanContext, files: Mapping[str, Resource]) -> set[str]:
    """Files of the skill that SKILL.md itself links or mentions."""
    direct: set[str] = set()
    for link in ctx.skill.body.links:
        path = local_path(link.target)
        if path is None or _outside_reason(path) is not None:
            continue
        normalized = posixpath.normpath(path)
        if normalized in files:
            direct.add(normalized)
    return direct


def _nested_target(link: Link, source: str, files: Mapping[str, Resource]) -> str | None:
    """The file of the skill a link inside ``source`` points at, if any.

    Links resolve against the referencing file's folder, as Markdown does; bare mentions are also
    tried against the skill root, where authors usually anchor them.
    """
    path = local_path(link.target)
    if path is None or path.startswith(("/", "\\", "~")) or _WINDOWS_DRIVE.match(path):
        return None
    candidates = [posixpath.normpath(posixpath.join(posixpath.dirname(source), path))]
    if link.kind == "mention":
        candidates.append(posixpath.normpath(path))
    return next((c for c in candidates if c in files), None)


@define(
    RULES,
    id="REF006",
    name="nested-reference",
    severity=Severity.WARNING,
    summary="A file SKILL.md references sends the agent on to other files SKILL.md does not reference.",
    fix="Link the deeper file from SKILL.md directly, or fold its content into the referenced file.",
)
def nested_reference(ctx: ScanContext) -> Iterator[Hit]:
    """The spec asks for references one level deep: SKILL.md → file, never SKILL.md → file → file.

    Agents read a referenced file when a task needs it; a chain means two reads before the
    information arrives, and agents often stop at the first (or preview it partially). Only
    Markdown files SKILL.md references are followed, and only documents count as the deeper file:
    scripts are run, not read, so a reference that says "run ``scripts/x.py``" is fine. One finding
    per referenced file, at its first link to a deeper file.

    PASS: SKILL.md links ``references/api.md`` and ``references/errors.md``; api.md links errors.md.
    FAIL: SKILL.md links ``references/api.md`` only, and api.md sends the agent to ``references/errors.md``.
    """
    files = {resource.rel: resource for resource in ctx.skill.resources}
    direct = _direct_targets(ctx, files)
    for source in sorted(direct):
        if not source.lower().endswith(_MARKDOWN_SUFFIXES):
            continue
        text = ctx.inputs.text(files[source])
        if text is None:
            continue
        deeper: dict[str, int] = {}  # target -> first line of source that points at it
        for link in ctx.inputs.markdown(text).links:
            target = _nested_target(link, source, files)
            if target is None or target == source or target in direct or files[target].kind == "script":
                continue
            deeper.setdefault(target, link.line)
        if not deeper:
            continue
        targets = sorted(deeper, key=lambda target: deeper[target])
        named = ", ".join(_quoted(target) for target in targets[:3])
        more = f" and {len(targets) - 3} more" if len(targets) > 3 else ""
        first_line = deeper[targets[0]]
        yield Hit(
            f"{_quoted(source)}, referenced from SKILL.md, sends the agent on to "
            f"{named}{more}, which SKILL.md does not reference",
            ctx.in_skill(source, first_line),
            evidence=_evidence(ctx.inputs.redacted_lines(text), first_line),
            clause=_CLAUSE_ONE_LEVEL,
        )
