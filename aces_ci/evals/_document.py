"""A parsed dataset file: its data, the line where each value starts, and what could not be read.

JSON and YAML loaders both produce a :class:`Document`, so schema checks and canonicalisation
work the same whichever format the author chose, and every finding can name a line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..redact import safe_prefix
from ..skill import ParseProblem

JsonPath = tuple[str | int, ...]
"""Keys and list indices from the document root to a value, e.g. ``("evals", 2, "prompt")``."""

MAX_DEPTH = 32
"""A dataset nests about six levels deep; deeper input is refused before anything recurses into it."""
MAX_LINE_ENTRIES = 100_000
"""Positions remembered per file; values past this point report the line of their nearest known parent."""
_MAX_KEY_SHOWN = 40


@dataclass(frozen=True)
class Document:
    """One dataset file after parsing."""

    data: Any
    """The parsed value (plain dicts, lists and scalars); None when ``parsed`` is False."""
    lines: dict[JsonPath, int] = field(default_factory=dict)
    """1-based line of each value; for an object member, the line of its key."""
    problems: tuple[ParseProblem, ...] = ()
    parsed: bool = True
    """False when the file could not be turned into data at all (syntax error, refused input)."""

    def line_of(self, path: JsonPath) -> int | None:
        """The line of ``path``, or of its nearest ancestor whose line is known."""
        for end in range(len(path), -1, -1):
            line = self.lines.get(path[:end])
            if line is not None:
                return line
        return None


def json_type(value: object) -> str:
    """The JSON name of a Python value's type, for messages that must not quote the value itself."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    # YAML can produce dates, sets and bytes: name them plainly.
    return type(value).__name__


def json_pointer(path: JsonPath) -> str:
    """``("evals", 3, "expected_output")`` → ``/evals/3/expected_output`` (RFC 6901; ``""`` is the root).

    Errors that stop a run name this pointer: any JSON tool (``jq``, an editor's outline) can follow it.
    """
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def format_path(path: JsonPath) -> str:
    """``("evals", 2, "prompt")`` → ``$.evals[2].prompt``: how findings name a place in the file."""
    out = "$"
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.isidentifier():
            out += f".{part}"
        else:
            shown = part if len(part) <= _MAX_KEY_SHOWN else safe_prefix(part, _MAX_KEY_SHOWN) + "…"
            out += "[" + repr(shown) + "]"
    return out
