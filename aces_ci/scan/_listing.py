"""The skill listing a host builds from a repository's skills, and what it cuts or drops.

An agent host does not put whole skills in the model's context: it lists each skill's name and
description, within a budget, and the model decides from that listing alone whether to load a
skill. A description the host cut short, or dropped, cannot be matched on its lost words. This
module rebuilds the listing each host would build from the repository's own skills, so a scan can
say which skills lose which words before any model is called.

Each :class:`HostProfile` states its figures and where they come from; ``measured`` says whether
they were read off the host's source code or only stated by the host's documentation or issues.
The repository's skills are listed alone: an install that carries other skills has less room, so
the real listing is never more generous than this one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Overflow = Literal["drop-descriptions", "shorten-evenly", "none"]


@dataclass(frozen=True)
class ListedSkill:
    """What a host reads from one skill to list it: its name and the text it matches requests on."""

    rel_dir: str
    skill_md: str
    """Repository-relative path of SKILL.md."""
    name: str
    description: str
    description_line: int
    """Line of ``description:`` in SKILL.md (the opening fence when it is missing)."""
    when_to_use: str = ""
    """Claude Code's ``when_to_use`` field: listed after the description, under the same cap."""


@dataclass(frozen=True)
class HostProfile:
    """How one host lists skills: its budget at a stated context size, its per-description cap, its overflow."""

    name: str
    context_tokens: int
    """The context size the budget is stated at (the host's default when the window is unknown)."""
    budget: int | None
    """The listing's budget, in ``unit``; None: the host states no budget."""
    unit: Literal["chars", "tokens"]
    per_description_chars: int | None
    """Characters of one entry's text the host keeps at most; None: no cap."""
    overflow: Overflow
    source: str
    """Where the figures come from."""
    measured: bool
    """True when read off the host's source code; False when only stated in its docs or issues."""

    def budget_text(self) -> str:
        if self.budget is None:
            return f"{self.name} states no listing budget"
        at = f"at a {self.context_tokens:,}-token context"
        return f"{self.name} lists skills within {self.budget:,} {self.unit} ({at})"


CLAUDE_CODE = HostProfile(
    name="Claude Code",
    context_tokens=200_000,
    budget=200_000 * 4 * 1 // 100,
    unit="chars",
    per_description_chars=1_536,
    overflow="drop-descriptions",
    source="anthropics/claude-code#68135, code.claude.com/docs/en/skills: 1% of the context at 4 characters per "
    "token, 200,000 tokens when the window is unknown; description + when_to_use cut at 1,536 characters",
    measured=False,
)
CODEX = HostProfile(
    name="Codex",
    context_tokens=272_000,
    budget=272_000 * 2 // 100,
    unit="tokens",
    per_description_chars=None,
    overflow="shorten-evenly",
    source="openai/codex#18925; codex-rs/core-skills/src/render.rs (commit 0899b7c): 2% of the context window in "
    "tokens of 4 bytes, descriptions shortened one character at a time across skills, then skills omitted",
    measured=True,
)
OPENCODE = HostProfile(
    name="OpenCode",
    context_tokens=200_000,
    budget=None,
    unit="chars",
    per_description_chars=None,
    overflow="none",
    source="opencode.ai/docs/skills: every skill's name and description in the skill tool's listing; no budget stated",
    measured=False,
)
HOST_PROFILES: tuple[HostProfile, ...] = (CLAUDE_CODE, CODEX, OPENCODE)

CODEX_PATH_PREFIX = "/home/user/.agents/skills/"
"""Codex lists each skill's absolute SKILL.md path, which costs budget: the install location assumed here."""


@dataclass(frozen=True)
class ListedEntry:
    """One skill as a host would list it."""

    skill: ListedSkill
    shown: str
    """The text of the entry the model sees (description, plus when_to_use on Claude Code), possibly cut."""
    full: str
    omitted: bool = False
    """The skill is not in the listing at all (Codex, past even the names-only budget)."""

    @property
    def cut(self) -> bool:
        return len(self.shown) < len(self.full)

    @property
    def dropped(self) -> bool:
        """Nothing of the description is shown (a bare name, or no entry at all)."""
        return bool(self.full) and not self.shown

    def lost_words(self) -> str:
        """The words of the description the model never sees (a word cut in half counts as lost)."""
        kept = self.shown
        if kept and len(kept) < len(self.full) and not self.full[len(kept)].isspace():
            kept = kept.rsplit(None, 1)[0] if " " in kept.strip() else ""
        return self.full[len(kept) :].strip()


@dataclass(frozen=True)
class HostListing:
    profile: HostProfile
    entries: tuple[ListedEntry, ...]
    cost: int
    """What the full, uncut listing would cost, in the profile's unit."""


def _entry_text(profile: HostProfile, skill: ListedSkill) -> str:
    if profile is CLAUDE_CODE and skill.when_to_use:
        return f"{skill.description} {skill.when_to_use}".strip()
    return skill.description


