"""Detectors that are code rather than one pattern: private-key blocks, secret-named assignments, ``.netrc``.

* **Private keys** run from ``-----BEGIN … PRIVATE KEY-----`` to the matching END line or, when
  cut off, to the end of the body lines; a block whose body has fewer than 64 base64 characters
  is a format illustration. A key inside a GCP service-account JSON is named as that.
* **Assignments** ``password|secret|token|api_key… = value`` (also ``:``, ``:=``, ``=>``, in code,
  YAML, JSON, ``.env``): the variable's name marks the value as secret, the policy decides
  whether the value looks like one. The names are found first, with one case-insensitive search
  for the words, and the assignment is parsed after each: the value may be of any length, so a
  placeholder too short to be a secret can still be reported as left alone.
* **.netrc** entries ``machine <host> login <user> password <value>`` (on one line or several).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ._policy import is_path_or_url, machine_made_reason, placeholder_reason

__all__ = ["Candidate", "assignment_candidates", "netrc_candidates", "pem_candidates"]


@dataclass(frozen=True)
class Candidate:
    """Something shaped like a secret: its span, its kind and, when the policy refused it, why."""

    start: int
    end: int
    kind: str
    rank: int
    """Position of the detector: on overlap the more specific (lower) one names the span."""
    reason: str | None = None
    """None: a secret. Otherwise why it was left alone (never quoting the value)."""


# ---------------------------------------------------------------------------------- private keys

_MAX_KEY_BLOCK = 16 * 1024
"""An RSA-8192 PEM is under 7 KiB; a BEGIN line farther than this from its END is not one block."""
PEM_BEGIN = re.compile(r"-----BEGIN (?P<label>[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?)-----")
_PEM_BODY_LINE = re.compile(r"[ \t]*(?:[A-Za-z0-9+/=]+|[A-Za-z-]+:.*)?[ \t]*")
_BASE64_CHAR = re.compile(r"[A-Za-z0-9+/]")
_MIN_KEY_BODY = 64
"""Base64 characters a key body needs; fewer is a format illustration, not a key."""
_SERVICE_ACCOUNT_KEY = re.compile(r"\"private_key\\?\"\s*:\s*\\?\"$")


def _end_of_key_body(text: str, body_start: int) -> int:
    """Where an unterminated key block ends: the rest of its line, then every following body-shaped line."""
    limit = min(len(text), body_start + _MAX_KEY_BLOCK)
    line_end = text.find("\n", body_start, limit)
    if line_end < 0:
        return limit
    end = line_end
    while end < limit:
        next_end = text.find("\n", end + 1, limit)
        next_end = limit if next_end < 0 else next_end
        if not _PEM_BODY_LINE.fullmatch(text, end + 1, next_end):
            break
        end = next_end
    return end


def pem_candidates(text: str, rank: int) -> Iterator[Candidate]:
    """Private-key blocks with a real body; a body too short to be a key is left alone, with why."""
    position = 0
    # Where the next END line of each label is (-1: none left), so a file of a thousand BEGIN lines
    # is searched once rather than a thousand times.
    next_end: dict[str, int] = {}
    while (begin := PEM_BEGIN.search(text, position)) is not None:
        end_marker = f"-----END {begin['label']}-----"
        known = next_end.get(begin["label"])
        if known is None or 0 <= known < begin.end():
            known = next_end[begin["label"]] = text.find(end_marker, begin.end())
        stop = known if 0 <= known <= begin.end() + _MAX_KEY_BLOCK else -1
        if stop >= 0:
            end = stop + len(end_marker)
            body = text[begin.end() : stop]
        else:
            end = _end_of_key_body(text, begin.end())
            body = text[begin.end() : end]
        # Header lines (``Proc-Type: 4,ENCRYPTED``) carry letters too; only count base64 lines.
        body_chars = sum(len(_BASE64_CHAR.findall(line)) for line in re.split(r"\n|\\n", body) if ":" not in line)
        if body_chars >= _MIN_KEY_BODY:
            before = text[max(0, begin.start() - 40) : begin.start()]
            in_service_account = _SERVICE_ACCOUNT_KEY.search(before) is not None and "service_account" in text
            yield Candidate(begin.start(), end, "gcp-service-account" if in_service_account else "private-key", rank)
            position = end
        else:
            reason = f"its body has fewer than {_MIN_KEY_BODY} base64 characters: an illustration of the format"
            yield Candidate(begin.start(), begin.end(), "private-key", rank, reason)
            position = begin.end()


# ----------------------------------------------------------------------------------- assignments

# ``token``/``secret`` followed by a lower-case letter is another word: ``max_tokens``, ``tokenizer``,
# ``secretary``; an upper-case one starts the next word of a camelCase name (``secretKey``).
SECRET_WORD = re.compile(
    r"passw(?:or)?d|passphrase|secret(?-i:(?![a-z]))|token(?-i:(?![a-z]))|api[_.-]?key|apikey|access[_.-]?key"
    r"|private[_.-]?key|auth[_.-]?key|account[_.-]?key|signing[_.-]?key|master[_.-]?key|credential",
    re.IGNORECASE,
)
"""What makes a variable's name say its value is secret: ``DB_PASSWORD``, ``clientSecret``, ``x-api-key``."""
_SECRET_WORD_LOWER = re.compile(SECRET_WORD.pattern.replace("(?-i:(?![a-z]))", ""))
""":data:`SECRET_WORD` for lower-cased text, the camelCase check left to code: a case-insensitive
search costs about ten times as much as a case-sensitive one over the lower-cased text."""
_WORD_BOUNDARY_CHECKED = ("secret", "token")
NAME_MARKS = ("passw", "passphrase", "secret", "token", "key", "credential")
"""Lower-case text every match of :data:`SECRET_WORD` contains (``str.lower`` folds the Kelvin sign
too; the screen maps the long s, ``ſ``, to ``s`` itself)."""
_NAME_CHAR = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_MAX_NAME = 64
_ASSIGNED = re.compile(
    r"[\"']?[ \t]*(?::=|=>|=|:)[ \t]*"
    # The value: quoted, or a bare run of token characters ending at a separator. The possessive
    # ``{…}+`` never backtracks into a run: a 2 MiB ``token=token=…`` stays linear.
    r"(?:(?P<quote>[\"'`])(?P<quoted>[^\"'`\s]{1,512}+)(?P=quote)"
    r"|(?P<template>\$\{\{[^}\n]{1,200}+\}\}|<[^<>\s]{1,200}+>)"
    r"|(?P<bare>[A-Za-z0-9+/=_.~$%{}*#@!-]{1,512}+)(?=[\s,;)\]}&\"'<]|$))"
)
_REFERENCE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?")
"""A bare value shaped like ``token`` or ``args.password``: in code, another variable."""
_MIN_REPORTED = 4
"""Quoted values shorter than this are not worth a report line (``password = ""``, ``"x"``)."""


