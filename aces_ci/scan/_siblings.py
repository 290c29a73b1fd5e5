"""Sibling skills whose descriptions claim the same requests: a lexical measure of trigger overlap.

A host shows the model every listed description at once; when two of them claim the same kind of
request, which one loads is up to chance and listing order (users report it as skills "stealing"
each other's triggers). What a description claims is mostly in its trigger clauses ("Use when …",
"Trigger when the user asks …", "whenever …"); a description without one claims what it says.

The measure: each description's *claim terms* are the content words of its trigger clauses
(lower-cased, lightly stemmed, with function words and the vocabulary every skill description
uses — "skill", "user", "file", "create" — removed). Two skills collide when they share at least
:data:`MIN_SHARED_TERMS` claim terms and those cover at least :data:`MIN_OVERLAP` of the smaller
claim (the overlap coefficient: a narrow skill inside a broad one's claim is a collision too).

The thresholds were chosen on real multi-skill repositories, where distinct skills must not be
reported (docs/rules.md, DISC003, gives the measurement).
"""

from __future__ import annotations

import bisect
import functools
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

MIN_SHARED_TERMS = 4
"""Fewer shared claim terms than this is never a collision: two words in common is vocabulary, not a claim."""
MIN_OVERLAP = 0.5
"""Share of the smaller claim's terms the two must have in common."""
VOCABULARY_SHARE = 0.25
"""A term in more than this share of the repository's skills (and in more than 3) is the repository's
vocabulary ("msbuild" in a repository of MSBuild skills), not a claim that tells two skills apart."""

_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_TRIGGER_CUE = re.compile(
    r"\b(use (?:this|it|when|for|whenever|if|on)|when (?:the )?users?|whenever|triggers?\b|trigger (?:on|when)|"
    r"invoke|activate|asks? (?:for|to|about)|requests?)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z0-9][a-z0-9+#]*(?:[.-][a-z0-9+#]+)*")
_STOP_WORDS = """a an the and or nor but if then than so as at by for from in into of on onto to with without within
about over under via per vs is are be been being was were do does did done has have had having can could
should would will may might must shall this that these those it its they them their there here what which
who whom whose when whenever where while why how any all each every some such no not only also just very
more most less other another same own both either neither one two like e.g i.e etc eg ie
use used uses using user users skill skills agent agents claude model llm ai you your yours we our us i me my
ask asks asked asking request requests requested want wants wanted need needs needed help helps trigger
triggers triggered invoke activate mention mentions mentioned include includes including task tasks work
working thing things way something anything everything even e.g. make makes making get gets do doing
new existing file files create creates creating write writes writing provide provides support supports
guide guidance tool tools toolkit set instead rather whether already well"""
_STOP = frozenset(_STOP_WORDS.split())


@functools.lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    # Memoised: a registry's descriptions repeat a few thousand words tens of thousands of times.
    for suffix, replacement in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + replacement
    return word


def claim_text(description: str) -> str:
    """The sentences of ``description`` that say when to use the skill; the whole text when none does."""
    sentences = [s for s in _SENTENCE.split(description) if s.strip()]
    cued = [s for s in sentences if _TRIGGER_CUE.search(s)]
    return " ".join(cued) if cued else description


def claim_terms(description: str) -> frozenset[str]:
    """The content words of the description's trigger clauses, lower-cased and stemmed."""
    words = _WORD.findall(claim_text(description).lower())
    return frozenset(_stem(word) for word in words if word not in _STOP and len(word) > 2 and not word.isdigit())


@dataclass(frozen=True)
class Collision:
    first: int
    second: int
    """Indexes of the two skills in the sequence given to :func:`collisions`."""
    shared: tuple[str, ...]
    overlap: float


def overlap(first: frozenset[str], second: frozenset[str]) -> float:
    """Shared terms over the smaller set's size (0 when either is empty)."""
    smaller = min(len(first), len(second))
    return len(first & second) / smaller if smaller else 0.0


def collisions(descriptions: Sequence[str]) -> Iterable[Collision]:
    """Every pair of descriptions whose claims overlap past both thresholds, in order of the first, then the second."""
    terms = [claim_terms(text) for text in descriptions]
    frequency: Counter[str] = Counter(term for found in terms for term in found)
    common = {term for term, count in frequency.items() if count > max(3, VOCABULARY_SHARE * len(terms))}
    terms = [found - common for found in terms]
    # Only pairs with a term in common can collide: each skill is compared with the later skills its
    # terms' postings name, not with every later skill (a registry of 2,922 skills is 4.3 million pairs).
    postings: dict[str, list[int]] = defaultdict(list)
    for index, found in enumerate(terms):
        for term in found:
            postings[term].append(index)
    for i, first in enumerate(terms):
        if len(first) < MIN_SHARED_TERMS:
            continue
        in_common: Counter[int] = Counter()
        for term in first:
            posting = postings[term]
            in_common.update(posting[bisect.bisect_right(posting, i) :])
        for j in sorted(j for j, count in in_common.items() if count >= MIN_SHARED_TERMS):
            score = overlap(first, terms[j])
            if score >= MIN_OVERLAP:
                yield Collision(i, j, tuple(sorted(first & terms[j])), score)
