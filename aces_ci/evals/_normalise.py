"""Text folded for comparison: how an answer is matched against a reference, and a prompt against a prompt.

An answer is not failed for typography, and two cases are not different because one ends in a
full stop:

* Unicode compatibility forms are folded (NFKC) and case is folded (``casefold``);
* every run of whitespace becomes one space;
* punctuation and symbols at either end are stripped (``"Paris."`` matches ``paris``), while
  punctuation inside is kept (``3.14`` still differs from ``314``).

:func:`contains_phrase` asks for the reference as a whole inside the answer: not as part of a
longer word or number (``12`` is not found in ``120``).
"""

from __future__ import annotations

import re
import unicodedata


def normalise(text: str) -> str:
    """``text`` folded for comparison as described in the module docstring."""
    folded = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    start, end = 0, len(folded)
    while start < end and _is_edge_noise(folded[start]):
        start += 1
    while end > start and _is_edge_noise(folded[end - 1]):
        end -= 1
    return folded[start:end]


def _is_edge_noise(char: str) -> bool:
    return char.isspace() or unicodedata.category(char)[0] in ("P", "S")


def contains_phrase(text: str, phrase: str) -> bool | None:
    """Whether normalised ``text`` holds normalised ``phrase`` as a whole; None when the phrase folds to nothing."""
    expected = normalise(phrase)
    if not expected:
        return None
    return re.search(rf"(?<!\w){re.escape(expected)}(?!\w)", normalise(text)) is not None
