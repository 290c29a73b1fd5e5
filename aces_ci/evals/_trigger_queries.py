"""``evals/eval_queries.json``: the agentskills.io trigger-eval dataset, read and validated.

The agentskills.io guide "Optimizing skill descriptions" keeps trigger evals apart from task evals:
a JSON array of queries, each saying whether the skill should load for it::

    [
      { "query": "I've got a spreadsheet in ~/data/q4_results.xlsx ... highlight anything under 10%?",
        "should_trigger": true },
      { "query": "whats the quickest way to convert this json file to yaml", "should_trigger": false }
    ]

It lives beside ``evals/evals.json``. Reading it is lenient like :func:`~aces_ci.evals.load_evals`:
every problem becomes a :class:`~aces_ci.skill.ParseProblem` with its line and JSON pointer (an
unknown key with the known key it resembles), and the queries that are well formed are kept. The
scan reports each problem (rule DISC004).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from ..skill import ParseProblem, is_within, read_text
from ._document import Document, JsonPath, json_pointer, json_type
from ._fixtures import EVALS_DIR
from ._json_source import parse_json

TRIGGER_QUERIES = "eval_queries.json"
_KEYS = ("query", "should_trigger")


@dataclass(frozen=True)
class TriggerQuery:
    query: str
    should_trigger: bool
    line: int | None
    pointer: str
    """JSON pointer of the query's object, e.g. ``/3``."""


@dataclass(frozen=True)
class TriggerSet:
    rel: str
    """Repository-relative path of the file."""
    queries: tuple[TriggerQuery, ...]
    problems: tuple[ParseProblem, ...] = ()


def _problem(document: Document, path: JsonPath, message: str) -> ParseProblem:
    pointer = json_pointer(path) or "/"
    return ParseProblem("trigger-queries", f"{pointer}: {message}", document.line_of(path))


def _check_query(document: Document, index: int, item: object) -> tuple[TriggerQuery | None, list[ParseProblem]]:
    path: JsonPath = (index,)
    if not isinstance(item, dict):
        message = f"a query is an object with query and should_trigger, not {json_type(item)}"
        return None, [_problem(document, path, message)]
    problems = []
    for key in item:
        if key not in _KEYS:
            close = difflib.get_close_matches(key, _KEYS, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else f"; a query has only {' and '.join(_KEYS)}"
            problems.append(_problem(document, (index, key), f"unknown key {key[:40]!r}{hint}"))
    query, should = item.get("query"), item.get("should_trigger")
    if not isinstance(query, str) or not query.strip():
        got = "missing" if "query" not in item else f"a {json_type(query)}" if not isinstance(query, str) else "empty"
        where = (index, "query") if "query" in item else path
        problems.append(_problem(document, where, f"query must be a non-empty string, got {got}"))
    if not isinstance(should, bool):
        got = "missing" if "should_trigger" not in item else f"a {json_type(should)}"
        where = (index, "should_trigger") if "should_trigger" in item else path
        problems.append(_problem(document, where, f"should_trigger must be true or false, got {got}"))
    if problems:
        return None, problems
    assert isinstance(query, str) and isinstance(should, bool)
    return TriggerQuery(query, should, document.line_of(path), json_pointer(path)), []


def parse_trigger_queries(text: str, rel: str) -> TriggerSet:
    """The queries of an eval_queries.json text; every problem with its line and pointer."""
    document = parse_json(text)
    problems = list(document.problems)
    if not document.parsed:
        return TriggerSet(rel, (), tuple(problems))
    if not isinstance(document.data, list):
        message = f"the file must be a JSON array of queries, not {json_type(document.data)}"
        problems.append(_problem(document, (), message))
        return TriggerSet(rel, (), tuple(problems))
    if not document.data:
        problems.append(_problem(document, (), "the array holds no query"))
    queries = []
    for index, item in enumerate(document.data):
        query, found = _check_query(document, index, item)
        problems.extend(found)
        if query is not None:
            queries.append(query)
    return TriggerSet(rel, tuple(queries), tuple(problems))


def load_trigger_queries(skill_dir: Path, repo_root: Path) -> TriggerSet | None:
    """The skill's ``evals/eval_queries.json``, or None when it has none; never raises on its content."""
    path = skill_dir.resolve() / EVALS_DIR / TRIGGER_QUERIES
    if not path.exists() and not path.is_symlink():
        return None
    try:
        rel = path.relative_to(repo_root.resolve()).as_posix()
    except ValueError:
        rel = path.as_posix()
    if not is_within(path, skill_dir):
        return TriggerSet(rel, (), (ParseProblem("trigger-queries", "a link leading outside the skill: not read", 1),))
    text_file = read_text(path, rel)
    if text_file.text is None or text_file.truncated:
        reason = "; ".join(p.message for p in text_file.problems) or "unreadable"
        return TriggerSet(rel, (), (ParseProblem("trigger-queries", f"not read: {reason}", 1),))
    return parse_trigger_queries(text_file.text, rel)
