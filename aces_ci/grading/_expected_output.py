"""The minimal scorer: does the final answer contain the case's expected output?

Comparison is on normalised text, so an answer is not failed for typography:

* Unicode compatibility forms are folded (NFKC) and case is folded (``casefold``);
* every run of whitespace becomes one space;
* punctuation and symbols at either end are stripped (``"Paris."`` matches ``paris``), while
  punctuation inside is kept (``3.14`` still differs from ``314``).

The expected output must appear inside the answer as a whole: not as part of a longer word or
number (``12`` is not found in ``120``). This is a containment check, not a judge. It scores 1.0
or 0.0, and None when the case has no usable expected output or the rollout ended as an
infrastructure error.
"""

from __future__ import annotations

import re
import unicodedata

from ..agents import RolloutResult
from ..evals import EvalCase


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


class ExpectedOutputScorer:
    """1.0 when the normalised final answer contains the normalised expected output, else 0.0."""

    name = "expected-output-contains"

    async def score(self, case: EvalCase, result: RolloutResult) -> float | None:
        if result.status != "completed" or case.expected_output is None:
            return None
        expected = normalise(case.expected_output)
        if not expected:
            return None
        pattern = rf"(?<!\w){re.escape(expected)}(?!\w)"
        return 1.0 if re.search(pattern, normalise(result.final_answer or "")) else 0.0
