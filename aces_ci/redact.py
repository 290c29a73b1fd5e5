"""Find secrets in text and mask them before anything is written, printed or reported.

Two users ask the same question, "is this a secret?": the SEC001 scan rule (a credential committed
in a skill) and every trajectory writer (an agent may echo an API key into a tool result). The
answer lives here once.

Detection is by shape, most confident first:

* provider tokens with fixed prefixes and alphabets: AWS access key ids, GitHub, Anthropic,
  OpenAI, Google, Slack and Stripe keys;
* private-key blocks (``-----BEGIN … PRIVATE KEY-----`` with a real base64 body, up to the
  matching END line or, when cut off, to the end of the body lines);
* JSON Web Tokens, Slack webhook URLs, passwords inside URLs (``scheme://user:pass@host``);
* AWS secret access keys in an assignment (40 base64 characters carry no prefix of their own);
* generic assignments ``password|secret|token|api_key… = value`` and ``Bearer value`` headers.

A gate that cries wolf gets switched off, so two filters keep false positives low:

* **Placeholders are not secrets.** A value that holds ``example``, ``sample``, ``placeholder``,
  ``dummy``, ``changeme``, ``redacted``, ``your``, ``xxxx`` or ``****``, that refers to a variable
  (``$TOKEN``, ``${{ secrets.X }}``, ``<token>``, ``%KEY%``), that uses fewer than 8 distinct
  characters, or that is mostly runs like ``abc123`` / ``1234567890abcdef`` is skipped for every
  kind.
* **Generic assignments must look machine-made.** Without a provider prefix only the value tells
  a password from a word, so it must be at least 16 characters long, mix at least two of lower
  case, upper case and digits, carry at least 3.0 bits of Shannon entropy per character, and not
  spell ``password``, ``secret`` or ``token``. ``password = "changeme"`` and
  ``token = "my_token_here"`` pass untouched; ``api_key = "q8Zr2LmX0vT4nWb7Yc"`` is masked.

Redaction replaces the whole secret with ``[REDACTED:<kind>]``: no prefix or suffix is kept,
because a prefix plus a length is already a hint.

Every trajectory is redacted before it is stored, a hundred-odd strings per rollout, and almost
none of them holds a secret. A cheap screen (:func:`_may_hold_pattern`: a length floor and a few
substring tests that every detector's match must contain) therefore rules a string out before
the detectors run; it may let through strings that hold no secret, never the reverse.
:func:`redact_obj` also redacts each distinct string once per call.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, TypeVar, cast

__all__ = [
    "MIN_EXTRA_SECRET_LENGTH",
    "SecretMatch",
    "environment_secrets",
    "excerpt",
    "find_secrets",
    "is_secret_name",
    "redact_obj",
    "redact_text",
    "redacted_lines",
]

MIN_EXTRA_SECRET_LENGTH = 8
"""Literal secrets shorter than this are ignored: masking every ``abc`` in a trajectory hides the run."""

_MAX_KEY_BLOCK = 16 * 1024
"""An RSA-8192 PEM is under 7 KiB; a BEGIN line farther than this from its END is not one block."""

_KIND_NAMES = {
    "aws-access-key-id": "AWS access key id",
    "aws-secret-access-key": "AWS secret access key",
    "github-token": "GitHub token",
    "anthropic-api-key": "Anthropic API key",
    "openai-api-key": "OpenAI API key",
    "google-api-key": "Google API key",
    "slack-token": "Slack token",
    "slack-webhook": "Slack webhook URL",
    "stripe-key": "Stripe secret key",
    "private-key": "private key block",
    "jwt": "JSON Web Token",
    "url-password": "password inside a URL",
    "bearer-token": "bearer token",
    "secret-assignment": "secret value assigned to a secret-named variable",
    "secret": "known secret value",
}

# Not inside a longer run of the token's alphabet on the right (``_R`` for alphabets with ``_`` and
# ``-``, ``_R_ALNUM`` for letters and digits only, so ``notes-ghp_…-old.md`` is still found). The left
# side is checked in code (``_WORD_CHARS``): a pattern that opens with a look-behind cannot use the
# regex engine's literal-prefix search and runs about ten times slower over a large file.
_R = r"(?![A-Za-z0-9_-])"
_R_ALNUM = r"(?![A-Za-z0-9])"
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


@dataclass(frozen=True)
class _Pattern:
    kind: str
    regex: re.Pattern[str]
    machine_made: bool = False
    """Whether the value has no fixed shape and must pass :func:`_looks_machine_made`."""
    starts_token: bool = True
    """Whether the match must not continue a longer token on its left (``xghp_…`` is not a token)."""


_PATTERNS: tuple[_Pattern, ...] = (
    _Pattern("aws-access-key-id", re.compile(r"(?P<secret>(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})(?![A-Za-z0-9])")),
    _Pattern(
        "aws-secret-access-key",
        re.compile(
            r"(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key)[\"']?\s*(?::=|=>|=|:)\s*[\"']?"
            r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        starts_token=False,
    ),
    _Pattern("github-token", re.compile(r"(?P<secret>gh[pousr]_[A-Za-z0-9]{36,251})" + _R_ALNUM)),
    _Pattern("github-token", re.compile(r"(?P<secret>github_pat_[A-Za-z0-9_]{22,247})(?![A-Za-z0-9_])")),
    _Pattern("anthropic-api-key", re.compile(r"(?P<secret>sk-ant-[A-Za-z0-9_-]{20,})")),
    _Pattern("openai-api-key", re.compile(r"(?P<secret>sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,})")),
    _Pattern("openai-api-key", re.compile(r"(?P<secret>sk-[A-Za-z0-9]{32,})" + _R_ALNUM)),
    _Pattern("google-api-key", re.compile(r"(?P<secret>AIza[A-Za-z0-9_-]{35})" + _R)),
    _Pattern("slack-token", re.compile(r"(?P<secret>xox[abprs]-[A-Za-z0-9-]{10,})")),
    _Pattern(
        "slack-webhook",
        re.compile(r"(?P<secret>https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{16,})"),
    ),
    _Pattern("stripe-key", re.compile(r"(?P<secret>(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,})" + _R_ALNUM)),
    _Pattern("stripe-key", re.compile(r"(?P<secret>whsec_[A-Za-z0-9]{24,})" + _R_ALNUM)),
    _Pattern("jwt", re.compile(r"(?P<secret>eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)" + _R)),
    _Pattern(
        "url-password",
        re.compile(r"://[^\s/:@\"'<>]{1,64}:(?P<secret>[^\s/@\"'<>]{8,128})@"),
        starts_token=False,
    ),
    _Pattern(
        "bearer-token",
        re.compile(r"(?i:bearer)\s+(?P<secret>[A-Za-z0-9._~+/=-]{16,512}+)(?![A-Za-z0-9._~+/=-])"),
        machine_made=True,
    ),
    _Pattern(
        "secret-assignment",
        re.compile(
            # The name: an identifier that starts here (the look-behind keeps the scan linear).
            r"(?<![A-Za-z0-9_.-])(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,63}+)[\"']?\s*(?::=|=>|=|:)\s*"
            # The value: quoted, or a bare run of token characters ending at a separator. The
            # possessive ``{…}+`` never backtracks into a run: a 2 MiB ``token=token=…`` stays linear.
            r"(?:(?P<quote>[\"'`])(?P<quoted>[^\"'`\s]{16,512}+)(?P=quote)"
            r"|(?P<bare>[A-Za-z0-9+/=_.~-]{16,512}+)(?=[\s,;)\]}&\"']|$))"
        ),
        machine_made=True,
        starts_token=False,
    ),
)

# ``token``/``secret`` followed by a letter is another word: ``max_tokens``, ``tokenizer``, ``secretary``.
_SECRET_NAME = re.compile(
    r"passw(?:or)?d|secret(?![a-z])|token(?![a-z])|api[_.-]?key|access[_.-]?key|private[_.-]?key"
    r"|auth[_.-]?key|credential",
    re.IGNORECASE,
)
_PATH_OR_URL = re.compile(r"(?:\.{0,2}/|~/|[A-Za-z][A-Za-z0-9+.-]*://)|.*\.[A-Za-z]{1,5}$")
"""``./keys/Key2024.pem`` or ``https://…``: where a secret lives, not the secret."""
_PEM_BEGIN = re.compile(r"-----BEGIN (?P<label>[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?)-----")
_PEM_BODY_LINE = re.compile(r"[ \t]*(?:[A-Za-z0-9+/=]+|[A-Za-z-]+:.*)?[ \t]*")
_BASE64_CHAR = re.compile(r"[A-Za-z0-9+/]")
_MIN_KEY_BODY = 64
"""Base64 characters a key body needs; fewer is a format illustration, not a key."""

