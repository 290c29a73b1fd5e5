"""When did the agent load the skill, run a script, read or write a file: positions in one rollout.

Skill execution and the behaviour checks both ask "did X happen, and before Y?". The answers come
from two records that must agree: the skill events the harness adapter detected (robust path
resolution: ``cd``, ``~``, relative paths, ``bash -c``) and the tool calls themselves (commands and
paths as written). A position is the index of the tool call, so order is the order the agent
acted in; a preloaded skill sits before everything, and the final answer after everything.

Names are matched at path-component boundaries: ``summarize_csv.py`` and ``scripts/summarize_csv.py``
both name ``/tmp/x/skills/csv-insights/scripts/summarize_csv.py``, while ``a.py`` does not name
``data.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from ..agents import SkillEvent
from ..skill import SKILL_FILE
from ._actions import Action, actions_of
from ._assertions import Atom
from ._types import RolloutFacts

PRELOADED = -1
LISTING_TOOLS = frozenset({"list_files", "ls", "list", "list_dir", "glob", "tree"})
_LISTING_COMMANDS = re.compile(r"^\s*(?:ls|pwd|tree|find \.)\b")
LOADING_VIAS = frozenset({"skill_tool", "preloaded"})
READING_VIAS = frozenset({"file_read", "shell_read"})


def _path_pattern(path: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.-]){re.escape(path)}(?![\w-])|/{re.escape(path)}(?![\w-])")


def names_path(text: str, path: str) -> bool:
    """Whether ``text`` (a command, a path) names ``path``, whole or as its trailing components."""
    return bool(path) and _path_pattern(path).search(text) is not None


def path_ends_with(path: str, tail: str) -> bool:
    return path == tail or path.endswith("/" + tail)


def is_listing(action: Action) -> bool:
    if action.kind == "shell":
        return _LISTING_COMMANDS.match(action.command or "") is not None
    return action.name.casefold().rsplit("__", 1)[-1] in LISTING_TOOLS


@dataclass(frozen=True)
class Occurrence:
    """One moment something happened: a tool call's position, its step, and the call itself."""

    position: int
    step_id: int
    action: Action | None = None

    @property
    def shown(self) -> str:
        if self.action is None:
            return "preloaded by the harness" if self.position == PRELOADED else f"step {self.step_id}"
        what = self.action.command or ", ".join(self.action.paths) or self.action.name
        failed = " (failed)" if self.action.failed else ""
        return f"step {self.step_id}: {what[:160]}{failed}"


class Trace:
    """Positions of skill loads, script runs, reads and writes in one rollout."""

    def __init__(self, grading: RolloutFacts) -> None:
        self.skill = grading.skill.casefold()
        self.case = grading.case
        self.events = grading.skill_events
        self.skill_files = grading.skill_files
        self.actions = actions_of(grading.trajectory)
        self.end = len(self.actions)

    def _in_step(self, event: SkillEvent) -> Occurrence:
        """The tool call behind a skill event: the first in its step that names the event's file."""
        in_step = [a for a in self.actions if a.step_id == event.step_id]
        tail = (event.path or "").rsplit("/", 1)[-1]
        for action in in_step:
            if tail and names_path(action.text or str(dict(action.arguments)), tail):
                return Occurrence(action.index, event.step_id, action)
        if in_step:
            return Occurrence(in_step[0].index, event.step_id, in_step[0])
        return Occurrence(self.end, event.step_id)

    def _events(self, skill: str, *, loads: bool) -> list[SkillEvent]:
        name = skill.casefold()
        return [
            e
            for e in self.events
            if e.skill.casefold() == name
            and (
                (e.via in LOADING_VIAS or (e.via in READING_VIAS and e.path == SKILL_FILE))
                if loads
                else e.via == "script_run"
            )
        ]

    def loads(self, skill: str | None = None, *, agent_only: bool = False) -> list[Occurrence]:
        """Every load of ``skill`` (default: the skill under test), earliest first."""
        found: list[Occurrence] = []
        for event in self._events(skill or self.skill, loads=True):
            if event.via == "preloaded":
                if not agent_only:
                    found.append(Occurrence(PRELOADED, event.step_id))
            else:
                found.append(self._in_step(event))
        return _unique(found)

    def script_runs(self, skill: str | None = None) -> list[Occurrence]:
        """Every run of one of the skill's scripts that the skill events saw."""
        return _unique([self._in_step(e) for e in self._events(skill or self.skill, loads=False)])

    @cached_property
    def _script_paths(self) -> dict[int, str]:
        return {self._in_step(event).position: event.path or "" for event in self._events(self.skill, loads=False)}

    def runs_of(self, path: str, with_file: str | None = None) -> list[Occurrence]:
        """Shell calls naming ``path`` (and ``with_file``), and skill script runs of that path."""
        found = [
            Occurrence(a.index, a.step_id, a)
            for a in self.actions
            if a.kind == "shell"
            and names_path(a.command or "", path)
            and (with_file is None or names_path(a.command or "", with_file))
        ]
        if with_file is None:
            found += [
                occurrence
                for occurrence in self.script_runs()
                if path_ends_with(self._script_paths.get(occurrence.position, ""), path)
            ]
        return _unique(found)

    def occurrences(self, atom: Atom) -> list[Occurrence]:
        """When ``atom`` happened, earliest first."""
        if atom.kind == "load":
            return self.loads()
        if atom.kind == "answer":
            return [Occurrence(self.end, 0)]
        if atom.kind == "run":
            script = atom.path or self.case.expected_script
            if script is None:
                return self.script_runs()
            return self.runs_of(script, atom.with_file)
        path = atom.path or ""
        if atom.kind == "read":
            found = [
                Occurrence(a.index, a.step_id, a)
                for a in self.actions
                if (a.kind == "read" and any(path_ends_with(p, path) for p in a.paths))
                or (a.kind == "shell" and names_path(a.command or "", path))
            ]
        else:
            found = [
                Occurrence(a.index, a.step_id, a)
                for a in self.actions
                if (a.kind == "write" and any(path_ends_with(p, path) for p in a.paths))
                or (a.kind == "shell" and re.search(rf">>?\s*\S*{re.escape(path)}(?![\w-])", a.command or ""))
            ]
        return _unique(found)

    def first_other(self, mine: list[Occurrence]) -> int:
        """Position of the first call that is neither listing the workspace nor one of ``mine``."""
        own = {o.position for o in mine}
        return next((a.index for a in self.actions if a.index not in own and not is_listing(a)), self.end)

    def about_skill(self, atom: Atom) -> bool:
        """Whether ``atom`` is about the skill under test (loading it, running or reading its files)."""
        if atom.kind == "load" or (atom.kind == "run" and atom.path is None):
            return True
        if atom.path is None:
            return False
        if self.case.expected_script and path_ends_with(atom.path, self.case.expected_script.lstrip("./")):
            return True
        return any(path_ends_with(own, atom.path) for own in self.skill_files)


def _unique(found: list[Occurrence]) -> list[Occurrence]:
    by_position = {o.position: o for o in found}
    return [by_position[p] for p in sorted(by_position)]
