"""Every string from a pull request, made safe for the place in a GitHub comment where it lands.

Skill names, titles, paths, rule messages, case ids, model answers and a fork's result files are
data, never markup. Each context of the comment has its own rules, so each has its own function
here, and every renderer (the scan Markdown, the CI sections, the comment body, the kept-trials
heading, the charts) calls these instead of escaping on its own:

* :func:`cell` — a Markdown table cell, or inline prose (a bold title, a heading's text, a note, a
  link's text): Markdown's specials are backslash-escaped (so no ``![x](…)`` image, link, emphasis
  or ``|`` that breaks the table), ``<``/``>``/``&`` become entities (no raw HTML), newlines become
  ``<br>`` (so no blank line, heading, fence or list can start), length capped;
* :func:`html_text` — text inside an HTML element such as ``<summary>``, where Markdown is not
  parsed but a blank line would end the block: entities, one line, length capped;
* :func:`code_span` — a code span whose fence is longer than any run of backticks inside;
* :func:`link_url` — a link's destination: only ``http(s)`` URLs, with the characters that would
  end the destination (space, parentheses, angle brackets, quotes) percent-encoded;
* :func:`mermaid_label` — a quoted Mermaid label inside the chart's fenced block: the characters
  Mermaid gives meaning (and the backtick, which could close the fence) removed, one line.

In every Markdown and HTML context an ``@`` is followed by a zero-width space, so ``@org/team`` or ``@user`` quoted
from a pull request notifies no one, and control, bidi-override and non-characters are written as
visible escapes (:func:`~aces_ci.report._common.printable`). Lengths are cut *before* escaping, so
a cut never splits an escape.
"""

from __future__ import annotations

import html
import re

from ..safe_text import clip, printable
from ._common import WEB_URL

NO_MENTION = "@\u200b"
"""An ``@`` followed by a zero-width space: shown as ``@``, never a mention."""

_MARKDOWN_SPECIALS = str.maketrans(
    {
        "\\": "\\\\",
        "`": "\\`",
        "*": "\\*",
        "_": "\\_",
        "[": "\\[",
        "]": "\\]",
        "~": "\\~",
        "|": "\\|",
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        "@": NO_MENTION,
    }
)
_HTML_EXTRA = str.maketrans({"@": NO_MENTION, "[": "&#91;", "]": "&#93;", "`": "&#96;", "|": "&#124;"})
_MERMAID_UNSAFE = re.compile(r'["\[\]{}`\\<>;#%\n\r\t]')
_URL_UNSAFE = re.compile(r"[\s()<>\"'`\\]")
_BACKTICKS = re.compile(r"`+")


def _one_line(text: str) -> str:
    return " ".join(text.replace("\r", "\n").split())


def cell(text: str, limit: int) -> str:
    """``text`` safe in a table cell or inline Markdown: escaped, one line (``<br>`` breaks), at most ``limit``."""
    escaped = printable(clip(text, limit)).translate(_MARKDOWN_SPECIALS)
    return escaped.replace("\n", "<br>").replace("\t", " ")


def html_text(text: str, limit: int) -> str:
    """``text`` safe inside an HTML element (``<summary>``): entities, one line, no mention, at most ``limit``."""
    return html.escape(_one_line(printable(clip(text, limit))), quote=True).translate(_HTML_EXTRA)


def code_span(text: str, limit: int) -> str:
    """``text`` as one inline code span (one line, no mention can fire inside it), at most ``limit``."""
    body = _one_line(printable(clip(text, limit)))
    longest = max((len(run) for run in _BACKTICKS.findall(body)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if body.startswith("`") or body.endswith("`") or not body else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def link_url(url: str | None) -> str | None:
    """``url`` safe as a Markdown link's destination; None unless it is an ``http(s)`` URL."""
    if url is None or not WEB_URL.match(url):
        return None
    return _URL_UNSAFE.sub(lambda match: f"%{ord(match.group()):02X}", url)


def mermaid_label(text: str, limit: int = 40) -> str:
    """``text`` safe inside a quoted Mermaid label."""
    cleaned = _one_line(_MERMAID_UNSAFE.sub(" ", text))
    return (cleaned[: limit - 1] + "…") if len(cleaned) > limit else (cleaned or "-")
