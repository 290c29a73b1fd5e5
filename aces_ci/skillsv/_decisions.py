"""What a valuation tells an author to do, in one place: the text report, the JSON and ``ci`` read it.

A valuation's product is its decisions, not its numbers: which units to cut (harmful, or doing less
than δ while costing context), which to compress, which to keep, and what more evidence would settle
the rest. :func:`decision_summary` groups the units; :func:`decision_line` says it in one sentence.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._model import CompiledSkill
from ._result import Valuation


@dataclass(frozen=True)
class DecisionSummary:
    delete: tuple[str, ...]
    negligible: tuple[str, ...]
    compress: tuple[str, ...]
    keep: tuple[str, ...]
    unresolved: tuple[str, ...]
    cut_tokens: int
    """Tokens of context the cut units (delete and negligible) hold."""
    scores_to_decide: int | None
    """Coalition scores more that would decide every unresolved unit (the largest unit's need: more
    chains inform every unit at once); None when nothing is unresolved or no estimate exists."""

    @property
    def cut(self) -> tuple[str, ...]:
        return self.delete + self.negligible


def decision_summary(game: CompiledSkill, valuation: Valuation) -> DecisionSummary:
    by_decision: dict[str, list[str]] = {"delete": [], "negligible": [], "compress": [], "keep": [], "unresolved": []}
    for unit in valuation.units:
        by_decision[unit.decision].append(unit.unit)
    cut = by_decision["delete"] + by_decision["negligible"]
    needs = [u.scores_to_decide for u in valuation.units if u.decision == "unresolved" and u.scores_to_decide]
    return DecisionSummary(
        delete=tuple(by_decision["delete"]),
        negligible=tuple(by_decision["negligible"]),
        compress=tuple(by_decision["compress"]),
        keep=tuple(by_decision["keep"]),
        unresolved=tuple(by_decision["unresolved"]),
        cut_tokens=sum(game.player(unit).tokens for unit in cut),
        scores_to_decide=max(needs) if needs else None,
    )


def _units(count: int) -> str:
    return f"{count} unit{'s' if count != 1 else ''}"


def decision_line(summary: DecisionSummary, margin: float) -> str:
    """``cut 3 units (212 tokens: 1 harmful, 2 within ±0.05); compress 1; keep 4; 5 unresolved (~2,100 more
    scores would decide them)``."""
    parts = []
    if summary.cut:
        kinds = []
        if summary.delete:
            kinds.append(f"{len(summary.delete)} harmful")
        if summary.negligible:
            kinds.append(f"{len(summary.negligible)} within ±{margin:g}")
        parts.append(f"cut {_units(len(summary.cut))} ({summary.cut_tokens:,} tokens: {', '.join(kinds)})")
    else:
        parts.append("cut nothing")
    if summary.compress:
        parts.append(f"compress {len(summary.compress)}")
    parts.append(f"keep {len(summary.keep)}")
    if summary.unresolved:
        need = (
            f" (~{summary.scores_to_decide:,} more coalition scores would decide them)"
            if summary.scores_to_decide
            else ""
        )
        parts.append(f"{len(summary.unresolved)} unresolved{need}")
    return "; ".join(parts)
