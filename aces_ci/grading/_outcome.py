"""Decide the outcome assertions (files the agent left, its final answer) by rule.

A path in an assertion names a workspace file exactly (``out/summary.json``) or by its trailing
components (``summary.json`` finds ``out/summary.json``); when several files fit, the assertion
holds if it holds for one of them ("the agent produced such a file"). Text comparisons are
:func:`aces_ci.evals.contains_phrase` (normalised, as the ``contains`` accuracy mode); regular
expressions are searched in the raw text. An assertion that cannot be decided (a regex that does
not compile) is ``passed=None``, never a failure: the metric then says it could not grade.
"""

from __future__ import annotations

import json
from typing import Any

from ..evals import contains_phrase
from ._assertions import AnswerAssertion, FileAssertion, OutcomeAssertion
from ._regex import search as regex_search
from ._types import Artifacts, Check, RolloutFacts

MAX_TEXT_CHARS = 2_000_000
"""Text searched per file or answer; the rest is ignored (a regex over gigabytes is a denial of service)."""
_MISSING = object()


def _files(artifacts: Artifacts, path: str) -> list[str]:
    if path in artifacts:
        return [path]
    return sorted(p for p in artifacts if p.endswith("/" + path))


def _text(data: bytes) -> str:
    return data[: MAX_TEXT_CHARS * 4].decode("utf-8", errors="replace")[:MAX_TEXT_CHARS]


def _field(document: Any, path: str) -> Any:
    """The value at a JSON pointer (``/a/0``) or dotted path (``a.0``), or ``_MISSING``."""
    if path.startswith("/"):
        parts = [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")] if path != "/" else [""]
    else:
        parts = path.split(".")
    value = document
    for part in parts:
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def _same(found: Any, expected: Any) -> bool:
    """JSON equality: ``12`` equals ``12.0``, but ``true`` never equals ``1``."""
    if isinstance(found, bool) or isinstance(expected, bool):
        return found is expected
    return bool(found == expected)


def _json_check(assertion: FileAssertion, data: bytes) -> tuple[bool | None, str]:
    try:
        document = json.loads(data)
    except ValueError:
        return False, "is not valid JSON"
    found = _field(document, assertion.expected or "")
    if found is _MISSING:
        return False, f"has no field {assertion.expected}"
    return _same(found, assertion.value), f"has {assertion.expected} = {json.dumps(found)[:80]}"


async def _file_check(assertion: FileAssertion, artifacts: Artifacts, complete: bool) -> Check:
    matches = _files(artifacts, assertion.path)
    cut = "the capture of the workspace was cut at its file limit, so an unlisted file may exist"
    if assertion.check == "absent":
        if matches:
            return Check(assertion.text, False, f"{matches[0]} exists")
        return Check(assertion.text, True, "no such file") if complete else Check(assertion.text, None, cut)
    if not matches:
        if not complete:
            return Check(assertion.text, None, cut)
        return Check(assertion.text, False, f"the agent left no file {assertion.path}")
    details: list[str] = []
    undecided = False
    for path in matches:
        data = artifacts[path]
        result: bool | None
        if assertion.check == "exists":
            result, detail = True, "is there" if data is None else f"{len(data):,} bytes"
        elif data is None:
            result, detail = None, "is there, but its content was not kept (too large, a link or a special file)"
        elif assertion.check in ("contains", "lacks"):
            found = contains_phrase(_text(data), assertion.expected or "")
            result = None if found is None else found == (assertion.check == "contains")
            detail = "the text is there" if found else "the text is not there"
        elif assertion.check == "matches":
            searched = await regex_search(assertion.expected or "", _text(data))
            result = searched.found
            detail = searched.why if result is None else ("matches" if result else "does not match")
        else:
            result, detail = _json_check(assertion, data)
        details.append(f"{path} {detail}")
        if result:
            return Check(assertion.text, True, details[-1])
        undecided = undecided or result is None
    return Check(assertion.text, None if undecided else False, "; ".join(details)[:300])


async def _answer_check(assertion: AnswerAssertion, final_answer: str | None) -> Check:
    if final_answer is None:
        return Check(assertion.text, assertion.check == "lacks", "no final answer")
    text = final_answer[:MAX_TEXT_CHARS]
    if assertion.check == "matches":
        searched = await regex_search(assertion.expected, text)
        detail = searched.why if searched.found is None else ("matches" if searched.found else "does not match")
        return Check(assertion.text, searched.found, detail)
    contained = contains_phrase(text, assertion.expected)
    if contained is None:
        return Check(assertion.text, None, "the quoted text folds to nothing")
    passed = contained == (assertion.check == "contains")
    return Check(assertion.text, passed, "the text is there" if contained else "the text is not there")


async def check_outcome(assertion: OutcomeAssertion, grading: RolloutFacts) -> Check:
    """The verdict on one outcome assertion; ``passed=None`` when the capture cannot tell or a regex timed out."""
    if isinstance(assertion, FileAssertion):
        return await _file_check(assertion, grading.artifacts, grading.artifacts_complete)
    return await _answer_check(assertion, grading.final_answer)
