"""Parse Markdown with markdown-it-py, keeping the line of every heading, link, code block and comment.

markdown-it's block tokens carry ``map = [first, last)`` line ranges relative to the text given;
we shift them by the line where that text starts in its file, so positions are file lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ._model import Block, BlockKind, CodeBlock, Heading, Link, MarkdownDoc, Section

# A relative file path mentioned in prose or `inline code`: a known skill folder, or a path ending in
# a file extension. Conservative on purpose: a false "broken reference" costs the author's trust.
_MENTION = re.compile(
    r"(?<![\w/.:-])"
    r"((?:\.{1,2}/)*(?:scripts|references|reference|assets|templates|examples|evals|docs|resources)/[\w./-]*[\w-]"
    r"|(?:\.{1,2}/)*[\w-]+(?:/[\w.-]+)*\.(?:md|py|sh|bash|js|ts|mjs|json|ya?ml|txt|csv|toml|sql|rb|go|ps1|html|xml))"
    r"(?![\w/-])"
)
_COMMENT_OPEN = "<!--"
_COMMENT_CLOSE = "-->"

_PARSER = MarkdownIt("commonmark", {"maxNesting": 40}).enable("table")


@dataclass(frozen=True)
class HtmlComment:
    """One closed ``<!-- … -->`` comment of a text."""

    start: int
    """Offset of ``<!--`` in the text."""
    end: int
    """Offset just past ``-->``."""
    line: int
    """File line of ``<!--``."""
    inner: str
    """The text between the markers, unstripped."""


def html_comments(text: str, first_line: int = 1) -> Iterator[HtmlComment]:
    """Every closed HTML comment of ``text`` in order, in one linear pass.

    A regular expression such as ``<!--(.*?)-->`` retries from every ``<!--`` when one is never
    closed, which is quadratic on a file of unclosed comments; here the search stops at the first
    unclosed one (no later comment can close either), and lines are counted from the previous
    comment rather than from the top of the text.
    """
    line, counted_to = first_line, 0
    start = text.find(_COMMENT_OPEN)
    while start != -1:
        end = text.find(_COMMENT_CLOSE, start + len(_COMMENT_OPEN))
        if end == -1:
            return
        line += text.count("\n", counted_to, start)
        counted_to = start
        yield HtmlComment(start, end + len(_COMMENT_CLOSE), line, text[start + len(_COMMENT_OPEN) : end])
        start = text.find(_COMMENT_OPEN, end + len(_COMMENT_CLOSE))


def strip_html_comments(text: str) -> str:
    """``text`` without its closed HTML comments (an unclosed ``<!--`` and what follows it stay)."""
    pieces: list[str] = []
    position = 0
    for comment in html_comments(text):
        pieces.append(text[position : comment.start])
        position = comment.end
    pieces.append(text[position:])
    return "".join(pieces)


def _is_comment_line(stripped: str) -> bool:
    """Whether a stripped line is nothing but HTML comment(s): it opens with ``<!--`` and closes with ``-->``."""
    return (
        len(stripped) >= len(_COMMENT_OPEN) + len(_COMMENT_CLOSE)
        and stripped.startswith(_COMMENT_OPEN)
        and stripped.endswith(_COMMENT_CLOSE)
    )


def _map_line(token: Token, first_line: int) -> int:
    return first_line + (token.map[0] if token.map else 0)


def _inline_text(inline: Token) -> str:
    return "".join(child.content for child in inline.children or () if child.type in ("text", "code_inline"))


class _BlockLines:
    """Finds the file line inside one multi-line block where a fragment first appears.

    The block's lines are joined once and searched with ``str.find``, and each fragment's answer is
    kept, so a paragraph with many links costs one C-level search per distinct fragment rather
    than a Python loop over its lines for every link.
    """

    def __init__(self, lines: Sequence[str], block_start: int, block_end: int, first_line: int) -> None:
        self._lines = lines
        self._start = block_start
        self._end = min(block_end, len(lines))
        self._first_line = first_line
        self._text: str | None = None
        self._found: dict[str, int] = {}

    def line_of(self, fragment: str) -> int:
        """The first line of the block holding ``fragment``; the block's first line when none does."""
        line = self._found.get(fragment)
        if line is None:
            line = self._found[fragment] = self._first_line + self._start + self._offset_of(fragment)
        return line

    def _offset_of(self, fragment: str) -> int:
        if self._start >= self._end or "\n" in fragment:  # a line never holds a line break
            return 0
        if self._text is None:
            self._text = "\n".join(self._lines[self._start : self._end])
        position = self._text.find(fragment)
        return 0 if position == -1 else self._text.count("\n", 0, position)


def find_mentions(text: str) -> list[str]:
    """Relative file paths mentioned in a piece of prose."""
    if "/" not in text and "." not in text:  # every mention holds a folder's slash or an extension's dot
        return []
    found = []
    for match in _MENTION.finditer(text):
        candidate = match.group(1)
        if "//" in candidate or candidate.startswith(("http", "www.")):
            continue
        found.append(candidate.rstrip("."))
    return found


