"""A small language for the assertions a rule can check; every other assertion goes to a judge.

Datasets write checks as free sentences (``assertions``, ``expectations``, ``expected_behavior``).
Many are mechanical, and a rule decides them exactly, for free, the same way every run. This
module recognises those and leaves the rest as :class:`FreeText` for a judge. Matching is
case-insensitive; a leading "the agent" and a trailing full stop are ignored; a *path* is a word
with a ``/`` or a file extension (``summary.json``, ``scripts/fill.py``), optionally in backticks;
*text* is quoted with ``"…"``, ``'…'`` or backticks; a *regex* is written ``/…/``.

**Outcome assertions** (graded by goal accuracy, over the files the agent left and its answer):

===============================================  ===================================================
``file PATH exists`` / ``creates PATH``          the agent left that file in its workspace
``file PATH does not exist``                     it did not
``file PATH contains "TEXT"``                    normalised containment, as accuracy's ``contains``
``file PATH does not contain "TEXT"``
``file PATH matches /REGEX/``                    Python regular expression, searched
``json PATH field F equals VALUE``               ``F`` a JSON pointer (``/rows/0``) or dotted path
                                                 (``rows.0``); ``VALUE`` JSON (``12``, ``"x"``,
                                                 ``true``), else a string
``answer contains "TEXT"`` / ``does not …``      the final answer
``answer matches /REGEX/``
===============================================  ===================================================

**Process assertions** (graded by behaviour check, over the trajectory's tool calls and skill
events), optionally negated with ``does not`` / ``never``:

=================================================  ================================================
``loads the skill`` / ``uses the skill`` /         the skill under test was loaded (Skill tool,
``reads SKILL.md``                                 a read of its SKILL.md, or preloaded)
``runs PATH`` / ``runs PATH on FILE``              a shell call names the script (and the file)
``runs the script``                                the case's ``expected_script``, else any script
                                                   of the skill under test
``pipes FILE into PATH``                           a shell call names both
``reads PATH``                                     a read call names it; a shell command
                                                   naming it counts as reading it
``does not write PATH``                            no write call or shell redirect targets it
                                                   (``writes PATH`` is the outcome "PATH exists")
``A before B``, B as ``running …``, ``reading …``,  A happens, and before B when B happens at all
``loading the skill``, ``writing …``, ``answering``  (a script that never ran violates no order)
``A first``                                        A happens before any other call except listing
                                                   the workspace (``ls``, ``list_files``, ``pwd``)
=================================================  ================================================

Anything else, e.g. "Reports 12 rows" or "Does not run the CSV profiler", is free text, judged.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any, Literal

AtomKind = Literal["load", "run", "read", "write", "answer"]
FileCheck = Literal["exists", "absent", "contains", "lacks", "matches", "json"]
AnswerCheck = Literal["contains", "lacks", "matches"]


@dataclass(frozen=True)
class Atom:
    """One thing the agent may do."""

    kind: AtomKind
    path: str | None = None
    """The script, or the file read or written; None for the skill itself, "the script", or the answer."""
    with_file: str | None = None
    """``runs PATH on FILE`` / ``pipes FILE into PATH``: the command must also name this file."""

    @property
    def describes(self) -> str:
        if self.kind == "load":
            return "loading the skill"
        if self.kind == "answer":
            return "answering"
        target = self.path or "the skill's script"
        return f"{self.kind} {target}" + (f" with {self.with_file}" if self.with_file else "")


@dataclass(frozen=True)
class ProcessAssertion:
    text: str
    atom: Atom
    negated: bool = False
    before: Atom | None = None
    """``atom before <this>``."""
    first: bool = False


@dataclass(frozen=True)
class FileAssertion:
    text: str
    check: FileCheck
    path: str
    expected: str | None = None
    """The text, the regex, or (``json``) the field path."""
    value: Any = None
    """For ``json``: the expected value."""


@dataclass(frozen=True)
class AnswerAssertion:
    text: str
    check: AnswerCheck
    expected: str


@dataclass(frozen=True)
class FreeText:
    text: str


Assertion = ProcessAssertion | FileAssertion | AnswerAssertion | FreeText
OutcomeAssertion = FileAssertion | AnswerAssertion

_P = r"`?(?P<{0}>(?:\./)*(?:[\w.~-]*[\w-]/[\w./~-]*[\w-]|[\w~-][\w.~-]*\.[A-Za-z0-9]{{1,8}}))`?"
_Q = r"(?:\"(?P<{0}1>[^\"]+)\"|'(?P<{0}2>[^']+)'|`(?P<{0}3>[^`]+)`|“(?P<{0}4>[^”]+)”)"
_NOT = r"(?:does not|doesn't|do not|don't|must not|should not|never)"
_THE_FILE = r"(?:the )?(?:file |output file )?"


def _p(name: str) -> str:
    return _P.format(name)


def _q(name: str) -> str:
    return _Q.format(name)


def _full(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"^{pattern}$", re.IGNORECASE)


_FILE_PATTERNS: tuple[tuple[re.Pattern[str], FileCheck], ...] = (
    (_full(rf"{_THE_FILE}{_p('path')} (?:exists|is (?:written|created))"), "exists"),
    (_full(rf"(?:creates|writes|produces) {_THE_FILE}{_p('path')}"), "exists"),
    (_full(rf"{_THE_FILE}{_p('path')} {_NOT} exists?|no file {_p('path2')}"), "absent"),
    (_full(rf"{_THE_FILE}{_p('path')} {_NOT} (?:contains?|includes?|mentions?) {_q('q')}"), "lacks"),
    (_full(rf"{_THE_FILE}{_p('path')} (?:contains|includes|mentions) {_q('q')}"), "contains"),
    (_full(rf"{_THE_FILE}{_p('path')} matches /(?P<re>.+)/"), "matches"),
)
_JSON_FIELD = _full(
    rf"(?:the )?(?:json )?(?:file )?{_p('path')} (?:has )?field (?P<field>\S+) (?:equals|==|=|is) (?P<v>.+)"
)
_ANSWER = r"(?:the )?(?:final )?(?:answer|response|reply)"
_ANSWER_PATTERNS: tuple[tuple[re.Pattern[str], AnswerCheck], ...] = (
    (_full(rf"{_ANSWER} {_NOT} (?:contains?|includes?|mentions?) {_q('q')}"), "lacks"),
    (_full(rf"{_ANSWER} (?:contains|includes|mentions) {_q('q')}"), "contains"),
    (_full(rf"{_ANSWER} matches /(?P<re>.+)/"), "matches"),
)

# Process atoms: a verb (third person or base form after "does not"), or its gerund after "before".
_LOAD_OBJECT = r"(?:the skill|(?:the )?`?SKILL\.md`?|the skill's instructions)"
_ATOM_FORMS = {
    "present": {
        "load": rf"(?:loads?|uses?|activates?|reads?|opens?) {_LOAD_OBJECT}",
        "pipe": rf"pipes? {_p('file')} (?:into|to|through) {_p('path')}",
        "run": rf"(?:runs?|executes?|calls?|invokes?) (?:{_p('path')}|(?P<script>the (?:skill's )?script))"
        rf"(?: (?:on|with|against) {_p('file')})?",
        "read": rf"(?:reads?|opens?|inspects?) {_p('path')}",
        "write": rf"(?:writes?|creates?|saves?) {_p('path')}",  # only negated: "writes X" is the outcome "X exists"
    },
    "gerund": {
        "load": rf"(?:loading|using|activating|reading|opening) {_LOAD_OBJECT}",
        "pipe": rf"piping {_p('file')} (?:into|to|through) {_p('path')}",
        "run": rf"(?:running|executing|calling|invoking) "
        rf"(?:{_p('path')}|(?P<script>the (?:skill's )?script|any script))(?: (?:on|with|against) {_p('file')})?",
        "read": rf"(?:reading|opening|inspecting) {_p('path')}",
        "write": rf"(?:writing|creating|saving) {_p('path')}",
        "answer": r"(?:answering|replying|responding|giving (?:the|a) (?:final )?answer)",
    },
}


def _compile_atoms(form: str) -> list[tuple[str, re.Pattern[str]]]:
    return [(kind, _full(pattern)) for kind, pattern in _ATOM_FORMS[form].items()]


_PRESENT = _compile_atoms("present")
_GERUND = _compile_atoms("gerund")
_NEGATED = re.compile(rf"^{_NOT} (?P<rest>.+)$", re.IGNORECASE)
_BEFORE = re.compile(r"^(?P<a>.+?) before (?P<b>.+)$", re.IGNORECASE)
_FIRST = re.compile(r"^(?P<a>.+?),? (?:first|before anything else|before doing anything else)$", re.IGNORECASE)
_LEADING = re.compile(r"^(?:the agent|agent|it)\s+", re.IGNORECASE)


def _quoted(match: re.Match[str], name: str) -> str:
    return next(match[f"{name}{i}"] for i in range(1, 5) if match[f"{name}{i}"] is not None)


def clean_path(path: str) -> str:
    """A path as written in an assertion, made comparable with workspace paths (``./a`` → ``a``)."""
    path = path.strip("`")
    while path.startswith("./"):
        path = path[2:]
    return path


def _atom(text: str, forms: list[tuple[str, re.Pattern[str]]]) -> Atom | None:
    for kind, pattern in forms:
        match = pattern.match(text)
        if match is None:
            continue
        groups = match.groupdict()
        path = clean_path(groups["path"]) if groups.get("path") else None
        file = clean_path(groups["file"]) if groups.get("file") else None
        if kind == "pipe":
            return Atom("run", path, file)
        if kind == "run":
            return Atom("run", None if groups.get("script") else path, file)
        if kind == "load" or (kind == "read" and path is not None and path.rsplit("/", 1)[-1] == "SKILL.md"):
            return Atom("load")
        if kind == "answer":
            return Atom("answer")
        return Atom("read" if kind == "read" else "write", path)
    return None


def _json_value(raw: str) -> Any:
    raw = raw.strip()
    try:
        return json.loads(raw)
    except ValueError:
        return raw.strip("`'\"")


def _outcome(text: str) -> OutcomeAssertion | None:
    for pattern, check in _FILE_PATTERNS:
        match = pattern.match(text)
        if match is not None:
            groups = match.groupdict()
            path = clean_path(groups.get("path") or groups.get("path2") or "")
            expected = _quoted(match, "q") if check in ("contains", "lacks") else groups.get("re")
            return FileAssertion(text, check, path, expected)
    match = _JSON_FIELD.match(text)
    if match is not None:
        return FileAssertion(text, "json", clean_path(match["path"]), match["field"], _json_value(match["v"]))
    for pattern, answer_check in _ANSWER_PATTERNS:
        match = pattern.match(text)
        if match is not None:
            expected = match["re"] if answer_check == "matches" else _quoted(match, "q")
            return AnswerAssertion(text, answer_check, expected)
    return None


def _process(original: str, text: str) -> ProcessAssertion | None:
    negated = _NEGATED.match(text)
    if negated is not None:
        atom = _atom(negated["rest"], _PRESENT)
        return ProcessAssertion(original, atom, negated=True) if atom else None
    first = _FIRST.match(text)
    if first is not None and (atom := _atom(first["a"], _PRESENT)) is not None:
        return ProcessAssertion(original, atom, first=True)
    before = _BEFORE.match(text)
    if before is not None:
        earlier, later = _atom(before["a"], _PRESENT), _atom(before["b"], _GERUND)
        if earlier is not None and later is not None:
            return ProcessAssertion(original, earlier, before=later)
    atom = _atom(text, _PRESENT)
    return ProcessAssertion(original, atom) if atom else None


def classify(text: str) -> Assertion:
    """What kind of assertion ``text`` is, by the grammar of the module docstring."""
    core = _LEADING.sub("", " ".join(text.split())).rstrip(".").strip()
    outcome = _outcome(core)
    if outcome is not None:
        return replace(outcome, text=text)
    process = _process(text, core)
    return process if process is not None else FreeText(text)
