"""Shards: a deterministic split of a repository's skills, so a workflow matrix scans them in parallel.

Skill ``k`` (0-based, in discovery order, which is sorted by directory) belongs to shard
``k mod n + 1``: every shard gets the same number of skills give or take one, and the same
repository gives the same split on every runner. ``aces-ci merge`` puts the shards back together
and checks that all ``n`` are there exactly once.

A baseline's stale entries need care: each shard sees only its own skills' findings, so an entry
for another shard's skill would look stale everywhere. A shard therefore counts only the entries
under its own skills, and shard 1 also those under no skill at all (a skill that was removed);
the shards' counts then add up to the repository's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from ..errors import ConfigError

_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")
T = TypeVar("T")


@dataclass(frozen=True)
class Shard:
    index: int
    """1-based."""
    count: int

    def __post_init__(self) -> None:
        if self.count < 1 or not 1 <= self.index <= self.count:
            raise ConfigError(f"shard must be i/n with 1 <= i <= n, got {self.index}/{self.count}", field="--shard")

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"2/4"`` as a shard; anything else is a :class:`ConfigError`."""
        match = _SPEC.match(text)
        if match is None:
            raise ConfigError(f"shard must look like 2/4 (this is shard 2 of 4), got {text!r}", field="--shard")
        return cls(int(match.group(1)), int(match.group(2)))

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def select(self, items: Iterable[T]) -> list[T]:
        """This shard's part of ``items`` (skill directories in discovery order)."""
        return [item for position, item in enumerate(items) if position % self.count == self.index - 1]


def owner_skill(path: str, skill_dirs: Sequence[str]) -> str | None:
    """The deepest skill directory holding ``path`` (both relative to the scanned root), None if none does."""
    best: str | None = None
    for skill in skill_dirs:
        inside = skill in (".", path) or path.startswith(skill + "/")
        if inside and (best is None or best == "." or len(skill) > len(best)):
            best = skill
    return best


def entries_in_shard(paths: Iterable[str], all_skills: Sequence[str], shard_skills: Iterable[str], first: bool) -> int:
    """How many baseline entries (given by path) this shard is responsible for."""
    mine = set(shard_skills)
    count = 0
    for path in paths:
        owner = owner_skill(path, all_skills)
        if (owner is None and first) or (owner is not None and owner in mine):
            count += 1
    return count