def _links_in_inline(inline: Token, block: _BlockLines) -> list[Link]:
    links: list[Link] = []
    children = inline.children or []
    for index, child in enumerate(children):
        if child.type == "link_open":
            href = str(child.attrGet("href") or "")
            label = children[index + 1].content if index + 1 < len(children) else ""
            links.append(Link(href, block.line_of(href or label), "link", label))
        elif child.type == "image":
            src = str(child.attrGet("src") or "")
            links.append(Link(src, block.line_of(src), "image", child.content))
        elif child.type in ("text", "code_inline"):
            for mention in find_mentions(child.content):
                links.append(Link(mention, block.line_of(mention), "mention", mention))
    return links


def _sections(headings: Sequence[Heading], lines: Sequence[str], first_line: int) -> tuple[Section, ...]:
    # A trailing newline ends the last line; it does not start another.
    last_line = first_line + len(lines) - (2 if lines and lines[-1] == "" else 1)
    sections = []
    for index, heading in enumerate(headings):
        end = last_line
        has_sub = False
        next_any = headings[index + 1].line if index + 1 < len(headings) else last_line + 1
        for later_index in range(index + 1, len(headings)):  # indices, not a slice: no copy per heading
            later = headings[later_index]
            if later.level <= heading.level:
                end = later.line - 1
                break
            has_sub = True
        own = lines[heading.line - first_line + 1 : next_any - first_line]
        content = sum(1 for ln in own if ln.strip() and not _is_comment_line(ln.strip()))
        sections.append(Section(heading, end, content, has_sub))
    return tuple(sections)


_TOP_LEVEL_KINDS: dict[str, BlockKind] = {
    "heading_open": "heading",
    "paragraph_open": "paragraph",
    "fence": "code",
    "code_block": "code",
    "table_open": "table",
    "html_block": "html",
    "hr": "thematic_break",
    "blockquote_open": "blockquote",
}


def _blocks(tokens: Sequence[Token], lines: Sequence[str], first_line: int) -> tuple[Block, ...]:
    """The top-level blocks of already-parsed tokens, each list split into its top-level items.

    markdown-it's ``map`` of a list item runs to the next item and so may hold trailing blank lines;
    each range is trimmed to its last non-blank line, which keeps ranges content-tight.
    """
    blocks: list[Block] = []
    ordered: bool | None = None  # the kind of the top-level list we are in, None outside one
    for token in tokens:
        if token.level == 0 and token.type in ("bullet_list_open", "ordered_list_open"):
            ordered = token.type == "ordered_list_open"
            continue
        if token.level == 0 and token.type in ("bullet_list_close", "ordered_list_close"):
            ordered = None
            continue
        if not token.map:
            continue
        start, end = token.map[0], token.map[1] - 1
        while end > start and end < len(lines) and not lines[end].strip():
            end -= 1
        if token.level == 1 and token.type == "list_item_open" and ordered is not None:
            marker = token.info + token.markup if ordered else token.markup
            blocks.append(Block("list_item", first_line + start, first_line + end, marker=marker, ordered=ordered))
        elif token.level == 0 and token.type in _TOP_LEVEL_KINDS:
            kind = _TOP_LEVEL_KINDS[token.type]
            level = int(token.tag[1:]) if kind == "heading" else 0
            marker = token.markup if token.type == "fence" else ""
            blocks.append(Block(kind, first_line + start, first_line + end, level=level, marker=marker))
    return tuple(blocks)


def parse_markdown(text: str, first_line: int = 1) -> MarkdownDoc:
    """Parse ``text`` whose first line is line ``first_line`` of its file."""
    tokens = _PARSER.parse(text)
    lines = text.split("\n")
    headings: list[Heading] = []
    links: list[Link] = []
    code_blocks: list[CodeBlock] = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and index + 1 < len(tokens):
            level = int(token.tag[1:])
            headings.append(Heading(level, _inline_text(tokens[index + 1]).strip(), _map_line(token, first_line)))
        elif token.type == "inline" and token.map:
            links.extend(_links_in_inline(token, _BlockLines(lines, token.map[0], token.map[1], first_line)))
        elif token.type in ("fence", "code_block"):
            line = _map_line(token, first_line)
            code_blocks.append(CodeBlock(token.info.strip(), token.content, line))
            # Paths inside shell snippets (``python scripts/run.py``) are references too.
            if token.type == "fence" and token.map:
                for offset, code_line in enumerate(token.content.split("\n")):
                    for mention in find_mentions(code_line):
                        links.append(Link(mention, line + 1 + offset, "mention", mention))
    comments = tuple((comment.line, comment.inner.strip()) for comment in html_comments(text, first_line))
    return MarkdownDoc(
        text=text,
        first_line=first_line,
        headings=tuple(headings),
        sections=_sections(headings, lines, first_line),
        links=tuple(links),
        code_blocks=tuple(code_blocks),
        comments=comments,
        blocks=_blocks(tokens, lines, first_line),
    )
