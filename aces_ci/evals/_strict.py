"""Unknown keys in a dataset are errors: a typo must not silently drop what the author wrote.

JSON Schema alone lets any extra key through, and the dataset schema has to: a case may be
written in three dialects. So the keys are checked here, against the union of the dialects' own
keys — agentskills.io and skill-creator (``prompt``, ``expected_output``, ``assertions`` /
``expectations``, ``files``), ACES / SkillEvaluator (``question``, ``ground_truth``,
``expected_behavior``, ``expected_skill``, ``acceptable_alternates``…), aces-ci's additions
(``match``, ``tolerance``, ``tasks``, ``grader``) and the ``_fill_in`` mark of ``aces-ci init``.
``expected_outptu`` was accepted and its case silently scored against nothing; now it is a
problem naming its line, its JSON pointer and the key it most likely meant. An author's own
metadata goes under a key starting with ``x-`` (as in OpenAPI), which no dialect will ever define.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from functools import cache

from ..redact import safe_prefix
from ..schemas import load_schema
from ..skill import ParseProblem
from ._canonical import DRAFT_KEY
from ._document import Document, JsonPath, format_path, json_pointer

UNKNOWN_KEY = "unknown-key"

TOP_LEVEL_KEYS = frozenset({"$schema", "skill_name", "evals", "cases", "match", "tasks", "grader", "_about"})
"""Keys of a dataset object: the dialects' wrappers, aces-ci's BYOT/BYOG and default match, and the
``_about`` note ``aces-ci init`` writes."""
AUTHOR_PREFIX = "x-"
"""Keys starting with this are the author's own (metadata, YAML anchors) and never checked."""
MAX_UNKNOWN_REPORTS = 20
_MAX_KEY_SHOWN = 40


@cache
def case_keys() -> frozenset[str]:
    """Keys of one case, in every dialect aces-ci reads: the schema's case properties (one list to keep, not two)
    and the draft marker ``aces-ci init`` writes. Read when a dataset is checked, not at import."""
    return frozenset(load_schema("evals")["$defs"]["case"]["properties"]) | {DRAFT_KEY}


def _suggest(key: str, known: frozenset[str]) -> str:
    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.7)
    if close:
        return f"; did you mean '{close[0]}'?"
    return f"; known keys: {', '.join(sorted(known))} (keep your own metadata under a key starting with x-)"


def _unknown(document: Document) -> Iterator[ParseProblem]:
    data = document.data
    cases: list[tuple[JsonPath, object]] = []
    if isinstance(data, dict):
        for key in data:
            if key not in TOP_LEVEL_KEYS and not str(key).startswith(AUTHOR_PREFIX):
                yield _problem(document, (key,), key, TOP_LEVEL_KEYS, "dataset")
        for wrapper in ("evals", "cases"):
            items = data.get(wrapper)
            if isinstance(items, list):
                cases.extend(((wrapper, i), item) for i, item in enumerate(items))
    elif isinstance(data, list):
        cases.extend(((i,), item) for i, item in enumerate(data))
    for path, case in cases:
        if isinstance(case, dict):
            for key in case:
                if key not in case_keys() and not str(key).startswith(AUTHOR_PREFIX):
                    yield _problem(document, (*path, key), key, case_keys(), "case")


def _problem(document: Document, path: JsonPath, key: object, known: frozenset[str], where: str) -> ParseProblem:
    text = str(key)
    shown = text if len(text) <= _MAX_KEY_SHOWN else safe_prefix(text, _MAX_KEY_SHOWN) + "…"
    message = f"{format_path(path)}: unknown {where} key {shown!r}{_suggest(text, known)}"
    return ParseProblem(UNKNOWN_KEY, message, document.line_of(path), pointer=json_pointer(path))


def unknown_key_problems(document: Document) -> list[ParseProblem]:
    """Every key no dialect defines, in file order, each with its line, JSON pointer and a suggestion."""
    found = sorted(_unknown(document), key=lambda p: p.line or 0)
    if len(found) > MAX_UNKNOWN_REPORTS:
        more = len(found) - MAX_UNKNOWN_REPORTS
        found = [
            *found[:MAX_UNKNOWN_REPORTS],
            ParseProblem(UNKNOWN_KEY, f"{more} more unknown key(s) not listed", found[MAX_UNKNOWN_REPORTS].line),
        ]
    return found
