"""Find secrets in a text, say why look-alikes were left alone, and mask what was found.

One pass per text: a cheap screen picks the detectors whose literal marks the text holds (a
substring test each, far cheaper than any pattern), only those run, and their candidates are
merged in text order. Most strings of a trajectory hold no mark at all and cost a few ``in``
tests; the screen may let through texts that hold no secret, never the reverse (the tests check
every answer with the screen switched off).

Redaction replaces the whole secret with ``[REDACTED:<kind>]``: no prefix or suffix is kept,
because a prefix plus a length is already a hint.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ._detectors import DETECTORS, KINDS, TOKEN_RUN, TOKEN_RUN_CHARS
from ._policy import machine_made_reason, placeholder_reason
from ._special import NAME_MARKS, Candidate, assignment_candidates, netrc_candidates, pem_candidates

__all__ = [
    "MIN_EXTRA_SECRET_LENGTH",
    "LeftAlone",
    "SecretMatch",
    "SecretScan",
    "excerpt",
    "find_secrets",
    "literal_set",
    "redact_text",
    "redact_with",
    "redacted_lines",
    "safe_prefix",
    "scan_text",
    "trim_partial_tokens",
]

MIN_EXTRA_SECRET_LENGTH = 8
"""Literal secrets shorter than this are ignored: masking every ``abc`` in a trajectory hides the run."""

MIN_PATTERN_TEXT = 14
"""The shortest text any detector can match: ``://u:`` + 8 password characters + ``@``.

