"""The code of a skill that an agent runs: bundled scripts and the code blocks of its Markdown files.

The flow rules (exfiltration across lines, download-then-run, destructive commands, script
behaviour, unpinned installs) read shell and Python, not prose. This module finds that code once
per skill: each bundled script whole, and each Markdown file's shell blocks joined in order (an
agent runs a skill's steps in one session, so a variable set in one block is used in the next) and
its Python blocks one by one. Evaluation data under ``evals/`` is not instructions and is left out.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

from .._context import ScanContext
from .._finding import Location

CodeLanguage = Literal["shell", "python"]

_SHELL_INFO = frozenset({"", "bash", "sh", "shell", "zsh", "console", "shell-session", "terminal", "sh-session"})
_PYTHON_INFO = frozenset({"python", "py", "python3"})
_PROMPT = re.compile(r"^(\s*)(?:\$|%|#|>)\s", re.MULTILINE)
_SHELL_SUFFIXES = (".sh", ".bash", ".zsh")
_MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")


@dataclass(frozen=True)
class CodePiece:
    """Shell or Python text from one file of the skill, with the file line its first line sits on."""

    rel: str
    """Path inside the skill (``SKILL.md`` for the skill file)."""
    is_skill_md: bool
    language: CodeLanguage
    text: str
    first_line: int
    """File line of ``text``'s first line; a piece of joined blocks keeps each block's lines (see ``lines``)."""
    lines: tuple[int, ...] = ()
    """File line of each line of ``text`` when blocks were joined; empty when they run on from ``first_line``."""
    is_script: bool = False
    """A bundled script, as opposed to a code block in Markdown."""
    file_text: str = ""
    """The whole file the piece comes from (evidence lines are cut from it, redacted)."""

    def file_line(self, line: int) -> int:
        """The file line of ``text``'s line ``line`` (1-based)."""
        if self.lines and 0 < line <= len(self.lines):
            return self.lines[line - 1]
        return self.first_line + line - 1

    def location(self, ctx: ScanContext, line: int) -> Location:
        where = self.file_line(line)
        return ctx.at(where) if self.is_skill_md else ctx.in_skill(self.rel, where)


def _script_language(rel: str, text: str) -> CodeLanguage | None:
    suffix = PurePosixPath(rel).suffix.lower()
    if suffix == ".py":
        return "python"
    if suffix in _SHELL_SUFFIXES:
        return "shell"
    if text.startswith("#!"):
        first = text.split("\n", 1)[0]
        if "python" in first:
            return "python"
        if re.search(r"\b(?:ba|z|da|k)?sh\b", first):
            return "shell"
    return None


_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})[ \t]*([^`\n]*)$")


def fenced_blocks(text: str) -> list[tuple[str, str, int]]:
    """(info, content, line of the opening fence) of each fenced code block of a Markdown text.

    A line scan, not a Markdown parse: SKILL.md's body is parsed anyway and its blocks are used as
    parsed, but parsing every reference file only to find its code cost more than every flow rule
    together (about 40 ms a skill on real skills). A fence opens at any indentation (blocks inside
    list items) and closes at a line of at least as many of its character; the opening
    indentation is taken off the content. Indented code blocks are not code an agent runs.
    """
    if "```" not in text and "~~~" not in text:
        return []
    lines = text.split("\n")
    blocks: list[tuple[str, str, int]] = []
    index = 0
    while index < len(lines):
        opened = _FENCE.match(lines[index])
        if opened is None:
            index += 1
            continue
        indent, fence, info = len(opened[1]), opened[2], opened[3].strip()
        body: list[str] = []
        end = index + 1
        while end < len(lines):
            stripped = lines[end].strip()
            if stripped.startswith(fence) and stripped == fence[0] * len(stripped):
                break
            line = lines[end]
            body.append(line[indent:] if not line[:indent].strip() else line.lstrip())
            end += 1
        blocks.append((info, "\n".join(body) + "\n", index + 1))
        index = end + 1
    return blocks


def _markdown_pieces(rel: str, is_skill_md: bool, text: str, blocks: list[tuple[str, str, int]]) -> list[CodePiece]:
    """The shell blocks of one Markdown file joined into one piece, and each Python block as its own."""
    file_lines = text.split("\n")
    shell_text: list[str] = []
    shell_lines: list[int] = []
    pieces: list[CodePiece] = []
    for info, content, line in blocks:
        language = info.split()[0].lower() if info.strip() else ""
        fence = 0 < line <= len(file_lines) and file_lines[line - 1].lstrip().startswith(("```", "~~~"))
        first = line + 1 if fence else line
        if language in _PYTHON_INFO:
            pieces.append(CodePiece(rel, is_skill_md, "python", content, first, file_text=text))
        elif language in _SHELL_INFO:
            body = _PROMPT.sub(r"\1", content) if language in ("console", "shell-session", "sh-session") else content
            block_lines = body.rstrip("\n").split("\n")
            shell_text.extend(block_lines)
            shell_lines.extend(range(first, first + len(block_lines)))
    if shell_text:
        joined = "\n".join(shell_text)
        pieces.insert(
            0, CodePiece(rel, is_skill_md, "shell", joined, shell_lines[0], tuple(shell_lines), file_text=text)
        )
    return pieces


def _find_pieces(ctx: ScanContext) -> list[CodePiece]:
    pieces: list[CodePiece] = []
    skill_md = ctx.skill.skill_md
    if skill_md.text is not None:
        blocks = [(block.info, block.content, block.line) for block in ctx.skill.body.code_blocks]
        pieces += _markdown_pieces(posixpath.basename(skill_md.rel), True, skill_md.text, blocks)
    for resource in ctx.skill.resources:
        if resource.kind == "eval":
            continue
        text = ctx.inputs.text(resource)
        if text is None:
            continue
        if resource.rel.lower().endswith(_MARKDOWN_SUFFIXES):
            pieces += _markdown_pieces(resource.rel, False, text, fenced_blocks(text))
            continue
        language = _script_language(resource.rel, text) if resource.kind in ("script", "other", "asset") else None
        if language is not None and (resource.kind == "script" or text.startswith("#!")):
            pieces.append(CodePiece(resource.rel, False, language, text, 1, is_script=True, file_text=text))
    return pieces


def code_pieces(ctx: ScanContext) -> list[CodePiece]:
    """Every shell and Python piece of the skill, computed once per skill for all the flow rules."""
    return ctx.inputs.cached((_find_pieces,), lambda: _find_pieces(ctx))
