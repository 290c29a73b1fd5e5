"""Numbers written in text, for ``match: numeric``: checked when a dataset is loaded, matched when graded.

One grammar serves both sides, so a reference the loader accepts is read the same way the grader
reads the answer:

* an optional sign, only at the start of a word (``1-5`` is 1 and 5, not 1 and -5);
* digits, with optional thousands separators in groups of three (``1,234,567``);
* an optional decimal part and exponent (``3.5``, ``.5``, ``2e-3``).

A comma is always a thousands separator, never a decimal mark: ``3,14`` reads as 3 and 14. A
percent sign is not part of the number (``45%`` is 45). Dates and versions are read as several
numbers (``2026-08-21`` is 2026, 8 and 21), which is why numeric matching asks for every
expected number rather than for the text around it.
"""

from __future__ import annotations

import math
import re

_NUMBER = re.compile(
    r"(?<![\w.])(?P<sign>[-+−]?)"  # U+2212 MINUS SIGN: how typeset answers write "minus"
    r"(?P<digits>(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)"
    r"(?P<exponent>[eE][-+]?\d+)?"
    r"(?![\d])"
)
MAX_NUMBERS = 10_000
"""Numbers read from one text; an answer listing more is not an answer to a numeric question."""


def numbers_in(text: str) -> list[float]:
    """Every finite number written in ``text``, in order (at most :data:`MAX_NUMBERS`)."""
    found: list[float] = []
    for match in _NUMBER.finditer(text):
        digits = match["digits"].replace(",", "")
        sign = "-" if match["sign"] in ("-", "−") else ""
        value = float(sign + digits + (match["exponent"] or ""))
        if math.isfinite(value):
            found.append(value)
            if len(found) >= MAX_NUMBERS:
                break
    return found