Every other kind is longer (a secret assignment 18, a JWT 24, …); the test suite checks this
floor against the compiled patterns."""

_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_PEM_RANK = len(DETECTORS)
_ASSIGNMENT_RANK = _PEM_RANK + 1
_NETRC_RANK = _PEM_RANK + 2
_LITERAL_RANK = _PEM_RANK + 3


def _mark_index(folded: bool) -> tuple[tuple[str, tuple[int, ...]], ...]:
    index: dict[str, list[int]] = {}
    for position, detector in enumerate(DETECTORS):
        if detector.folded == folded:
            for mark in detector.marks:
                index.setdefault(mark, []).append(position)
    return tuple((mark, tuple(positions)) for mark, positions in index.items())


_CASED_MARKS = _mark_index(folded=False)
_FOLDED_MARKS = _mark_index(folded=True)
_TOKEN_RUNS = re.compile(f"[{TOKEN_RUN_CHARS}]{{{TOKEN_RUN},}}")
"""Prose and most code hold few long token runs (about 1% of a skill's text): the case-sensitive
marks are looked for in those alone, which halves the screen's cost over a file."""


@dataclass(frozen=True)
class _Plan:
    """Which detectors a text's marks call for."""

    detectors: tuple[int, ...]
    pem: bool
    assignments: bool
    netrc: bool


def _screen(text: str) -> _Plan | None:
    """The detectors that can match ``text``; None when none can (see the module doc)."""
    if len(text) < MIN_PATTERN_TEXT:
        return None
    chosen: set[int] = set()
    runs = text if len(text) < 256 else " ".join(_TOKEN_RUNS.findall(text))
    if runs:
        for mark, positions in _CASED_MARKS:
            if mark in runs:
                chosen.update(positions)
    lowered = text.lower()
    if "ſ" in lowered:  # the long s matches ``s`` case-insensitively, and ``str.lower`` keeps it
        lowered = lowered.replace("ſ", "s")
    for mark, positions in _FOLDED_MARKS:
        if mark in lowered:
            chosen.update(positions)
    pem = "-----BEGIN " in text
    assignments = ("=" in text or ":" in text) and any(mark in lowered for mark in NAME_MARKS)
    netrc = "password" in text and ("machine" in text or "default" in text)
    if not (chosen or pem or assignments or netrc):
        return None
    return _Plan(tuple(sorted(chosen)), pem, assignments, netrc)


def _description(kind: str) -> str:
    return KINDS[kind].description if kind in KINDS else kind


def _family(kind: str) -> str:
    return KINDS[kind].family if kind in KINDS else kind


def _detector_candidates(text: str, positions: tuple[int, ...]) -> Iterator[Candidate]:
    for rank in positions:
        detector = DETECTORS[rank]
        for match in detector.regex.finditer(text):
            start, end = match.span("secret")
            if detector.starts_token and start > 0 and text[start - 1] in _WORD_CHARS:
                continue
            value = match["secret"]
            kind = detector.kind
            reason = placeholder_reason(value)
            if reason is None and detector.formats:
                named = next((name for name, shape in detector.formats if shape.fullmatch(value)), None)
                if named is None:
                    reason = f"it is in none of the documented {_family(kind)} token formats"
                else:
                    kind = named
            if reason is None and detector.check is not None:
                reason = detector.check(value)
            if reason is None and detector.machine_made:
                reason = machine_made_reason(value)
            yield Candidate(start, end, kind, rank, reason)


def _candidates(text: str, plan: _Plan) -> Iterator[Candidate]:
    """Every candidate of the detectors ``plan`` calls for, secrets and left-alone look-alikes."""
    yield from _detector_candidates(text, plan.detectors)
    if plan.pem:
        yield from pem_candidates(text, _PEM_RANK)
    if plan.assignments:
        yield from assignment_candidates(text, _ASSIGNMENT_RANK)
    if plan.netrc:
        yield from netrc_candidates(text, _NETRC_RANK)


def _merge(spans: Iterable[Candidate]) -> list[Candidate]:
    """Non-overlapping secret spans in text order; overlapping ones are joined so no character escapes."""
    merged: list[Candidate] = []
    for span in sorted(spans, key=lambda s: (s.start, s.rank, -s.end)):
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            if span.end > last.end:
                merged[-1] = Candidate(last.start, span.end, last.kind, last.rank)
            continue
        merged.append(span)
    return merged


@dataclass(frozen=True)
class SecretMatch:
    """One secret found in a text: what kind, where (character offsets) and on which line it starts."""

    kind: str
    """Stable slug, e.g. ``github-token``; it is what ``[REDACTED:<kind>]`` shows."""
    start: int
    end: int
    """Offsets into the text, ``text[start:end]`` being the secret."""
    line: int
    """1-based line (counting ``\\n``) where the secret starts."""

    @property
    def description(self) -> str:
        """The kind in words, for messages: ``GitHub token``."""
        return _description(self.kind)


@dataclass(frozen=True)
class LeftAlone:
    """A value shaped like a secret that the policy did not treat as one, and why."""

    kind: str
    """The kind it looked like."""
    start: int
    end: int
    line: int
    reason: str
    """Why it is not a secret, in words that never quote the value (``it holds the placeholder text 'your'``)."""

    @property
    def description(self) -> str:
        return _description(self.kind)


@dataclass(frozen=True)
class SecretScan:
    """Everything the detectors saw in one text: the secrets, and the look-alikes left alone."""

    secrets: tuple[SecretMatch, ...]
    left_alone: tuple[LeftAlone, ...]


def _line_numbers(text: str, starts: Iterable[int]) -> Iterator[int]:
    """The 1-based line of each offset in ``starts`` (ascending)."""
    line, counted_to = 1, 0
    for start in starts:
        line += text.count("\n", counted_to, start)
        counted_to = start
        yield line


def find_secrets(text: str) -> list[SecretMatch]:
    """Every secret detected in ``text``, in order, never overlapping."""
    plan = _screen(text)
    if plan is None:
        return []
    spans = _merge(c for c in _candidates(text, plan) if c.reason is None)
    lines = _line_numbers(text, (span.start for span in spans))
    return [SecretMatch(span.kind, span.start, span.end, line) for span, line in zip(spans, lines, strict=True)]


def scan_text(text: str) -> SecretScan:
    """The secrets of ``text`` and the candidates the policy left alone (those overlapping no secret)."""
    plan = _screen(text)
    if plan is None:
        return SecretScan((), ())
    candidates = list(_candidates(text, plan))
    spans = _merge(c for c in candidates if c.reason is None)
    refused: list[Candidate] = []
    for candidate in sorted((c for c in candidates if c.reason is not None), key=lambda c: (c.start, c.rank)):
        overlaps = any(s.start < candidate.end and candidate.start < s.end for s in spans)
        if not overlaps and not (refused and candidate.start < refused[-1].end):
            refused.append(candidate)
    secret_lines = _line_numbers(text, (s.start for s in spans))
    refused_lines = _line_numbers(text, (c.start for c in refused))
    return SecretScan(
        tuple(SecretMatch(s.kind, s.start, s.end, n) for s, n in zip(spans, secret_lines, strict=True)),
        tuple(
            LeftAlone(c.kind, c.start, c.end, n, c.reason or "") for c, n in zip(refused, refused_lines, strict=True)
        ),
    )


def literal_set(secrets: Iterable[str]) -> tuple[str, ...]:
    """The distinct known secrets long enough to mask (see :data:`MIN_EXTRA_SECRET_LENGTH`), longest first."""
    return tuple(sorted({s for s in secrets if len(s) >= MIN_EXTRA_SECRET_LENGTH}, key=len, reverse=True))


def _literal_spans(text: str, literals: tuple[str, ...]) -> Iterator[Candidate]:
    """Every occurrence of each of ``literals`` (already filtered by :func:`literal_set`)."""
    for secret in literals:
        position = text.find(secret)
        while position >= 0:
            yield Candidate(position, position + len(secret), "secret", _LITERAL_RANK)
            position = text.find(secret, position + len(secret))


def redact_with(text: str, literals: tuple[str, ...], *, keep_lines: bool = False) -> str:
    """:func:`redact_text` with the known secrets already filtered, for callers that redact many strings."""
    plan = _screen(text)
    if plan is None and not any(secret in text for secret in literals):
        return text
    found = (c for c in _candidates(text, plan) if c.reason is None) if plan is not None else ()
    spans = _merge([*found, *_literal_spans(text, literals)])
    if not spans:
        return text
    pieces: list[str] = []
    position = 0
    for span in spans:
        pieces.append(text[position : span.start])
        pieces.append(f"[REDACTED:{span.kind}]")
        if keep_lines:
            pieces.append("\n" * text.count("\n", span.start, span.end))
        position = span.end
    pieces.append(text[position:])
    return "".join(pieces)


def redact_text(text: str, extra_secrets: Iterable[str] = (), *, keep_lines: bool = False) -> str:
    """``text`` with every detected secret, and every occurrence of ``extra_secrets``, masked.

    ``extra_secrets`` are literal values known to be secret (API keys read from the environment);
    those shorter than :data:`MIN_EXTRA_SECRET_LENGTH` are ignored. With ``keep_lines`` a secret
    spanning lines (a private key) keeps its line breaks after the marker, so line ``n`` of the
    result is line ``n`` of the input: what report excerpts need.
    """
    return redact_with(text, literal_set(extra_secrets), keep_lines=keep_lines)


def redacted_lines(text: str) -> list[str]:
    """The lines of ``text`` (split on ``\\n``) with every secret masked and line numbers unchanged."""
    return redact_text(text, keep_lines=True).split("\n")


_LONGEST_SECRET = 17 * 1024
"""No detected secret is longer (a private-key block is capped at 16 KiB)."""
_TOKEN_RUN_END = re.compile(r"[A-Za-z0-9_+/=.~%-]{1,1024}$")
_TOKEN_RUN_START = re.compile(r"[A-Za-z0-9_+/=.~%-]{1,1024}")


def safe_prefix(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, never inside a detected secret.

    Every cut of text we keep goes through here (or :func:`excerpt`): half a secret is no longer
    recognised by any detector, so a cut through one would leave its first half in the open.
    """
    if len(text) <= limit:
        return text
    cut = limit
    for match in find_secrets(text[: limit + _LONGEST_SECRET]):
        if match.start < cut < match.end:
            cut = match.start
            break
    return text[:cut]


def trim_partial_tokens(head: str, tail: str) -> tuple[str, str]:
    """The two ends kept of a text whose middle was dropped, without the token each end was cut in.

    What was dropped is unknown, so a secret may straddle either cut: the run of token characters
    at the end of ``head`` and at the start of ``tail`` is removed, whole.
    """
    return _TOKEN_RUN_END.sub("", head), _TOKEN_RUN_START.sub("", tail, count=1)


def excerpt(line: str, limit: int = 160) -> str:
    """An already-redacted line, stripped and shortened for a report.

    Cut only after redaction: a secret cut in half before masking is no longer recognised and
    its first half would be printed.
    """
    stripped = line.strip()
    return stripped if len(stripped) <= limit else stripped[: limit - 1].rstrip() + "…"
