"""The conditions of a paired trial — what each one stages — and the guard that proves it before any money is spent.

A condition is a label plus a set of staged skills. Every condition of one skill's trial stages
the same *other* skills (supporting skills, and in group mode the decoys) in the same order; what
differs is only what sits under the skill's own name:

=================  ===========================================================================
``with``           the skill as it is now
``without``        nothing: the skill is absent, and provably so (no copy under another name,
                   in a decoy or pasted into a fixture)
``base``           the skill as it was at the ``--against`` ref
``aa``             the skill as it is now, again: an A/A control, whose "lift" is noise
``metadata-only``  a SKILL.md with only the name and description; the body cannot be loaded
=================  ===========================================================================

Group mode and the routing stress test add decoys; their conditions carry the number of visible
decoys in the label (``with+decoys``, ``without+5``), so their rollouts never share a cache key or
a table row with the isolation conditions.

:func:`trial_guard` is the staging guard the engine calls with every request's plan before the
first rollout of a call: the staged copy of the skill must be exactly the condition's version,
and a condition that must lack the skill (or its body) is checked with
:func:`aces_ci.agents.check_baseline`. A leaked baseline would make the skill look useless and an
edited "A/A" copy would invent noise, so either is an input error (exit 2), not a warning.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ..agents import RolloutRequest, StagingGuard, StagingPlan, check_baseline
from ..errors import InputError
from ..skill import SKILL_FILE, RenderedSkill, skill_card

WITH = "with"
WITHOUT = "without"
BASE = "base"
AA = "aa"
METADATA_ONLY = "metadata-only"
WITH_DECOYS = "with+decoys"

Staging = Literal["current", "absent", "base", "metadata-only"]
"""What a condition stages under the skill's own name."""


def stress_labels(visible: int) -> tuple[str, str]:
    """The with/without labels of the routing stress test's level with ``visible`` decoys."""
    return f"with+{visible}", f"without+{visible}"


def metadata_only(skill: RenderedSkill) -> RenderedSkill:
    """The skill reduced to a SKILL.md holding only its name and description (no body, no other file).

    The values are written as JSON strings, which YAML reads verbatim, so no description can turn
    into YAML structure. A skill without a description keeps only its name: what a harness would list.
    """
    card = skill_card(skill)
    lines = ["---", f"name: {json.dumps(card.name, ensure_ascii=False)}"]
    if card.description:
        lines.append(f"description: {json.dumps(card.description, ensure_ascii=False)}")
    lines.append("---")
    return RenderedSkill(skill.name, {SKILL_FILE: ("\n".join(lines) + "\n").encode("utf-8")})


@dataclass(frozen=True)
class Condition:
    """One condition of one skill's trial: its label, what it stages under the skill's name, and the rest."""

    label: str
    staging: Staging
    target: RenderedSkill | None
    """The version staged under the skill's name; None when the condition lacks it."""
    others: tuple[RenderedSkill, ...] = ()
    """Supporting skills and decoys, the same objects in every condition of a setting."""

    @property
    def visible_decoys(self) -> int:
        return len(self.others)

    def staged(self) -> tuple[RenderedSkill, ...]:
        """Every skill this condition stages, in name order (the order harnesses list them)."""
        skills = [*self.others, *((self.target,) if self.target is not None else ())]
        return tuple(sorted(skills, key=lambda s: s.name))


def _target_files(plan: StagingPlan, name: str) -> dict[str, bytes]:
    prefix = plan.skill_dir(name) + "/"
    return {path[len(prefix) :]: data for path, data in plan.files.items() if path.startswith(prefix)}


def _check_condition(request: RolloutRequest, plan: StagingPlan, condition: Condition, current: RenderedSkill) -> None:
    name = request.skills.target
    target_dir = plan.skill_dir(name)
    if condition.staging == "absent":
        check_baseline(plan.files, current, target_dir)
        return
    expected = condition.target
    if expected is None:  # a condition that stages the skill always names the version it stages
        raise InputError(f"condition {condition.label!r} names no version of {name!r} to stage", field="condition")
    staged = _target_files(plan, name)
    if staged != dict(expected.files):
        what = {"current": "the skill as it is now", "base": "the --against version", "metadata-only": "the stub"}
        raise InputError(
            f"condition {condition.label!r} must stage {what[condition.staging]} of {name!r} unchanged, "
            f"but the workspace plan holds other files there",
            path=target_dir,
        )
    if condition.staging in ("metadata-only", "base") and expected.digest != current.digest:
        # The stub and the earlier version stand in for the skill: its current body must not sneak in beside them.
        elsewhere = {path: data for path, data in plan.files.items() if not path.startswith(target_dir + "/")}
        try:
            check_baseline(elsewhere, current, target_dir)
        except InputError as exc:
            raise InputError(
                f"the {condition.label} condition must not carry the body of {name!r} anywhere: {exc}", path=exc.path
            ) from None


def trial_guard(
    conditions: Mapping[str, Mapping[str, Condition]], current: Mapping[str, RenderedSkill]
) -> StagingGuard:
    """The guard of a trial over several skills: ``conditions[skill][label]``, ``current[skill]`` the version now.

    A request naming a skill or condition the trial did not declare is refused: its staging could
    not be checked, so its rollout could not be trusted.
    """

    def guard(request: RolloutRequest, plan: StagingPlan) -> None:
        name = request.skills.target
        by_label = conditions.get(name)
        condition = by_label.get(request.condition) if by_label is not None else None
        if condition is None or name not in current:
            raise InputError(
                f"no trial condition {request.condition!r} is declared for skill {name!r}: "
                "its staging cannot be checked",
                field="condition",
            )
        _check_condition(request, plan, condition, current[name])

    return guard


def settings_of(skill: RenderedSkill, others: Sequence[RenderedSkill]) -> tuple[RenderedSkill, ...]:
    """``others`` without the skill itself (a repository's skills as its decoys) and without repeats by name."""
    seen = {skill.name}
    kept = []
    for other in others:
        if other.name not in seen:
            seen.add(other.name)
            kept.append(other)
    return tuple(kept)
