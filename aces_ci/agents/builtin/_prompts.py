"""The built-in agent's system prompts, one per disclosure mode.

* ``on-demand`` is how real harnesses disclose skills: the prompt lists each staged skill's name,
  description and SKILL.md path, and the agent decides whether to read it. This measures whether
  a skill gets *discovered* as well as whether it helps.
* ``preload`` injects every staged skill's body into the prompt. Small models (the embedded
  SmolLM2) cannot drive tools, so this is the only way they see a skill at all; a plain text
  reply then counts as the final answer.

The conditions of a pair get the same text except the skills section, which is left out entirely
when a condition stages no skill. Any wording change here changes what agents do, so it must come with a
bump of :data:`aces_ci.agents.builtin.LOOP_PROTOCOL_VERSION`, which invalidates cached rollouts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...skill import SkillCard
from .._types import Disclosure
from ._tools import FINAL_ANSWER

_BASE = (
    "You are an agent working in a workspace directory on the user's task.\n"
    "Use the tools to look at files (list_files, read_file), write files (write_file) and run commands (run). "
    "Paths are relative to the workspace.\n"
    f"When you are done, call {FINAL_ANSWER} with your answer: it is the only reply that is graded."
)
_BASE_PRELOAD = (
    "You are an agent working in a workspace directory on the user's task.\n"
    "You may use the tools (list_files, read_file, write_file, run) when the task needs files or commands. "
    "Paths are relative to the workspace.\n"
    f"Give your answer by calling {FINAL_ANSWER}, or reply with the answer as plain text."
)
_ON_DEMAND_INTRO = (
    "Skills are folders of instructions and scripts for particular tasks. When a skill below fits the task, "
    "read its SKILL.md with read_file before you start, then follow it. Its other files are next to it."
)
_PRELOAD_INTRO = "These skills are loaded for you. Follow a skill's instructions when it fits the task."
NUDGE = f"Reply by calling a tool. When you have the answer, call {FINAL_ANSWER}(answer)."
"""Sent when an on-demand agent replies with text only: there, only ``final_answer`` ends the task."""


@dataclass(frozen=True)
class StagedSkill:
    """A staged skill as the prompt presents it."""

    card: SkillCard
    directory: str
    """The skill's folder as the agent should write it (relative to the workspace when inside it)."""


def system_prompt(disclosure: Disclosure, skills: Sequence[StagedSkill]) -> str:
    """The system prompt for one rollout; deterministic in its inputs (skills in the given order)."""
    if disclosure == "preload":
        parts = [_BASE_PRELOAD]
        if skills:
            parts.append(_PRELOAD_INTRO)
            for skill in skills:
                description = f"\nDescription: {skill.card.description}" if skill.card.description else ""
                parts.append(
                    f'<skill name="{skill.card.name}" folder="{skill.directory}">{description}\n'
                    f"{skill.card.body.strip()}\n</skill>"
                )
        return "\n\n".join(parts)
    parts = [_BASE]
    if skills:
        lines = [_ON_DEMAND_INTRO, "", "Available skills:"]
        for skill in skills:
            lines.append(f"- {skill.card.name}: {skill.card.description or '(no description)'}")
            lines.append(f"  SKILL.md: {skill.directory}/SKILL.md")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)