_PLACEHOLDER_WORDS = (
    "example",
    "sample",
    "placeholder",
    "dummy",
    "changeme",
    "change_me",
    "redacted",
    "your",
    "xxxx",
    "****",
    "....",
)
_WORDY_VALUES = ("password", "secret", "token")
_REFERENCE_START = ("$", "%", "{", "<", "[")


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
        return _KIND_NAMES.get(self.kind, self.kind)


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    kind: str
    rank: int
    """Position of the detecting pattern: on overlap the more specific (lower) one names the span."""


def _shannon_entropy(value: str) -> float:
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def _mostly_sequential(value: str) -> bool:
    """``abc123def456`` or ``0123456789abcdef``: typed by a person writing an example."""
    steps = sum(1 for a, b in pairwise(value) if ord(b) - ord(a) == 1)
    return steps > 0.3 * (len(value) - 1)


def _is_placeholder(value: str) -> bool:
    lowered = value.lower()
    return (
        value.startswith(_REFERENCE_START)
        or any(word in lowered for word in _PLACEHOLDER_WORDS)
        or len(set(value)) < 8
        or _mostly_sequential(value)
    )


def _looks_machine_made(value: str) -> bool:
    """The bar a value without a provider prefix must clear to count as a secret (see module doc)."""
    if len(value) < 16:
        return False
    classes = sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
        )
    )
    lowered = value.lower()
    return (
        classes >= 2
        and _shannon_entropy(value) >= 3.0
        and not any(word in lowered for word in _WORDY_VALUES)
        and not _PATH_OR_URL.match(value)
    )


