"""Evaluation cases, canonicalised from whichever evals.json dialect the author wrote."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..skill import ParseProblem


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
