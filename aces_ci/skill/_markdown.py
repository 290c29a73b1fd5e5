"""Parse Markdown with markdown-it-py, keeping the line of every heading, link, code block and comment.

markdown-it's block tokens carry ``map = [first, last)`` line ranges relative to the text given;
we shift them by the line where that text starts in its file, so positions are file lines.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ._model import CodeBlock, Heading, Link, MarkdownDoc, Section

# A relative file path mentioned in prose or `inline code`: a known skill folder, or a path ending in
# a file extension. Conservative on purpose: a false "broken reference" costs the author's trust.
_MENTION = re.compile(
    r"(?<![\w/.:-])"
    r"((?:\.{1,2}/)*(?:scripts|references|reference|assets|templates|examples|evals|docs|resources)/[\w./-]*[\w-]"
    r"|(?:\.{1,2}/)*[\w-]+(?:/[\w.-]+)*\.(?:md|py|sh|bash|js|ts|mjs|json|ya?ml|txt|csv|toml|sql|rb|go|ps1|html|xml))"
    r"(?![\w/-])"
)
_COMMENT = re.compile(r"<!--(.*?)-->", re.DOTALL)

_PARSER = MarkdownIt("commonmark", {"maxNesting": 40}).enable("table")


def _map_line(token: Token, first_line: int) -> int:
    return first_line + (token.map[0] if token.map else 0)


def _inline_text(inline: Token) -> str:
    return "".join(child.content for child in inline.children or () if child.type in ("text", "code_inline"))


def _line_of_fragment(lines: Sequence[str], block_start: int, block_end: int, fragment: str, first_line: int) -> int:
    """The file line inside a multi-line block where ``fragment`` first appears."""
    for offset in range(block_start, min(block_end, len(lines))):
        if fragment in lines[offset]:
            return first_line + offset
    return first_line + block_start


def find_mentions(text: str) -> list[str]:
    """Relative file paths mentioned in a piece of prose."""
    found = []
    for match in _MENTION.finditer(text):
        candidate = match.group(1)
        if "//" in candidate or candidate.startswith(("http", "www.")):
            continue
        found.append(candidate.rstrip("."))
    return found


def _links_in_inline(inline: Token, lines: Sequence[str], start: int, end: int, first_line: int) -> list[Link]:
    links: list[Link] = []
    children = inline.children or []
    for index, child in enumerate(children):
        if child.type == "link_open":
            href = str(child.attrGet("href") or "")
            label = children[index + 1].content if index + 1 < len(children) else ""
            line = _line_of_fragment(lines, start, end, href or label, first_line)
            links.append(Link(href, line, "link", label))
        elif child.type == "image":
            src = str(child.attrGet("src") or "")
            links.append(Link(src, _line_of_fragment(lines, start, end, src, first_line), "image", child.content))
        elif child.type in ("text", "code_inline"):
            for mention in find_mentions(child.content):
                line = _line_of_fragment(lines, start, end, mention, first_line)
                links.append(Link(mention, line, "mention", mention))
    return links


def _sections(headings: Sequence[Heading], lines: Sequence[str], first_line: int) -> tuple[Section, ...]:
    # A trailing newline ends the last line; it does not start another.
    last_line = first_line + len(lines) - (2 if lines and lines[-1] == "" else 1)
    sections = []
    for index, heading in enumerate(headings):
        end = last_line
        has_sub = False
        next_any = headings[index + 1].line if index + 1 < len(headings) else last_line + 1
        for later in headings[index + 1 :]:
            if later.level <= heading.level:
                end = later.line - 1
                break
            has_sub = True
        own = lines[heading.line - first_line + 1 : next_any - first_line]
        content = sum(1 for ln in own if ln.strip() and not _COMMENT.fullmatch(ln.strip()))
        sections.append(Section(heading, end, content, has_sub))
    return tuple(sections)


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
            links.extend(_links_in_inline(token, lines, token.map[0], token.map[1], first_line))
        elif token.type in ("fence", "code_block"):
            line = _map_line(token, first_line)
            code_blocks.append(CodeBlock(token.info.strip(), token.content, line))
            # Paths inside shell snippets (``python scripts/run.py``) are references too.
            if token.type == "fence" and token.map:
                for offset, code_line in enumerate(token.content.split("\n")):
                    for mention in find_mentions(code_line):
                        links.append(Link(mention, line + 1 + offset, "mention", mention))
    comments = tuple(
        (first_line + text.count("\n", 0, match.start()), match.group(1).strip()) for match in _COMMENT.finditer(text)
    )
    return MarkdownDoc(
        text=text,
        first_line=first_line,
        headings=tuple(headings),
        sections=_sections(headings, lines, first_line),
        links=tuple(links),
        code_blocks=tuple(code_blocks),
        comments=comments,
    )
