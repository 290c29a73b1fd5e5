"""The false-positive policy: when a value shaped like a credential is left alone, and why.

A gate that cries wolf gets switched off, so every candidate a detector finds passes two filters,
and each refusal comes with a reason a report can print (the reason never repeats the value):

* **Placeholders are not secrets** (every kind). A value that holds a placeholder word
  (``example``, ``sample``, ``placeholder``, ``dummy``, ``changeme``, ``redacted``, ``your``,
  ``xxxx``, ``****``…), that refers to a variable or template (``$TOKEN``, ``${{ secrets.X }}``,
  ``<token>``, ``%KEY%``, ``{{ .Values.key }}``), that uses fewer than 8 distinct characters, that
  is mostly runs like ``abc123`` / ``1234567890abcdef``, or that is a vendor's documented example
  value, is skipped.
* **Values without a fixed shape must look machine-made** (generic ``token = "…"`` assignments and
  ``Bearer …`` headers): at least 16 characters, two of lower case, upper case and digits, at
  least 3.0 bits of Shannon entropy per character, not spelling ``password``, ``secret`` or
  ``token``, not a path or URL, and not a pattern spelling character ranges (``A-Za-z0-9``).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from itertools import pairwise

__all__ = ["MACHINE_MADE_LENGTH", "is_path_or_url", "machine_made_reason", "placeholder_reason"]

MACHINE_MADE_LENGTH = 16
"""The shortest value without a provider prefix that can count as a machine-made secret."""
_MIN_DISTINCT = 8
_MIN_ENTROPY = 3.0

_PLACEHOLDER_WORDS = (
    "example",
    "sample",
    "placeholder",
    "dummy",
    "changeme",
    "change_me",
    "change-me",
    "redacted",
    "your",
    "xxxx",
    "XXXX",
    "****",
    "....",
    "####",
)
"""Searched case-sensitively in the lower-cased value, except the upper-case ones (``XXXX``)."""
_WORDY_VALUES = ("password", "secret", "token")
_CHARACTER_RANGES = ("a-z", "A-Z", "0-9", "a-f", "A-F")
_REFERENCE_START = ("$", "{", "<", "[", "@")
_TEMPLATE = re.compile(r"\$\{|\{\{|\$\(|%[A-Za-z_]\w*%|<[^<>]*>")
_PATH_OR_URL = re.compile(r"(?:\.{0,2}/|~/|[A-Za-z][A-Za-z0-9+.-]*://)|.*\.[A-Za-z]{1,5}$")
"""``./keys/Key2024.pem`` or ``https://…``: where a secret lives, not the secret."""

DOCUMENTED_EXAMPLES = frozenset(
    {
        # Stripe's documentation shows these test-mode keys to every reader.
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
        # The token jwt.io opens with (HS256, "John Doe"); its signature part, as detectors see it whole.
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
        ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        # Telegram's Bot API documentation.
        "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11",
        "110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
    }
)
"""Values vendors print in their public documentation: copying one into a skill leaks nothing."""


def _shannon_entropy(value: str) -> float:
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def _mostly_sequential(value: str) -> bool:
    """``abc123def456`` or ``0123456789abcdef``: typed by a person writing an example."""
    steps = sum(1 for a, b in pairwise(value) if ord(b) - ord(a) in (0, 1))
    return steps > 0.4 * (len(value) - 1)


def placeholder_reason(value: str) -> str | None:
    """Why ``value`` is a placeholder rather than a credential, or None when it may be a real one."""
    if value in DOCUMENTED_EXAMPLES:
        return "it is a value the vendor's documentation shows as an example"
    if value.startswith(_REFERENCE_START) or _TEMPLATE.search(value):
        return "it refers to a variable or template instead of holding a value"
    lowered = value.lower()
    for word in _PLACEHOLDER_WORDS:
        if word in (value if word.isupper() else lowered):
            return f"it holds the placeholder text {word!r}"
    if len(set(value)) < _MIN_DISTINCT:
        return f"it uses fewer than {_MIN_DISTINCT} distinct characters"
    if _mostly_sequential(value):
        return "it is mostly runs of repeated or consecutive characters (abc…, 123…)"
    return None


def is_path_or_url(value: str) -> bool:
    """``./keys/Key2024.pem`` or ``https://…``: where a secret lives, not the secret."""
    return _PATH_OR_URL.match(value) is not None


def machine_made_reason(value: str) -> str | None:
    """Why a value without a provider prefix does not look machine-made, or None when it does."""
    if len(value) < MACHINE_MADE_LENGTH:
        return f"it is shorter than {MACHINE_MADE_LENGTH} characters, too short for a generated credential"
    classes = sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
        )
    )
    if classes < 2:
        return "it uses a single kind of character (a word, not a generated credential)"
    lowered = value.lower()
    for word in _WORDY_VALUES:
        if word in lowered:
            return f"it spells the word {word!r}"
    if sum(span in value for span in _CHARACTER_RANGES) >= 2:
        return "it spells character ranges (A-Za-z0-9): a pattern, not a value"
    if is_path_or_url(value):
        return "it is a path or URL: where a secret lives, not the secret"
    if _shannon_entropy(value) < _MIN_ENTROPY:
        return f"its entropy is below {_MIN_ENTROPY:.1f} bits per character"
    return None
