"""What a skill is, once read from disk: plain data, no behaviour beyond small lookups.

Every piece that a rule may want to point at carries a 1-based line number in its file, so each
finding can say ``skills/foo/SKILL.md:12``. Parsing never raises on bad input: what could not be
read becomes a :class:`ParseProblem` on the object, and the scan rules turn those into findings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

ResourceKind = Literal["script", "reference", "asset", "eval", "other"]
BlockKind = Literal["heading", "paragraph", "list_item", "code", "table", "html", "thematic_break", "blockquote"]


@dataclass(frozen=True)
class ParseProblem:
    """Something in a file that could not be read as intended.

    ``code`` is stable (rules key on it); ``message`` is for people.
    """

    code: str
    """e.g. ``yaml-syntax``, ``alias-bomb``, ``duplicate-key``, ``not-mapping``, ``invalid-utf8``."""
    message: str
    line: int | None = None
    """1-based line in the file the problem belongs to, when known."""
    path: str | None = None
    """Repository-relative path of the file concerned, when it is not the file that holds the problem list."""
    pointer: str | None = None
    """RFC 6901 JSON pointer of the value concerned (``/evals/3/expected_output``), for dataset problems."""


@dataclass(frozen=True)
class TextFile:
    """A file read under our size and encoding limits."""

    path: Path
    """Absolute path on disk."""
    rel: str
    """Path relative to the repository root, POSIX separators: what reports print."""
    size: int
    """Size on disk in bytes (the whole file, even when only a prefix was read)."""
    text: str | None
    """Decoded text, ``None`` for binary or unreadable files. Truncated at the read cap."""
    truncated: bool = False
    problems: tuple[ParseProblem, ...] = ()

    @property
    def lines(self) -> list[str]:
        """Lines split on newline only, as the parser numbers them (form feeds are not line breaks)."""
        if self.text is None:
            return []
        lines = self.text.split("\n")
        return lines[:-1] if lines and lines[-1] == "" else lines


@dataclass(frozen=True)
class Frontmatter:
    """The YAML block between the leading ``---`` fences of SKILL.md."""

    data: dict[str, Any] | None
    """The parsed mapping, or ``None`` when absent or unusable (see ``problems``)."""
    present: bool
    """Whether the file opens with a ``---`` fence at all."""
    start_line: int = 1
    """Line of the opening fence."""
    end_line: int = 0
    """Line of the closing fence; 0 when the block is unclosed or absent."""
    key_lines: dict[str, int] = field(default_factory=dict)
    """Line of each top-level key, so a finding about ``name`` points at the ``name:`` line; a repeated
    key's last occurrence, whose value YAML keeps."""
    problems: tuple[ParseProblem, ...] = ()

    def line_of(self, key: str) -> int:
        """The line of ``key`` if it was written, else the opening fence."""
        return self.key_lines.get(key, self.start_line)


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    line: int


@dataclass(frozen=True)
class Section:
    """A heading and the body lines under it, up to the next heading of the same or higher level."""

    heading: Heading
    end_line: int
    """Last line that belongs to the section."""
    content_lines: int
    """Non-blank lines under the heading before any sub-heading."""
    has_subsections: bool


@dataclass(frozen=True)
class Link:
    """A Markdown link or image, or a bare file path mentioned in text or inline code."""

    target: str
    line: int
    kind: Literal["link", "image", "mention"]
    text: str = ""


@dataclass(frozen=True)
class CodeBlock:
    info: str
    """The fence's info string, e.g. ``bash``; empty for indented code."""
    content: str
    line: int
    """Line of the opening fence (first content line for indented code)."""


@dataclass(frozen=True)
class Block:
    """One top-level block of a Markdown text and the file lines it covers (1-based, inclusive).

    Blocks are the document's outermost structure, in order: a list contributes one ``list_item``
    per top-level item, whose range runs through its indented continuation (sub-bullets, code,
    tables, further paragraphs); a blockquote is one block with everything inside it. Ranges end at
    the block's last non-blank line, so the blank lines between blocks belong to no block: a
    consumer that cuts the text into units decides where they go.
    """

    kind: BlockKind
    start: int
    end: int
    level: int = 0
    """Heading level (1–6); 0 for other kinds."""
    marker: str = ""
    """A list item's marker as written (``-``, ``*``, ``+``, ``1.``, ``3)``); a code fence's fence (empty for
    indented code); empty otherwise."""
    ordered: bool = False
    """Whether a list item belongs to an ordered list."""


@dataclass(frozen=True)
class MarkdownDoc:
    """A Markdown text with its structure and line map; used for SKILL.md bodies and references."""

    text: str
    first_line: int
    """Line in the file where ``text`` starts (after the frontmatter for SKILL.md)."""
    headings: tuple[Heading, ...] = ()
    sections: tuple[Section, ...] = ()
    links: tuple[Link, ...] = ()
    code_blocks: tuple[CodeBlock, ...] = ()
    comments: tuple[tuple[int, str], ...] = ()
    """HTML comments as (line, text): where inline suppressions live."""
    blocks: tuple[Block, ...] = ()
    """The top-level blocks with their line ranges, in document order (see :class:`Block`)."""

    @property
    def line_count(self) -> int:
        if not self.text:
            return 0
        return self.text.count("\n") + (0 if self.text.endswith("\n") else 1)


@dataclass(frozen=True)
class Resource:
    """A file inside a skill directory other than SKILL.md itself."""

    rel: str
    """Path relative to the skill directory, POSIX separators."""
    path: Path
    kind: ResourceKind
    size: int
    is_symlink: bool = False
    symlink_target: str | None = None
    """The resolved target of a symlink, or None."""
    executable: bool = False


@dataclass(frozen=True)
class Skill:
    """One skill package: a directory holding SKILL.md."""

    dir: Path
    """Absolute path of the skill directory."""
    rel_dir: str
    """The directory relative to the repository root ('.' when the repo itself is the skill)."""
    repo_root: Path
    skill_md: TextFile
    frontmatter: Frontmatter
    body: MarkdownDoc
    resources: tuple[Resource, ...] = ()
    problems: tuple[ParseProblem, ...] = ()
    """Problems of the package as a whole (e.g. lowercase ``skill.md``, unreadable entries)."""

    @property
    def dir_name(self) -> str:
        return self.dir.name

    @property
    def name(self) -> str:
        """The declared name when it is a usable string, else the directory name."""
        data = self.frontmatter.data or {}
        declared = data.get("name")
        return declared if isinstance(declared, str) and declared.strip() else self.dir.name

    @property
    def description(self) -> str | None:
        value = (self.frontmatter.data or {}).get("description")
        return value if isinstance(value, str) else None

    def resource(self, rel: str) -> Resource | None:
        for res in self.resources:
            if res.rel == rel:
                return res
        return None

    def rel_path(self, rel_in_skill: str) -> str:
        """Repository-relative path of a file inside this skill."""
        return rel_in_skill if self.rel_dir in ("", ".") else f"{self.rel_dir}/{rel_in_skill}"
