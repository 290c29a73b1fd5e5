"""Evaluation cases, canonicalised from whichever evals.json dialect the author wrote."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

from ..skill import ParseProblem
from ._owned import GraderSpec, TaskCommand

MatchMode = Literal["contains", "exact", "numeric", "regex", "judge"]
"""How accuracy compares a final answer with ``expected_output``; see :mod:`aces_ci.grading`."""
MATCH_MODES: tuple[str, ...] = get_args(MatchMode)
DEFAULT_MATCH: MatchMode = "contains"
"""The mode of a case whose dataset names none: deterministic, so a trial needs no judge by default."""


@dataclass(frozen=True)
class Tolerance:
    """How far a number in the answer may lie from an expected number (``match: numeric``).

    Written ``"tolerance": 0.5`` (absolute) or ``"tolerance": "2%"`` (relative to the expected
    value). The default, zero, still compares numbers rather than text: ``12.0`` matches ``12``.
    """

    absolute: float = 0.0
    relative: float = 0.0

    def allows(self, expected: float, found: float) -> bool:
        return abs(found - expected) <= max(self.absolute, self.relative * abs(expected))


@dataclass(frozen=True)
class EvalCase:
    """One task: a prompt the agent gets, and what a good answer looks like."""

    id: str
    """Canonical string id (integer ids become strings)."""
    prompt: str
    expected_output: str | None = None
    assertions: tuple[str, ...] = ()
    """Free-form behaviour checks ("reads SKILL.md before running the script")."""
    files: tuple[str, ...] = ()
    """Fixture files, relative to the skill directory, copied into the rollout workspace."""
    should_trigger: bool | None = None
    """False for a negative case (the skill should *not* be used); None when unlabelled."""
    expected_skill: str | None = None
    line: int | None = None
    """Line of the case in evals.json, for findings."""
    expected_script: str | None = None
    """A script of the skill the agent is expected to run (ACES ``expected_script``), e.g. ``summarize.py``."""
    acceptable_skills: tuple[str, ...] = ()
    """Other skills whose use also counts as routing correctly (ACES ``acceptable_skills``), scored lower."""
    match: MatchMode = DEFAULT_MATCH
    """How accuracy compares the final answer with ``expected_output`` (the case's ``match``, else the
    dataset's top-level ``match``, else :data:`DEFAULT_MATCH`)."""
    tolerance: Tolerance = Tolerance()
    """For ``match: numeric``."""
    pointer: str | None = None
    """JSON pointer of the case in its source (``/evals/3``), for errors that stop a run."""
    draft: str | None = None
    """What is left to write (``_fill_in``) in a case ``aces-ci init`` scaffolded; a trial refuses drafts."""


@dataclass(frozen=True)
class EvalSet:
    path: Path
    rel: str
    """Repository-relative path of the dataset file."""
    dialect: str
    """``agentskills``, ``skill-creator``, ``aces`` or ``legacy-list``; ``unknown`` when the file could not be read."""
    skill_name: str | None
    cases: tuple[EvalCase, ...] = ()
    problems: tuple[ParseProblem, ...] = field(default_factory=tuple)
    parsed: bool = True
    """False when the file could not be read or parsed at all; ``cases`` is then empty."""
    skill_name_line: int | None = None
    """Line of the ``skill_name`` key, for findings about it."""
    cases_line: int | None = None
    """Line where the list of cases starts (the ``evals``/``cases`` key, or the top-level list)."""
    tasks: TaskCommand | None = None
    """The dataset's own task command (BYOT), if it declares one."""
    grader: GraderSpec | None = None
    """The dataset's own grader (BYOG), if it declares one."""