def _capped(profile: HostProfile, text: str) -> str:
    cap = profile.per_description_chars
    return text if cap is None else text[:cap]


def build_listing(profile: HostProfile, skills: Sequence[ListedSkill]) -> HostListing:
    """The listing ``profile`` would build from ``skills``, in the repository's order."""
    texts = [_entry_text(profile, skill) for skill in skills]
    capped = [_capped(profile, text) for text in texts]
    if profile.overflow == "drop-descriptions":
        return _drop_descriptions(profile, skills, texts, capped)
    if profile.overflow == "shorten-evenly":
        return _shorten_evenly(profile, skills, texts)
    entries = tuple(ListedEntry(skill, shown, full) for skill, shown, full in zip(skills, capped, texts, strict=True))
    return HostListing(profile, entries, sum(len(_claude_line(s.name, t)) for s, t in zip(skills, texts, strict=True)))


def _claude_line(name: str, text: str) -> str:
    return f"- {name}: {text}\n"


def _drop_descriptions(
    profile: HostProfile, skills: Sequence[ListedSkill], texts: Sequence[str], capped: Sequence[str]
) -> HostListing:
    """Claude Code: every name is listed; full entries are granted in rank order until one does not fit,
    and every entry past that cutoff is a bare name (anthropics/claude-code#68135 and the issues around it).

    The host ranks by how often the user invoked each skill; a repository has no such history, so its
    own order stands in for it, and the skills past the budget are the ones reported as dropped.
    """
    budget = profile.budget or 0
    used = sum(len(_claude_line(skill.name, "")) for skill in skills)
    entries = []
    past_cutoff = False
    for skill, text, shown in zip(skills, texts, capped, strict=True):
        past_cutoff = past_cutoff or used + len(shown) > budget
        used += 0 if past_cutoff else len(shown)
        entries.append(ListedEntry(skill, "" if past_cutoff else shown, text))
    cost = sum(len(_claude_line(skill.name, shown)) for skill, shown in zip(skills, capped, strict=True))
    return HostListing(profile, tuple(entries), cost)


def _codex_line(skill: ListedSkill, description: str) -> str:
    path = CODEX_PATH_PREFIX + skill.skill_md
    if description:
        return f"- {skill.name}: {description} (file: {path})\n"
    return f"- {skill.name}: (file: {path})\n"


def _tokens(text: str) -> int:
    """Codex's approximate token count: UTF-8 bytes over 4, rounded up."""
    return math.ceil(len(text.encode("utf-8")) / 4)


def _shorten_evenly(profile: HostProfile, skills: Sequence[ListedSkill], texts: Sequence[str]) -> HostListing:
    """Codex: all in full if they fit; else descriptions grow one character per skill per round; else names only."""
    budget = profile.budget or 0
    full_cost = sum(_tokens(_codex_line(skill, text)) for skill, text in zip(skills, texts, strict=True))
    if full_cost <= budget:
        entries = tuple(ListedEntry(skill, text, text) for skill, text in zip(skills, texts, strict=True))
        return HostListing(profile, entries, full_cost)
    minimum = [_tokens(_codex_line(skill, "")) for skill in skills]
    if sum(minimum) > budget:
        entries_list = []
        used = 0
        for skill, text, cost in zip(skills, texts, minimum, strict=True):
            fits = used + cost <= budget
            used += cost if fits else 0
            entries_list.append(ListedEntry(skill, "", text, omitted=not fits))
        return HostListing(profile, tuple(entries_list), full_cost)
    allocation = _round_robin(skills, texts, budget - sum(minimum))
    entries = tuple(
        ListedEntry(skill, text[:chars], text) for skill, text, chars in zip(skills, texts, allocation, strict=True)
    )
    return HostListing(profile, entries, full_cost)


def _round_robin(skills: Sequence[ListedSkill], texts: Sequence[str], remaining: int) -> list[int]:
    """Characters of each description Codex keeps: handed out one per skill per round while the budget lasts.

    A character costs what it adds to the entry's byte count over 4 (rounded up), with the separating
    space counted once, as Codex prices a growing prefix.
    """
    base = [len(_codex_line(skill, "").encode("utf-8")) for skill in skills]
    prefix_bytes = [[0] for _ in texts]
    for index, text in enumerate(texts):
        total = 0
        for char in text:
            total += len(char.encode("utf-8"))
            prefix_bytes[index].append(total)

    def extra(index: int, chars: int) -> int:
        if chars == 0:
            return 0
        return math.ceil((base[index] + prefix_bytes[index][chars] + 1) / 4) - math.ceil(base[index] / 4)

    allocation = [0] * len(texts)
    changed = True
    while changed:
        changed = False
        for index, text in enumerate(texts):
            if allocation[index] >= len(text):
                continue
            delta = extra(index, allocation[index] + 1) - extra(index, allocation[index])
            if delta <= remaining:
                allocation[index] += 1
                remaining -= delta
                changed = True
    return allocation