def _pem_spans(text: str, rank: int) -> Iterator[_Span]:
    """Private-key blocks with a real body, up to the END line or, when cut off, the last body line."""
    position = 0
    # Where the next END line of each label is (-1: none left), so a file of a thousand BEGIN lines
    # is searched once rather than a thousand times.
    next_end: dict[str, int] = {}
    while (begin := _PEM_BEGIN.search(text, position)) is not None:
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
            yield _Span(begin.start(), end, "private-key", rank)
            position = end
        else:
            position = begin.end()


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


_MIN_PATTERN_TEXT = 14
"""The shortest text any detector can match: ``://u:`` + 8 password characters + ``@``.

Every other kind is longer (a Slack token 15, a secret assignment 18, a JWT 24, …); the test
suite checks this floor against the compiled patterns."""

_PROVIDER_MARKS = (
    "AKIA",
    "ASIA",
    "ABIA",
    "ACCA",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "sk-",
    "k_live_",
    "k_test_",
    "whsec_",
    "AIza",
    "xox",
    "eyJ",
    "://",
    "-----BEGIN ",
)
"""Literal text every match of a prefixed kind contains (case as in its pattern): AWS ids, GitHub,
Anthropic/OpenAI, Stripe, Google and Slack tokens, JWTs, URLs (passwords, Slack webhooks), PEM."""
_NAME_MARKS = ("passw", "secret", "token", "key", "credential")
"""Lower-case text every secret-named variable contains (see ``_SECRET_NAME`` and the AWS secret
pattern); those kinds also need an assignment sign, ``=`` or ``:``.

The variable names are ASCII, with one exception: the AWS pattern's case-insensitive part also
accepts ``ſ`` for ``s``, which ``str.lower`` keeps, so ``ſecret`` escapes the ``secret`` mark;
that pattern still ends in ``key``, whose letters ``lower`` always folds."""


def _may_hold_pattern(text: str) -> bool:
    """False only when no detector can match ``text``: a substring screen, far cheaper than the detectors.

    ``str.__contains__`` is a fast C search; one alternation regex over the same marks is slower on
    prose because common letters (``s``, ``e``, ``g``) start a branch at almost every position.
    """
    if len(text) < _MIN_PATTERN_TEXT:
        return False
    if any(mark in text for mark in _PROVIDER_MARKS):
        return True
    lowered = text.lower()
    return "bearer" in lowered or (("=" in text or ":" in text) and any(mark in lowered for mark in _NAME_MARKS))


