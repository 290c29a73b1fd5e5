"""Turn a parsed dataset in any dialect into :class:`EvalCase` objects.

Dialects and their field names (the agentskills.io name is canonical):

=================  ==================  =================  ======================================
canonical          skill-creator       ACES legacy        notes
=================  ==================  =================  ======================================
prompt             prompt              question
expected_output    expected_output     ground_truth
assertions         expectations        expected_behavior  a single string becomes a one-item list
acceptable_skills  (none)              acceptable_alternates
=================  ==================  =================  ======================================

Integer ids become their decimal strings. A case that is not an object or has no usable prompt
is left out; the schema check already reports why, so nothing is dropped silently.

**Which cases are negative** (``should_trigger``), decided in this order:

1. an explicit boolean ``should_trigger`` wins;
2. else, if the case has an ``expected_skill`` key: ``null`` (or empty) marks a negative case, a
   name equal to this skill (its ``skill_name`` or directory name, case-insensitively) a positive
   one, and another skill's name a negative one *for this skill* (the prompt belongs elsewhere);
3. else, when the dataset names its skill (``skill_name``), the case is positive. This keeps
   SkillEvaluator's rule that a case without ``expected_skill`` inherits ``skill_name``, so a
   negative case must say so (``"should_trigger": false`` or ``"expected_skill": null``);
4. else the case is unlabelled (``None``), as in a flat list without a skill name.

A positive case without ``expected_skill`` expects this skill: ``skill_name``, or the directory name
when the dataset does not name its skill.

**How accuracy compares the answer** (``match``, an aces-ci extension every dialect may carry):
the case's ``match``, else the dataset's top-level ``match``, else ``contains``. ``tolerance``
(a number, or a percentage string such as ``"2%"``) applies to ``match: numeric`` only. The
reference is checked here, once, so a run never starts on a case it cannot grade: a ``regex``
reference must compile and a ``numeric`` one must hold a number (problem code ``match-invalid``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ..skill import ParseProblem
from ._document import Document, JsonPath, json_pointer
from ._fixtures import resolve_fixture
from ._model import DEFAULT_MATCH, MATCH_MODES, EvalCase, MatchMode, Tolerance
from ._numbers import numbers_in
from ._owned import GraderSpec, TaskCommand, grader_from, task_command_from

MAX_CASES = 5000
"""Cases read from one file; a dataset this large belongs in a benchmark, not beside a skill."""

_PROMPT_KEYS = ("prompt", "question")
_EXPECTED_KEYS = ("expected_output", "ground_truth")
_CHECK_KEYS = ("assertions", "expectations", "expected_behavior")
_ACCEPTABLE_KEYS = ("acceptable_skills", "acceptable_alternates")
MATCH_INVALID = "match-invalid"
DRAFT_KEY = "_fill_in"
"""Marks a case ``aces-ci init`` scaffolded: what the author still has to write. Trials refuse such cases."""
_ACES_KEYS = frozenset(
    {
        "question",
        "ground_truth",
        "expected_behavior",
        "expected_skill",
        "should_trigger",
        "acceptable_skills",
        "acceptable_alternates",
        "expected_script",
    }
)


@dataclass(frozen=True)
class CanonicalSet:
    """The dialect-free content of a dataset file."""

    dialect: str
    skill_name: str | None
    cases: tuple[EvalCase, ...]
    problems: tuple[ParseProblem, ...]
    skill_name_line: int | None
    cases_line: int | None
    tasks: TaskCommand | None = None
    grader: GraderSpec | None = None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _first_text(item: dict[str, Any], keys: Iterable[str]) -> str | None:
    for key in keys:
        if key in item:
            return _text(item[key])
    return None


def _checks(item: dict[str, Any]) -> tuple[str, ...]:
    for key in _CHECK_KEYS:
        if key in item:
            value = item[key]
            values = value if isinstance(value, list) else [value]
            return tuple(text for text in map(_text, values) if text is not None)
    return ()


def _acceptable(item: dict[str, Any]) -> tuple[str, ...]:
    for key in _ACCEPTABLE_KEYS:
        if key in item:
            value = item[key]
            entries = value if isinstance(value, list) else [value]
            names = (entry.get("name") if isinstance(entry, dict) else entry for entry in entries)
            return tuple(name for name in map(_text, names) if name is not None)
    return ()


def _draft(value: object) -> str | None:
    """The ``_fill_in`` note of a scaffolded case, whatever shape the author left it in; None when absent."""
    if isinstance(value, str):
        return value.strip() or None
    return str(value) if value else None


def _match_mode(value: object) -> MatchMode | None:
    return cast(MatchMode, value) if isinstance(value, str) and value in MATCH_MODES else None


def _tolerance(value: object) -> Tolerance | None:
    """``0.5`` → absolute, ``"2%"`` → relative; None when absent or unusable (the schema reports why)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float) and value >= 0:
        return Tolerance(absolute=float(value))
    if isinstance(value, str) and value.endswith("%"):
        try:
            percent = float(value[:-1])
        except ValueError:
            return None
        return Tolerance(relative=percent / 100) if percent >= 0 else None
    return None


