"""The token measure every SkillSV length uses: unit sizes in reports and ρ_pad's length matching.

No tokenizer of a real model ships with its vocabulary on PyPI for every provider aces-ci drives
(Anthropic, OpenAI, the embedded SmolLM2), and loading one at run time would need the network.
So SkillSV counts tokens with one dependency-free, documented approximation, ``approx-v1``:

* a run of letters and digits is one token per started group of eight characters
  (``information`` is 2, ``the`` is 1), which tracks byte-pair encoders on English prose and code;
* every other visible character (punctuation, symbols, an emoji) is one token;
* every line break is one token; spaces and tabs are free (encoders fold them into the next word).

What matters for ρ_pad is not agreement with any one model but consistency: the *same* measure
sizes a removed span and builds its placeholder, and it is additive over whole lines, so a
rendering made of line-aligned spans has exactly the token length of the sum of its spans.
"""

from __future__ import annotations

import re

TOKENIZER = "approx-v1"
"""Name of the measure, written into every compile and value report."""

_WORD_CHARS = 8
_PIECE = re.compile(r"[^\W_]+|\n|[^\s\w]|_", re.UNICODE)


def count_tokens(text: str) -> int:
    """Tokens of ``text`` under ``approx-v1``."""
    total = 0
    for match in _PIECE.finditer(text):
        piece = match.group()
        if piece[0].isalnum():
            total += -(-len(piece) // _WORD_CHARS)
        else:
            total += 1
    return total


PLACEHOLDER_TOKEN = "."
"""The neutral filler: a full stop carries no instruction and is one token for common encoders too."""


def placeholder_line(tokens: int) -> str:
    """A neutral line (no line break) of exactly ``tokens`` tokens: ``. . . .``."""
    return " ".join([PLACEHOLDER_TOKEN] * tokens)


def placeholder_for(text: str) -> str:
    """A neutral text with the same lines and, line by line, the same token count as ``text``.

    Keeping the line structure (blank lines stay blank, the final line break is kept or not) keeps
    the document's paragraph breaks where they were, so the placeholder reads as a gap, not as a
    change of layout; per-line equality makes the total equal because line breaks count one each.
    """
    lines = text.split("\n")
    return "\n".join(placeholder_line(count_tokens(line)) for line in lines)
