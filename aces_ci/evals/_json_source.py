"""Parse JSON and JSON Lines datasets, remembering the line of every value.

``json.loads`` gives values but no positions, silently keeps the last of two duplicate keys, and
accepts ``NaN``. So a small position scanner walks the text first: it records the line where each
value starts (for object members, the line of the key), reports duplicate keys, and refuses input
that would hurt later steps (nesting deeper than :data:`MAX_DEPTH`, ``NaN``/``Infinity``, unpaired
surrogates, absurdly long numbers). Then ``json.loads`` builds the values; on a syntax error the
scanner stops quietly and the decoder's own message, with its line and column, is reported.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from ..redact import safe_prefix
from ..skill import ParseProblem
from ._document import MAX_DEPTH, MAX_LINE_ENTRIES, Document, JsonPath

_WHITESPACE = re.compile(r"[ \t\n\r]*")
# The decoder's grammar (ASCII digits only), plus the non-standard constants Python would accept.
_SCALAR = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null|NaN|-?Infinity")
# A JSON string token: the grammar of RFC 8259, section 7 (no raw control characters).
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_NON_FINITE = frozenset({"NaN", "Infinity", "-Infinity"})
MAX_NUMBER_CHARS = 1000
"""Longer numbers are refused: no id or count needs them, and Python refuses integers past 4300 digits."""
MAX_DUPLICATE_REPORTS = 20
_CLOSERS = {True: "}", False: "]"}


class _Refused(Exception):
    """The input is JSON-shaped but unusable; parsing stops with this problem."""

    def __init__(self, problem: ParseProblem) -> None:
        super().__init__(problem.message)
        self.problem = problem


class _NotJson(Exception):
    """The scanner met text that is not JSON; ``json.loads`` reports exactly what and where."""


@dataclass
class _Container:
    path: JsonPath
    is_object: bool
    count: int = 0
    keys: dict[str, int] = field(default_factory=dict)
    """Line of each key seen so far, to report duplicates."""


class _PositionScanner:
    """Walks JSON text once, without recursion, recording where each value starts."""

    def __init__(self, text: str, first_line: int) -> None:
        self.text = text
        self.pos = 0
        self.line = first_line
        self.lines: dict[JsonPath, int] = {}
        self.problems: list[ParseProblem] = []
        self._duplicates = 0

    def run(self) -> None:
        stack: list[_Container] = []
        path: JsonPath = ()
        while True:
            self._skip_whitespace()
            self._record(path)
            char = self._peek()
            opened = char in ("{", "[")
            if opened:
                if len(stack) >= MAX_DEPTH:
                    raise _Refused(
                        ParseProblem("too-deep", f"values nested deeper than {MAX_DEPTH} levels: not read", self.line)
                    )
                stack.append(_Container(path, char == "{"))
                self.pos += 1
            elif char == '"':
                self._string()
            else:
                self._scalar()
            next_path = self._next_value(stack, opened)
            if next_path is None:
                return
            path = next_path

    def _next_value(self, stack: list[_Container], just_opened: bool) -> JsonPath | None:
        """Close finished containers and return the path of the next value, or None at the end."""
        while stack:
            top = stack[-1]
            self._skip_whitespace()
            char = self._peek()
            if char == _CLOSERS[top.is_object]:
                self.pos += 1
                stack.pop()
                just_opened = False
                continue
            if just_opened:
                return self._member(top)
            if char != ",":
                raise _NotJson
            self.pos += 1
            return self._member(top)
        return None

    def _member(self, top: _Container) -> JsonPath:
        if not top.is_object:
            path = (*top.path, top.count)
            top.count += 1
            return path
        self._skip_whitespace()
        if self._peek() != '"':
            raise _NotJson
        key_line = self.line
        key = self._string()
        path = (*top.path, key)
        self._record(path)
        first = top.keys.get(key)
        if first is None:
            top.keys[key] = key_line
        else:
            self._duplicate(key, first, key_line)
        self._skip_whitespace()
        if self._peek() != ":":
            raise _NotJson
        self.pos += 1
        return path

    def _duplicate(self, key: str, first: int, line: int) -> None:
        self._duplicates += 1
        if self._duplicates <= MAX_DUPLICATE_REPORTS:
            shown = key if len(key) <= 40 else safe_prefix(key, 40) + "…"
            message = f"key {shown!r} appears twice in one object (first at line {first}); JSON keeps only the last"
            self.problems.append(ParseProblem("duplicate-key", message, line))
        elif self._duplicates == MAX_DUPLICATE_REPORTS + 1:
            self.problems.append(
                ParseProblem(
                    "duplicate-key", f"more than {MAX_DUPLICATE_REPORTS} duplicate keys; the rest not listed", line
                )
            )

    def _string(self) -> str:
        match = _STRING.match(self.text, self.pos)
        if match is None:
            raise _NotJson
        value: str = json.loads(match.group())
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise _Refused(
                    ParseProblem(
                        "invalid-unicode",
                        "a string holds an unpaired surrogate escape (\\ud800-\\udfff), which is not valid Unicode",
                        self.line,
                    )
                ) from None
        self.pos = match.end()
        return value

    def _scalar(self) -> None:
        match = _SCALAR.match(self.text, self.pos)
        if match is None:
            raise _NotJson
        token = match.group()
        if token in _NON_FINITE:
            raise _Refused(ParseProblem("non-finite-number", f"{token} is not a JSON value", self.line))
        if len(token) > MAX_NUMBER_CHARS:
            raise _Refused(
                ParseProblem("number-too-long", f"a number of {len(token):,} characters: not read", self.line)
            )
        self.pos = match.end()

    def _skip_whitespace(self) -> None:
        match = _WHITESPACE.match(self.text, self.pos)
        end = match.end() if match else self.pos
        # Raw newlines occur only between tokens (JSON strings escape theirs), so counting here is enough.
        self.line += self.text.count("\n", self.pos, end)
        self.pos = end

    def _peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def _record(self, path: JsonPath) -> None:
        if len(self.lines) < MAX_LINE_ENTRIES:
            self.lines.setdefault(path, self.line)


def parse_json(text: str, first_line: int = 1) -> Document:
    """Parse one JSON document whose first line is line ``first_line`` of its file."""
    if not text.strip():
        return Document(None, problems=(ParseProblem("empty", "the file is empty", first_line),), parsed=False)
    scanner = _PositionScanner(text, first_line)
    try:
        scanner.run()
    except _Refused as refused:
        return Document(None, scanner.lines, (*scanner.problems, refused.problem), parsed=False)
    except _NotJson:
        pass  # json.loads below names the error with its exact line and column
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        line = first_line + exc.lineno - 1
        problem = ParseProblem("json-syntax", f"invalid JSON: {exc.msg} (line {line}, column {exc.colno})", line)
        return Document(None, scanner.lines, (*scanner.problems, problem), parsed=False)
    return Document(data, scanner.lines, tuple(scanner.problems))


def parse_jsonl(text: str) -> Document:
    """Parse JSON Lines: one case per non-blank line. A broken line is reported; the others are kept."""
    data: list[object] = []
    lines: dict[JsonPath, int] = {(): 1}
    problems: list[ParseProblem] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        row = parse_json(raw, first_line=number)
        problems.extend(row.problems)
        if not row.parsed:
            continue
        index = len(data)
        data.append(row.data)
        for sub_path, line in row.lines.items():
            if len(lines) >= MAX_LINE_ENTRIES:
                break
            lines[(index, *sub_path)] = line
    if not data and not problems:
        problems.append(ParseProblem("empty", "the file holds no JSON lines", 1))
    return Document(data, lines, tuple(problems), parsed=bool(data))