def _pattern_spans(text: str) -> Iterator[_Span]:
    """Spans of every detector; callers first rule ``text`` out with :func:`_may_hold_pattern`."""
    yield from _pem_spans(text, rank=0)
    for rank, pattern in enumerate(_PATTERNS, start=1):
        for match in pattern.regex.finditer(text):
            if pattern.starts_token and match.start() > 0 and text[match.start() - 1] in _WORD_CHARS:
                continue
            group = "secret"
            if pattern.kind == "secret-assignment":
                if not _SECRET_NAME.search(match["name"]):
                    continue
                group = "quoted" if match["quoted"] is not None else "bare"
            value = match[group]
            if _is_placeholder(value) or (pattern.machine_made and not _looks_machine_made(value)):
                continue
            yield _Span(match.start(group), match.end(group), pattern.kind, rank)


def _usable_literals(secrets: Iterable[str]) -> tuple[str, ...]:
    """The distinct known secrets long enough to mask (see :data:`MIN_EXTRA_SECRET_LENGTH`)."""
    return tuple({secret for secret in secrets if len(secret) >= MIN_EXTRA_SECRET_LENGTH})


def _literal_spans(text: str, literals: tuple[str, ...]) -> Iterator[_Span]:
    """Every occurrence of each of ``literals`` (already filtered by :func:`_usable_literals`)."""
    rank = len(_PATTERNS) + 1
    for secret in literals:
        position = text.find(secret)
        while position >= 0:
            yield _Span(position, position + len(secret), "secret", rank)
            position = text.find(secret, position + len(secret))


def _merge(spans: Iterable[_Span]) -> list[_Span]:
    """Non-overlapping spans in text order; overlapping ones are joined so no character escapes."""
    merged: list[_Span] = []
    for span in sorted(spans, key=lambda s: (s.start, s.rank, -s.end)):
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            if span.end > last.end:
                merged[-1] = _Span(last.start, span.end, last.kind, last.rank)
            continue
        merged.append(span)
    return merged


def find_secrets(text: str) -> list[SecretMatch]:
    """Every secret detected in ``text``, in order, never overlapping."""
    if not _may_hold_pattern(text):
        return []
    spans = _merge(_pattern_spans(text))
    if not spans:
        return []
    matches: list[SecretMatch] = []
    line, counted_to = 1, 0
    for span in spans:
        line += text.count("\n", counted_to, span.start)
        counted_to = span.start
        matches.append(SecretMatch(span.kind, span.start, span.end, line))
    return matches


def redact_text(text: str, extra_secrets: Iterable[str] = (), *, keep_lines: bool = False) -> str:
    """``text`` with every detected secret, and every occurrence of ``extra_secrets``, masked.

    ``extra_secrets`` are literal values known to be secret (API keys read from the environment);
    those shorter than :data:`MIN_EXTRA_SECRET_LENGTH` are ignored. With ``keep_lines`` a secret
    spanning lines (a private key) keeps its line breaks after the marker, so line ``n`` of the
    result is line ``n`` of the input: what report excerpts need.
    """
    return _redact(text, _usable_literals(extra_secrets), keep_lines=keep_lines)


def _redact(text: str, literals: tuple[str, ...], *, keep_lines: bool = False) -> str:
    """:func:`redact_text` with the known secrets already filtered, for callers that redact many strings."""
    detect = _may_hold_pattern(text)
    if not detect and not any(secret in text for secret in literals):
        return text
    spans = _merge([*(_pattern_spans(text) if detect else ()), *_literal_spans(text, literals)])
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


def redacted_lines(text: str) -> list[str]:
    """The lines of ``text`` (split on ``\\n``) with every secret masked and line numbers unchanged."""
    return redact_text(text, keep_lines=True).split("\n")


def excerpt(line: str, limit: int = 160) -> str:
    """An already-redacted line, stripped and shortened for a report.

    Cut only after redaction: a secret cut in half before masking is no longer recognised and
    its first half would be printed.
    """
    stripped = line.strip()
    return stripped if len(stripped) <= limit else stripped[: limit - 1].rstrip() + "…"


