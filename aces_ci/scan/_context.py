"""What a rule's check receives: the skill, the settings, and helpers to build locations."""

from __future__ import annotations

from dataclasses import dataclass

from ..skill import Skill
from ._config import ScanConfig
from ._finding import Location


@dataclass(frozen=True)
class ScanContext:
    skill: Skill
    config: ScanConfig

    @property
    def skill_md_path(self) -> str:
        return self.skill.skill_md.rel

    def at(self, line: int | None = None) -> Location:
        """A location in SKILL.md."""
        return Location(self.skill.skill_md.rel, line)

    def in_skill(self, rel_in_skill: str, line: int | None = None) -> Location:
        """A location in another file of the skill."""
        return Location(self.skill.rel_path(rel_in_skill), line)
