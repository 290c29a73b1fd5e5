"""What a rule's check receives: the skill, the settings, the skill's derived inputs, and location helpers."""

from __future__ import annotations

from dataclasses import dataclass

from ..skill import Skill
from ._config import ScanConfig
from ._finding import Location
from ._inputs import SkillInputs


@dataclass(frozen=True, init=False)
class ScanContext:
    skill: Skill
    config: ScanConfig
    inputs: SkillInputs
    """Derived data every rule of this skill shares (file texts, parses, the dataset), computed once."""

    def __init__(self, skill: Skill, config: ScanConfig, inputs: SkillInputs | None = None) -> None:
        """``inputs`` defaults to a fresh memo of ``skill``; the runner passes one it created for the skill."""
        if inputs is not None and inputs.skill is not skill:
            raise ValueError("the inputs given belong to another skill")
        object.__setattr__(self, "skill", skill)
        object.__setattr__(self, "config", config)
        object.__setattr__(self, "inputs", inputs if inputs is not None else SkillInputs(skill))

    @property
    def skill_md_path(self) -> str:
        return self.skill.skill_md.rel

    def at(self, line: int | None = None) -> Location:
        """A location in SKILL.md."""
        return Location(self.skill.skill_md.rel, line)

    def in_skill(self, rel_in_skill: str, line: int | None = None) -> Location:
        """A location in another file of the skill."""
        return Location(self.skill.rel_path(rel_in_skill), line)
