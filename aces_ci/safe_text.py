"""Text from outside — a skill's files, a case id, a model's answer, an API's error — made safe to show.

Every report, log line and progress line quotes strings a pull request controls. Written raw, an ESC
sequence repaints a terminal (or hides a line in a CI log), a NUL makes a JUnit file invalid XML, a
bidi override disguises a comment, and a newline forges a line of its own. This room, which imports
nothing of ours, is the one place those characters are made visible, so the engine's progress lines
and the reports escape them alike.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["clip", "inline", "one_line", "printable"]

_BIDI_CONTROLS = frozenset(range(0x202A, 0x202F)) | frozenset(range(0x2066, 0x206A))
"""Direction overrides and isolates: they can make a message read differently than it is ("Trojan Source")."""


def _is_hidden(char: str) -> bool:
    code = ord(char)
    if char in "\n\t":
        return False
    if unicodedata.category(char) in ("Cc", "Cs"):  # C0/C1 controls, DEL, lone surrogates
        return True
    if 0xFDD0 <= code <= 0xFDEF or (code & 0xFFFE) == 0xFFFE:  # Unicode noncharacters
        return True
    return code in _BIDI_CONTROLS


_HIDDEN = re.compile("[^\n\t -~]")
"""Cheap pre-filter: only characters outside printable ASCII need the closer look of :func:`_is_hidden`."""


def _escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` with control, bidi-override and non-characters written as visible escapes (``\\x1b``).

    Messages and evidence quote skill files, which may hold anything. Written raw, an ESC
    sequence would repaint a terminal, a NUL would make the JUnit file invalid XML (the junit-xml
    package silently deletes such characters instead) and a bidi override would disguise a PR
    comment. Escaping keeps every character visible and nothing is lost. Newlines and tabs stay;
    Windows line ends become plain newlines.
    """
    text = text.replace("\r\n", "\n")
    return _HIDDEN.sub(lambda match: _escape(match.group()) if _is_hidden(match.group()) else match.group(), text)


def inline(text: str) -> str:
    """``text`` for a spot that must stay on one line: printable, its newlines and tabs escaped too.

    A skill directory, ``name:``, heading or case id may hold a newline; written raw at the start of a
    line it could forge a verdict line (``other-skill: PASS``) or a decision in the CI log.
    """
    return printable(text).replace("\n", "\\n").replace("\t", "\\t")


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, the cut marked with an ellipsis."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def one_line(text: str, limit: int) -> str:
    """``text`` made printable on one line (newlines become ``⏎``), at most ``limit`` characters."""
    return clip(printable(text).replace("\n", " ⏎ ").replace("\t", " "), limit)