JsonLike = TypeVar("JsonLike")
_FINISHED = object()
"""What :func:`redact_obj` gets from a container's exhausted child iterator."""


@dataclass
class _Frame:
    """A container being copied by :func:`redact_obj`: its children still to visit and those done."""

    source: dict[Any, Any] | list[Any] | tuple[Any, ...]
    pending: Iterator[Any]
    keys: list[Any]
    done: list[Any]

    def build(self) -> dict[Any, Any] | list[Any] | tuple[Any, ...]:
        if isinstance(self.source, dict):
            return dict(zip(self.keys, self.done, strict=True))
        return tuple(self.done) if isinstance(self.source, tuple) else self.done


class _MemoRedactor:
    """Redacts the strings of one :func:`redact_obj` call, each distinct string once.

    A trajectory repeats many strings (keys such as ``step_id``, sources, tool names, the model
    name); the memo makes the second and later copies a dictionary lookup.
    """

    def __init__(self, extra_secrets: Iterable[str]) -> None:
        self._literals = _usable_literals(extra_secrets)
        self._done: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        redacted = self._done.get(text)
        if redacted is None:
            redacted = self._done[text] = _redact(text, self._literals)
        return redacted


def _redacted_keys(mapping: dict[Any, Any], redact: _MemoRedactor) -> list[Any]:
    """Redacted keys, made unique again (``#2``, ``#3``) so masking two keys never drops a value."""
    keys: list[Any] = []
    for key in mapping:
        new = redact(key) if isinstance(key, str) else key
        if new != key:
            candidate, count = new, 1
            while candidate in keys or candidate in mapping:
                count += 1
                candidate = f"{new} #{count}"
            new = candidate
        keys.append(new)
    return keys


def redact_obj(obj: JsonLike, extra_secrets: Iterable[str] = ()) -> JsonLike:
    """A copy of a JSON-like value (dicts, lists, tuples, scalars) with every string redacted.

    Keys are redacted too. Other objects are kept as they are. The walk is iterative, so nesting
    depth cannot exhaust the stack, and a container that contains itself is cut at the repeat
    with the string ``[CIRCULAR]`` instead of looping forever.
    """
    redact = _MemoRedactor(extra_secrets)

    def open_frame(container: dict[Any, Any] | list[Any] | tuple[Any, ...]) -> _Frame:
        if isinstance(container, dict):
            return _Frame(container, iter(container.values()), _redacted_keys(container, redact), [])
        return _Frame(container, iter(container), [], [])

    if not isinstance(obj, dict | list | tuple):
        return cast(JsonLike, redact(obj) if isinstance(obj, str) else obj)
    stack = [open_frame(obj)]
    on_path = {id(obj)}
    while True:
        frame = stack[-1]
        child = next(frame.pending, _FINISHED)
        if child is _FINISHED:
            stack.pop()
            on_path.discard(id(frame.source))
            built = frame.build()
            if not stack:
                return cast(JsonLike, built)
            stack[-1].done.append(built)
        elif isinstance(child, str):
            frame.done.append(redact(child))
        elif isinstance(child, dict | list | tuple):
            if id(child) in on_path:
                frame.done.append("[CIRCULAR]")
            else:
                on_path.add(id(child))
                stack.append(open_frame(child))
        else:
            frame.done.append(child)


_SECRET_VARIABLE = re.compile(r"(?i)(api[_-]?key|apikey|token|secret|password|passwd|credential|private[_-]?key)")
"""Shape-based redaction catches keys that look like keys; a key for a self-hosted endpoint may look like
anything. Every value of a variable whose *name* marks it as secret is therefore masked literally as well."""


def is_secret_name(name: str) -> bool:
    """Whether an environment variable's name marks its value as secret (``GITHUB_TOKEN``, ``*_API_KEY``…)."""
    return _SECRET_VARIABLE.search(name) is not None


def environment_secrets(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Values of secret-named variables (``*_API_KEY``, ``*_TOKEN``, ``*SECRET*``…), longest first."""
    env = os.environ if environ is None else environ
    values = {
        value for name, value in env.items() if is_secret_name(name) and len(value.strip()) >= MIN_EXTRA_SECRET_LENGTH
    }
    return tuple(sorted(values, key=len, reverse=True))