def _case_id(raw: object, position: int) -> str:
    """The canonical id; a case without a usable one gets ``#<position>``, which no valid id can equal."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        return str(raw)
    if isinstance(raw, str) and raw:
        return raw
    return f"#{position}"


def _trigger(
    item: dict[str, Any], skill_name: str | None, own_names: frozenset[str], fallback_name: str
) -> tuple[bool | None, str | None]:
    """``(should_trigger, expected_skill)`` by the rules in the module docstring."""
    expected = _text(item.get("expected_skill"))
    explicit = item.get("should_trigger")
    label: bool | None
    if isinstance(explicit, bool):
        label = explicit
    elif "expected_skill" in item:
        label = expected is not None and expected.casefold() in own_names
    else:
        label = True if skill_name is not None else None
    if label is True and expected is None:
        expected = fallback_name
    return label, expected


def _dialect_and_items(data: object) -> tuple[str, list[Any], JsonPath]:
    """The dialect, the raw list of cases, and the path of that list."""
    if isinstance(data, list):
        return "legacy-list", data, ()
    if not isinstance(data, dict):
        return "unknown", [], ()
    key = "cases" if "cases" in data and "evals" not in data else "evals"
    items = data.get(key)
    items = items if isinstance(items, list) else []
    if key == "cases":
        return "aces", items, (key,)
    case_keys = {k for item in items if isinstance(item, dict) for k in item}
    if "expectations" in case_keys:
        return "skill-creator", items, (key,)
    return ("aces" if case_keys & _ACES_KEYS else "agentskills"), items, (key,)


class _CaseBuilder:
    """Builds the cases of one document, collecting fixture problems as it goes."""

    def __init__(
        self, document: Document, skill_dir: Path, dialect: str, skill_name: str | None, default_match: MatchMode
    ) -> None:
        self.document = document
        self.skill_dir = skill_dir
        self.skill_name = skill_name
        self.default_match = default_match
        self.own_names = frozenset(name.casefold() for name in (skill_name, skill_dir.name) if name)
        # SkillEvaluator writes files relative to evals/; the agentskills.io family relative to the skill.
        self.evals_relative_first = dialect in ("aces", "legacy-list")
        self.problems: list[ParseProblem] = []

    def build(self, item: dict[str, Any], path: JsonPath, position: int) -> EvalCase | None:
        prompt = _first_text(item, _PROMPT_KEYS)
        if prompt is None:
            return None
        case_id = _case_id(item.get("id"), position)
        should_trigger, expected_skill = _trigger(
            item, self.skill_name, self.own_names, self.skill_name or self.skill_dir.name
        )
        line = self.document.line_of((*path, "id") if "id" in item else path)
        expected_output = _first_text(item, _EXPECTED_KEYS)
        match = _match_mode(item.get("match")) or self.default_match
        tolerance = _tolerance(item.get("tolerance")) or Tolerance()
        self._check_match(item, path, case_id, match, expected_output)
        return EvalCase(
            id=case_id,
            prompt=prompt,
            expected_output=expected_output,
            assertions=_checks(item),
            files=self._files(item.get("files"), path, case_id),
            should_trigger=should_trigger,
            expected_skill=expected_skill,
            line=line,
            expected_script=_text(item.get("expected_script")),
            acceptable_skills=_acceptable(item),
            match=match,
            tolerance=tolerance,
            pointer=json_pointer(path),
            draft=_draft(item.get(DRAFT_KEY)),
        )

    def _check_match(
        self, item: dict[str, Any], path: JsonPath, case_id: str, match: MatchMode, expected: str | None
    ) -> None:
        """Report a reference the chosen mode cannot use, at the field to fix."""
        key = next((k for k in _EXPECTED_KEYS if k in item), _EXPECTED_KEYS[0])
        problem: str | None = None
        if "tolerance" in item and match != "numeric":
            key, problem = "tolerance", f"tolerance applies only to match: numeric, and this case uses {match}"
        elif expected is not None and match == "regex":
            try:
                re.compile(expected)
            except re.error as exc:
                problem = f"{key} is not a valid regular expression for match: regex ({exc})"
        elif expected is not None and match == "numeric" and not numbers_in(expected):
            problem = f"match: numeric needs a number in {key}"
        if problem is not None:
            where = (*path, key)
            self.problems.append(
                ParseProblem(
                    MATCH_INVALID,
                    f"case {case_id!r}: {problem}",
                    self.document.line_of(where),
                    pointer=json_pointer(where),
                )
            )

    def _files(self, entries: object, path: JsonPath, case_id: str) -> tuple[str, ...]:
        if not isinstance(entries, list):
            return ()
        resolved: list[str] = []
        for index, entry in enumerate(entries):
            if not isinstance(entry, str) or not entry:
                continue
            fixture = resolve_fixture(self.skill_dir, entry, self.evals_relative_first)
            if fixture.problem is not None and fixture.code is not None:
                where = (*path, "files", index)
                message = f"case {case_id!r}: {fixture.problem}"
                self.problems.append(
                    ParseProblem(fixture.code, message, self.document.line_of(where), pointer=json_pointer(where))
                )
            if fixture.rel not in resolved:
                resolved.append(fixture.rel)
        return tuple(resolved)


def canonicalise(document: Document, skill_dir: Path, source: str = "") -> CanonicalSet:
    """The cases of a parsed dataset, whatever its dialect. Never raises on odd shapes.

    ``source`` names the file in the specs of its ``tasks`` and ``grader``, for their error messages.
    """
    data = document.data
    dialect, items, list_path = _dialect_and_items(data)
    skill_name = _text(data.get("skill_name")) if isinstance(data, dict) else None
    default_match = (_match_mode(data.get("match")) if isinstance(data, dict) else None) or DEFAULT_MATCH
    builder = _CaseBuilder(document, skill_dir, dialect, skill_name, default_match)
    cases: list[EvalCase] = []
    for position, item in enumerate(items[:MAX_CASES], start=1):
        if isinstance(item, dict):
            case = builder.build(item, (*list_path, position - 1), position)
            if case is not None:
                cases.append(case)
    cases_line = document.line_of(list_path)
    if len(items) > MAX_CASES:
        message = f"{len(items):,} cases; only the first {MAX_CASES:,} are read"
        builder.problems.append(ParseProblem("too-many-cases", message, cases_line))
    skill_name_line = document.lines.get(("skill_name",)) if skill_name is not None else None
    top = data if isinstance(data, dict) else {}
    return CanonicalSet(
        dialect,
        skill_name,
        tuple(cases),
        tuple(builder.problems),
        skill_name_line,
        cases_line,
        tasks=task_command_from(top.get("tasks"), source),
        grader=grader_from(top.get("grader"), skill_dir, source),
    )
