"""What ``aces-ci compress`` found: the candidates, their verification, and the one it proposes.

:class:`CompressResult` is the frozen result every renderer reads (text, Markdown, JSON under
``schemas/compress.schema.json``); :func:`unit_changes` says which units of the original a candidate
removed or rewrote, with file and lines, and :func:`tree_diff` is the unified diff a reviewer applies.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..skillsv import CompiledSkill
from ._verify import Contrast, Judgement

CandidateKind = Literal["pruned", "edited"]
Change = Literal["removed", "rewritten"]


@dataclass(frozen=True)
class UnitChange:
    """One unit of the original a candidate removed or rewrote."""

    unit: str
    file: str
    lines: tuple[int, int]
    change: Change
    decision: str
    """The unit's SkillSV decision on the attribution cases."""
    because_of: str | None = None
    """For a unit removed only by the reverse-dependency closure: the removed unit it requires."""


@dataclass(frozen=True)
class Candidate:
    """One shorter version of the skill and what its verification found."""

    kind: CandidateKind
    files: Mapping[str, bytes] = field(repr=False)
    """Its staged tree, path inside the skill → bytes (the original's paths only)."""
    tokens: int
    changes: tuple[UnitChange, ...]
    contrast: Contrast | None
    """Candidate − original on the held-out cases; None when it was not verified."""
    judgement: Judgement
    new_findings: tuple[str, ...] = ()
    """Static-scan findings of the candidate the original does not have (``RULE: message``)."""
    attempts: int = 0
    """Editor answers asked for (0 for the pruned candidate)."""
    rejected_answers: tuple[str, ...] = ()
    """Why each invalid editor answer was refused, in order."""
    diff: str = ""


@dataclass(frozen=True)
class CompressCost:
    rollouts: int
    """Rollouts paid by this run (valuation and verification); 0 on an unchanged rerun."""
    cost_usd: float
    editor_calls: int
    """Editor answers paid for by this run (cached answers are free)."""
    editor_cost_usd: float


@dataclass(frozen=True)
class CompressResult:
    skill: str
    skill_dir: str
    """The skill's folder relative to the repository root (the diff's prefix)."""
    original_tokens: int
    oracle: str
    """What scored every case (the valuation's scorer identity)."""
    seed: int
    runs: int
    tolerance: float
    attribution: tuple[str, ...]
    held_out: tuple[str, ...]
    values_from: Literal["valued", "file"]
    decisions: Mapping[str, str]
    """Per unit id, its SkillSV decision on the attribution cases."""
    decision_line: str
    candidates: tuple[Candidate, ...]
    accepted: CandidateKind | None
    """The proposed candidate: the shortest accepted one; None when none was accepted."""
    editor: str | None
    """``provider/model`` of the editor; None when no editor was configured."""
    cost: CompressCost
    stopped_by: str | None = None
    """The budget cap that stopped the run (what was verified before it is reported)."""
    notes: tuple[str, ...] = ()

    def candidate(self, kind: CandidateKind | None) -> Candidate | None:
        return next((c for c in self.candidates if c.kind == kind), None)

    @property
    def proposal(self) -> Candidate | None:
        return self.candidate(self.accepted)


def _unit_lines(game: CompiledSkill, unit_id: str) -> list[str]:
    unit = game.player(unit_id)
    text = game.source.get(unit.file, b"").decode("utf-8", errors="replace").splitlines()
    return [line.strip() for span in unit.spans for line in text[span.start - 1 : span.end] if line.strip()]


def unit_changes(
    game: CompiledSkill,
    files: Mapping[str, bytes],
    decisions: Mapping[str, str],
    because: Mapping[str, str] | None = None,
) -> tuple[UnitChange, ...]:
    """Every unit of ``game`` that ``files`` removed (none of its lines is left in its file) or rewrote (some are).

    The trigger unit counts too: an editor may rewrite the frontmatter's description.
    """
    because = because or {}
    changes = []
    for unit in game.players:
        path = unit.file
        if path not in files:
            changes.append(
                UnitChange(unit.id, path, unit.lines, "removed", decisions.get(unit.id, ""), because.get(unit.id))
            )
            continue
        if path != game.skill_file:
            if files[path] != game.source.get(path):
                changes.append(UnitChange(unit.id, path, unit.lines, "rewritten", decisions.get(unit.id, "")))
            continue
        now = {line.strip() for line in files[path].decode("utf-8", errors="replace").splitlines()}
        lines = _unit_lines(game, unit.id)
        left = [line for line in lines if line in now]
        if len(left) == len(lines):
            continue
        change: Change = "removed" if not left else "rewritten"
        changes.append(UnitChange(unit.id, path, unit.lines, change, decisions.get(unit.id, ""), because.get(unit.id)))
    return tuple(changes)


def _text(data: bytes | None) -> list[str]:
    if data is None:
        return []
    return data.decode("utf-8", errors="replace").splitlines(keepends=True)


def tree_diff(original: Mapping[str, bytes], candidate: Mapping[str, bytes], prefix: str) -> str:
    """The unified diff from ``original`` to ``candidate``, paths ``a/<prefix>/…`` as ``git apply`` reads them."""
    base = "" if prefix in ("", ".") else prefix.rstrip("/") + "/"
    out: list[str] = []
    for path in sorted(set(original) | set(candidate)):
        before, after = original.get(path), candidate.get(path)
        if before == after:
            continue
        old = f"a/{base}{path}" if before is not None else "/dev/null"
        new = f"b/{base}{path}" if after is not None else "/dev/null"
        lines = list(difflib.unified_diff(_text(before), _text(after), old, new))
        out.extend(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    return "".join(out)


def changed_units(candidate: Candidate, change: Change) -> Sequence[UnitChange]:
    return [c for c in candidate.changes if c.change == change]
