"""EVAL.md: the author's own cases and checks, written as Markdown, that outrank the seeded dataset.

A dataset is often seeded (by ``aces-ci init``, a generator, or copied from another skill) while
the author knows which questions matter. ``evals/EVAL.md`` states that intent in prose-friendly
form. It lives in ``evals/`` because everything outside ``evals/`` is staged with the skill: an
EVAL.md at the skill root would hand the expected answers to the agent (the loader refuses it).

Format::

    # Evaluation intent for csv-insights        (any title; prose outside cases is for people)

    ## Behaviors                                (optional: checked on every positive case)
    - reads SKILL.md before running scripts/summarize_csv.py

    ## Case count-orders                        ("Case" and the id: letters, digits, '.', '_', '-')
    Prompt: How many orders are in evals/files/orders.csv?
    Expected: 12
    Match: numeric
    Files: evals/files/orders.csv
    Assertions:
    - runs scripts/summarize_csv.py
    - file summary.json exists

    ## Case unrelated
    Prompt: What is the capital of France?
    Expected: Paris
    Should trigger: no

Rules:

* A case is an H2 heading ``## Case <id>`` (``## Case: <id>`` also works). It ends at the next H1
  or H2 heading. Other H2 sections (``## Notes``, ``## Questions``…) are prose and not read, except
  ``## Behaviors`` (or ``Behaviours``), whose list items are added to the assertions of every case
  of the dataset that should trigger the skill.
* A field is a line ``Name: value`` at the start of a line; names are case-insensitive:
  ``Prompt`` (required), ``Expected`` (or ``Expected output``), ``Match``, ``Tolerance``,
  ``Assertions`` (or ``Expectations``, ``Behaviors``), ``Files``, ``Should trigger`` (yes/no),
  ``Expected skill`` (a name, or ``none`` for a negative case), ``Expected script``,
  ``Acceptable skills``. The meanings are those of the evals.json fields of the same names.
* A value runs from its field line to the next field or heading, so a prompt may span several
  lines; inside a fenced code block nothing is read as a field, and HTML comments are dropped
  (keep notes to people there, or under ``## Notes``). ``Assertions``, ``Files`` and
  ``Acceptable skills`` take list items (``- …``); text on their field line is one more item
  (``Files`` and ``Acceptable skills`` split it at commas).
* A line that looks like a misspelt field (``Expcted: 12``) is an error, not prompt text; so are an
  unknown ``Match``, a ``Should trigger`` that is not yes/no, a repeated field, a case without a
  prompt and two cases with one id. Every error names its line.

How EVAL.md outranks the dataset is :func:`aces_ci.evals.load_dataset`'s to apply (see there).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

from ..skill import ParseProblem, strip_html_comments
from ._document import JsonPath
from ._model import MATCH_MODES

EVAL_MD = "EVAL.md"
EVAL_MD_PROBLEM = "eval-md"

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_CASE = re.compile(r"^case\b:?[ \t]*(?P<id>.*)$", re.IGNORECASE)
_ID = re.compile(r"^[A-Za-z0-9._-]{1,128}$")
_FENCE = re.compile(r"^[ ]{0,3}(?P<fence>`{3,}|~{3,})")
_FIELD_LINE = re.compile(r"^(?P<name>[A-Za-z][A-Za-z _]{0,40}?)[ \t]*:(?:[ \t]+(?P<value>.*)|[ \t]*)$")
_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+(?P<text>.*)$")
_BEHAVIOR_SECTIONS = frozenset({"behaviors", "behaviours", "expected behaviors", "expected behaviours"})
_NEAR_MISS_RATIO = 0.8

FIELDS: dict[str, str] = {
    "prompt": "prompt",
    "question": "prompt",
    "expected": "expected_output",
    "expected output": "expected_output",
    "ground truth": "expected_output",
    "match": "match",
    "tolerance": "tolerance",
    "assertions": "assertions",
    "expectations": "assertions",
    "behaviors": "assertions",
    "behaviours": "assertions",
    "expected behavior": "assertions",
    "expected behaviors": "assertions",
    "files": "files",
    "fixtures": "files",
    "should trigger": "should_trigger",
    "expected skill": "expected_skill",
    "expected script": "expected_script",
    "acceptable skills": "acceptable_skills",
}
"""Field names an author may write (folded: lower case, ``_`` as space) → the evals.json key."""
_LIST_FIELDS = frozenset({"assertions", "files", "acceptable_skills"})
_COMMA_LISTS = frozenset({"files", "acceptable_skills"})
_YES = frozenset({"yes", "true", "y"})
_NO = frozenset({"no", "false", "n"})
_NO_SKILL = frozenset({"none", "null", "-", "no skill"})


def _fold(name: str) -> str:
    return " ".join(name.replace("_", " ").casefold().split())


@dataclass
class _Field:
    key: str
    line: int
    lines: list[str]


@dataclass
class _Case:
    id: str
    line: int
    fields: dict[str, _Field] = field(default_factory=dict)


@dataclass(frozen=True)
class EvalMd:
    """EVAL.md read into evals.json-shaped cases (for the one canonicaliser) and the global behaviours."""

    items: tuple[dict[str, Any], ...]
    """One dict per case, with evals.json keys."""
    lines: dict[JsonPath, int]
    """Line of each case (``(i,)``) and field (``(i, key)``)."""
    behaviors: tuple[str, ...] = ()
    problems: tuple[ParseProblem, ...] = ()


class _Parser:
    def __init__(self) -> None:
        self.cases: list[_Case] = []
        self.behaviors: list[tuple[int, str]] = []
        self.problems: list[ParseProblem] = []
        self.section: str = "prose"  # "case", "behaviors" or "prose"
        self.current: _Field | None = None
        self.fence: str | None = None

    def error(self, line: int, message: str) -> None:
        self.problems.append(ParseProblem(EVAL_MD_PROBLEM, message, line))

    def feed(self, number: int, raw: str) -> None:
        if self.fence is not None:
            self._text(number, raw)
            if raw.strip().startswith(self.fence):
                self.fence = None
            return
        fence = _FENCE.match(raw)
        if fence is not None:
            self.fence = fence["fence"]
            self._text(number, raw)
            return
        heading = _HEADING.match(raw)
        if heading is not None and len(heading[1]) <= 2:
            self._heading(number, len(heading[1]), heading[2])
            return
        if self.section == "case":
            self._case_line(number, raw)
        elif self.section == "behaviors":
            self._behavior_line(number, raw)

    def _heading(self, number: int, level: int, title: str) -> None:
        self.current = None
        self.section = "prose"
        if level != 2:
            return
        case = _CASE.match(title)
        if case is not None:
            case_id = case["id"].strip()
            if not _ID.match(case_id):
                shown = f"{case_id!r}" if case_id else "nothing"
                self.error(
                    number, f"a case heading needs an id of 1-128 letters, digits, '.', '_' or '-', found {shown}"
                )
                return
            if any(existing.id == case_id for existing in self.cases):
                first = next(c.line for c in self.cases if c.id == case_id)
                self.error(number, f"case id {case_id!r} is used again (first at line {first})")
                return
            self.cases.append(_Case(case_id, number))
            self.section = "case"
        elif _fold(title) in _BEHAVIOR_SECTIONS:
            self.section = "behaviors"

    def _case_line(self, number: int, raw: str) -> None:
        match = _FIELD_LINE.match(raw)
        key = FIELDS.get(_fold(match["name"])) if match else None
        if match is not None and key is not None:
            case = self.cases[-1]
            if key in case.fields:
                self.error(
                    number,
                    f"case {case.id!r}: {match['name'].strip()} is given twice (first at line {case.fields[key].line})",
                )
                self.current = None
                return
            self.current = _Field(key, number, [match["value"] or ""])
            case.fields[key] = self.current
            return
        if match is not None and " " not in match["name"].strip():
            near = difflib.get_close_matches(_fold(match["name"]), list(FIELDS), n=1, cutoff=_NEAR_MISS_RATIO)
            if near:
                self.error(number, f"unknown field {match['name'].strip()!r}: did you mean {near[0].capitalize()!r}?")
                return
        self._text(number, raw)

    def _text(self, number: int, raw: str) -> None:
        if self.section == "case" and self.current is not None:
            self.current.lines.append(raw)
        elif self.section == "behaviors":
            self._behavior_line(number, raw)

    def _behavior_line(self, number: int, raw: str) -> None:
        item = _ITEM.match(raw)
        if item is not None:
            self.behaviors.append((number, item["text"].strip()))
        elif raw.strip() and self.behaviors and raw[:1] in (" ", "\t"):
            line, text = self.behaviors[-1]
            self.behaviors[-1] = (line, f"{text} {raw.strip()}")


def _scalar(lines: list[str]) -> str:
    text = strip_html_comments("\n".join(lines))
    return "\n".join(line.rstrip() for line in text.split("\n")).strip("\n").strip()


def _items(key: str, value: _Field, problems: list[ParseProblem], case_id: str) -> list[str]:
    first, *rest = value.lines
    items: list[str] = []
    inline = strip_html_comments(first).strip()
    if inline and key in _COMMA_LISTS:
        items.extend(part.strip() for part in inline.split(","))
    elif inline:
        items.append(inline)
    for offset, raw in enumerate(rest, start=1):
        clean = strip_html_comments(raw)
        item = _ITEM.match(clean)
        if item is not None:
            items.append(item["text"].strip())
        elif clean.strip() and items and clean[:1] in (" ", "\t"):
            items[-1] = f"{items[-1]} {clean.strip()}"
        elif clean.strip():
            message = f"case {case_id!r}: expected a list item ('- …') under {key.replace('_', ' ')}"
            problems.append(ParseProblem(EVAL_MD_PROBLEM, message, value.line + offset))
    return [item for item in items if item]


def _typed(key: str, value: _Field, problems: list[ParseProblem], case_id: str) -> object:
    """The evals.json value of one field; an unusable value is reported and left out (returns None)."""
    if key in _LIST_FIELDS:
        return _items(key, value, problems, case_id)
    text = _scalar(value.lines)

    def bad(message: str) -> None:
        problems.append(ParseProblem(EVAL_MD_PROBLEM, f"case {case_id!r}: {message}", value.line))

    if key == "should_trigger":
        folded = text.casefold()
        if folded in _YES or folded in _NO:
            return folded in _YES
        bad(f"Should trigger must be yes or no, found {text[:40]!r}")
        return None
    if key == "expected_skill":
        return None if text.casefold() in _NO_SKILL else text
    if key == "match":
        if text.casefold() in MATCH_MODES:
            return text.casefold()
        bad(f"Match must be one of {', '.join(MATCH_MODES)}, found {text[:40]!r}")
        return None
    if key == "tolerance":
        try:
            number = float(text.removesuffix("%"))
        except ValueError:
            number = -1.0
        if number < 0:
            bad(f"Tolerance must be a number (0.5) or a percentage (2%), found {text[:40]!r}")
            return None
        return text if text.endswith("%") else number
    return text


def parse_eval_md(text: str) -> EvalMd:
    """Read EVAL.md (the format in the module docstring). Never raises; problems carry their line."""
    parser = _Parser()
    for number, raw in enumerate(text.split("\n"), start=1):
        parser.feed(number, raw.rstrip("\r"))
    problems = parser.problems
    items: list[dict[str, Any]] = []
    lines: dict[JsonPath, int] = {}
    for case in parser.cases:
        item: dict[str, Any] = {"id": case.id}
        index = len(items)
        case_lines: dict[JsonPath, int] = {("evals", index): case.line, ("evals", index, "id"): case.line}
        for key, value in case.fields.items():
            typed = _typed(key, value, problems, case.id)
            if typed is None and key != "expected_skill":
                continue
            item[key] = typed
            case_lines[("evals", index, key)] = value.line
        if not item.get("prompt"):
            problems.append(ParseProblem(EVAL_MD_PROBLEM, f"case {case.id!r} has no Prompt", case.line))
            continue
        items.append(item)
        lines.update(case_lines)
    behaviors = tuple(dict.fromkeys(text for _, text in parser.behaviors if text))
    return EvalMd(tuple(items), lines, behaviors, tuple(sorted(problems, key=lambda p: p.line or 0)))
