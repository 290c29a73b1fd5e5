"""The removal operators ρ_del and ρ_pad: a feasible coalition → the staged file tree (path → bytes).

Both are local by construction: the output is assembled from the original bytes segment by
segment, so a kept unit's bytes are never touched, whatever else is removed.

* ρ_del drops every segment of a removed unit, a scaffold span (heading, thematic break) when no
  unit under it is kept, and a removed resource's file. ρ_del(∅) is the bare agent: no skill at all.
* ρ_pad puts a neutral placeholder of the same token length, line for line, where ρ_del would drop
  text (binary files have no token length and are dropped), so the document's footprint stays
  fixed and only its content changes. ρ_pad(∅) is not a skill and is refused.

Only feasible coalitions (downward closed under D) are rendered; anything else is refused with
:class:`InfeasibleCoalition`, never silently repaired: repairing would measure deletion plus
rewriting rather than the value of what was removed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ._model import TRIGGER_ID, CompiledSkill, Operator
from ._tokens import count_tokens, placeholder_for


class InfeasibleCoalition(ValueError):
    """A coalition that is not a valid partial skill: a kept unit lacks a unit it requires."""


def missing_requirements(game: CompiledSkill, coalition: frozenset[str]) -> list[tuple[str, str]]:
    """(kept unit, required unit it lacks) for every violated edge, in edge order."""
    return [(e.source, e.target) for e in game.edges if e.source in coalition and e.target not in coalition]


def check_feasible(game: CompiledSkill, coalition: Iterable[str]) -> frozenset[str]:
    """The coalition as a frozenset, or :class:`InfeasibleCoalition` saying which edge it breaks."""
    members = frozenset(coalition)
    unknown = sorted(members - set(game.player_ids))
    if unknown:
        raise InfeasibleCoalition(f"not units of this skill: {', '.join(unknown)}")
    broken = missing_requirements(game, members)
    if broken:
        shown = ", ".join(f"{source} requires {target}" for source, target in broken[:5])
        raise InfeasibleCoalition(f"coalition is not dependency-closed: {shown}")
    return members


def _placeholder(data: bytes) -> bytes:
    return placeholder_for(data.decode("utf-8", errors="replace")).encode("utf-8")


def _is_binary(data: bytes) -> bool:
    return b"\x00" in data[:8192]


def render(game: CompiledSkill, coalition: Iterable[str], operator: Operator) -> dict[str, bytes]:
    """ρ_operator(coalition): the files an agent is staged with, as ``{path inside the skill: bytes}``."""
    kept = check_feasible(game, coalition)
    if not kept:
        if operator == "pad":
            raise InfeasibleCoalition("ρ_pad(∅) is not a skill: the bare agent is ρ_del(∅)")
        return {}
    lines = game.source[game.skill_file].splitlines(keepends=True)
    pieces: list[bytes] = []
    for segment in game.segments:
        data = b"".join(lines[segment.start - 1 : segment.end])
        survives = segment.owner in kept if segment.owner is not None else bool(segment.scaffold_of & kept)
        if survives:
            pieces.append(data)
        elif operator == "pad":
            pieces.append(_placeholder(data))
    files = {game.skill_file: b"".join(pieces)}
    for path, owner in game.resource_files.items():
        data = game.source[path]
        if owner in kept:
            files[path] = data
        elif operator == "pad" and not _is_binary(data):
            files[path] = _placeholder(data)
    return dict(sorted(files.items()))


def tree_tokens(files: Mapping[str, bytes]) -> int:
    """Token length of a staged tree under the compile's tokenizer (binary files count zero)."""
    return sum(
        0 if _is_binary(data) else count_tokens(data.decode("utf-8", errors="replace")) for data in files.values()
    )


def full_coalition(game: CompiledSkill) -> frozenset[str]:
    return frozenset(game.player_ids)


def trigger_only() -> frozenset[str]:
    return frozenset({TRIGGER_ID})