def _name_bounds(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The identifier around a secret word at ``text[start:end]``, or None when it is too long to be a name."""
    left = start
    while left > 0 and text[left - 1] in _NAME_CHAR and start - left <= _MAX_NAME:
        left -= 1
    right = end
    while right < len(text) and text[right] in _NAME_CHAR and right - end <= _MAX_NAME:
        right += 1
    if right - left > _MAX_NAME or (left > 0 and text[left - 1] in _NAME_CHAR):
        return None
    return left, right


def _secret_words(text: str) -> Iterator[tuple[int, int]]:
    """Spans of :data:`SECRET_WORD` in ``text``, found in its lower-cased copy when offsets agree."""
    lowered = text.lower()
    if len(lowered) != len(text):  # a character that lower-cases to two (``İ``): offsets would drift
        yield from (word.span() for word in SECRET_WORD.finditer(text))
        return
    for word in _SECRET_WORD_LOWER.finditer(lowered):
        end = word.end()
        if word.group().endswith(_WORD_BOUNDARY_CHECKED) and end < len(text) and "a" <= text[end] <= "z":
            continue  # ``tokenizer``, ``secretary``; ``secretKey`` goes on
        yield word.start(), end


def assignment_candidates(text: str, rank: int) -> Iterator[Candidate]:
    """Values assigned to secret-named variables: secrets when machine-made, else left alone with why.

    A bare value shaped like an identifier (``password=args.password``) is another variable and is
    not reported unless it holds a placeholder word (``TOKEN=your_token_here``).
    """
    done_to = 0  # words inside a name or value already read are not read again: ``token=token=…`` stays linear
    for start, end in _secret_words(text):
        if start < done_to:
            continue
        bounds = _name_bounds(text, start, end)
        if bounds is None:
            continue
        done_to = bounds[1]
        assigned = _ASSIGNED.match(text, bounds[1])
        if assigned is None:
            continue
        group = next(name for name in ("quoted", "template", "bare") if assigned[name] is not None)
        value = assigned[group]
        done_to = assigned.end(group)
        reason = placeholder_reason(value) or machine_made_reason(value)
        if reason is not None:
            if len(value) < _MIN_REPORTED or is_path_or_url(value):
                continue  # too short to be worth a line; a path names where a secret lives
            if group == "bare" and _REFERENCE.fullmatch(value) and not placeholder_reason(value):
                continue
        yield Candidate(assigned.start(group), assigned.end(group), "secret-assignment", rank, reason)


# ---------------------------------------------------------------------------------------- .netrc

_NETRC = re.compile(
    r"(?:machine[ \t\n]++\S++|default)(?:[ \t\n]++(?:login|account)[ \t\n]++\S++)++[ \t\n]++password[ \t\n]++"
    r"(?P<secret>\S{1,256}+)"
)


def netrc_candidates(text: str, rank: int) -> Iterator[Candidate]:
    """``password`` values of ``.netrc`` entries, judged by the placeholder policy alone."""
    for match in _NETRC.finditer(text):
        if match.start() > 0 and not text[match.start() - 1].isspace():
            continue
        value = match["secret"]
        yield Candidate(match.start("secret"), match.end("secret"), "netrc-password", rank, placeholder_reason(value))
