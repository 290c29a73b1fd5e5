"""The editor's side of an edited candidate: what it is told, and how its answer becomes a skill.

The editor (a model) receives the skill and the value report on the attribution cases — per unit
its file and lines, net effect, content value, context cost and decision — and is asked what the
SkillSV paper's single refinement step asks (Section 4.3): keep the units that carry value, drop
the harmful and null ones, shorten the ones whose content value is positive but whose context
cost is large.

Its answer is untrusted text. It names files only as the skill already has them: a ``<file
path="…">`` block replaces one file's text, ``<keep path="…"/>`` keeps one unchanged, and a file it
does not name is dropped. A path the skill does not have, a file named twice, a missing SKILL.md,
broken frontmatter or a dropped file that a kept file still names make the answer invalid:
:class:`InvalidEdit` says why, and the caller asks again with the reason (a bounded number of
times). No path from the answer is ever written anywhere: only the original's paths are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..skill import SKILL_FILE, split_frontmatter

EDITOR_PROTOCOL = 1
"""The version of the prompt and answer format: it keys the cache of the editor's answers."""

_FILE_BLOCK = re.compile(r'<file path="([^"\n]{1,300})">\n?(.*?)</file>', re.DOTALL)
_KEEP = re.compile(r'<keep path="([^"\n]{1,300})"\s*/>')

SYSTEM = (
    "You edit agent skills (a SKILL.md with YAML frontmatter, and its files) to make them shorter without "
    "making the agent worse. You are given the skill and a value report measured on real tasks: for each unit, "
    "its net effect (what removing it changes in the score), its content value (its value with its length held "
    "fixed), its context cost, and a decision. Keep units whose value is positive. Delete units marked delete "
    "(harmful) or negligible (no measurable effect). Shorten units whose content value is positive but whose "
    "context cost is large. Keep units marked unresolved or keep unless the report says otherwise. Never drop a "
    "file that a kept unit refers to. Keep the frontmatter's name unchanged.\n\n"
    "Answer with the edited skill only, in this format:\n"
    '<file path="SKILL.md">\n...the whole new text of the file...\n</file>\n'
    '<keep path="scripts/example.sh"/>\n'
    "One <file> block for each file you rewrite (its whole new text), one <keep/> for each file you keep "
    "unchanged; a file you do not name is deleted. Name only files the skill already has."
)


class InvalidEdit(ValueError):
    """The editor's answer is not a valid skill; the message says why (it is sent back to the editor)."""


@dataclass(frozen=True)
class UnitRow:
    """One unit as the editor and the report see it."""

    unit: str
    file: str
    lines: tuple[int, int]
    tokens: int
    decision: str
    net_effect: float | None
    content_value: float | None
    context_cost: float | None
    preview: str


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.3f}"


def _is_text(data: bytes) -> bool:
    if b"\x00" in data[:8192]:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def editor_prompt(
    files: Mapping[str, bytes],
    rows: Sequence[UnitRow],
    *,
    keep_tokens: float | None = None,
    rejected: Sequence[str] = (),
) -> str:
    """The user message: the skill's files, the value table, a token target, and why earlier answers failed."""
    parts = ["The skill's files:"]
    for path, data in files.items():
        if _is_text(data):
            parts.append(f'<file path="{path}">\n{data.decode("utf-8")}</file>')
        else:
            parts.append(f'<binary path="{path}"/> (not text: keep it or drop it, never rewrite it)')
    parts.append("The value report (measured on the attribution cases; 95% intervals decide each decision):")
    parts.append("unit | file:lines | tokens | decision | net effect | content value | context cost | text")
    for row in rows:
        parts.append(
            f"{row.unit} | {row.file}:{row.lines[0]}-{row.lines[1]} | {row.tokens} | {row.decision} | "
            f"{_number(row.net_effect)} | {_number(row.content_value)} | {_number(row.context_cost)} | {row.preview}"
        )
    if keep_tokens is not None:
        parts.append(f"Keep at most {keep_tokens:.0%} of the skill's tokens.")
    for number, reason in enumerate(rejected, start=1):
        parts.append(f"Your answer {number} was rejected: {reason}. Answer again, fixing that.")
    return "\n\n".join(parts)


def parse_edit(answer: str, original: Mapping[str, bytes]) -> dict[str, bytes]:
    """The skill tree the answer describes, or :class:`InvalidEdit` naming what is wrong with it."""
    tree: dict[str, bytes] = {}
    named: list[str] = []
    for match in _FILE_BLOCK.finditer(answer):
        path, text = match.group(1), match.group(2)
        named.append(path)
        if path in original and not _is_text(original[path]):
            raise InvalidEdit(f"{path} is not a text file: keep it or drop it, never rewrite it")
        tree[path] = text.encode("utf-8")
    for match in _KEEP.finditer(answer):
        path = match.group(1)
        named.append(path)
        if path in original:
            tree[path] = original[path]
    if not named:
        raise InvalidEdit('the answer holds no <file path="…"> block and no <keep path="…"/>')
    unknown = sorted({path for path in named if path not in original})
    if unknown:
        raise InvalidEdit(f"it names files the skill does not have: {', '.join(unknown[:5])}")
    twice = sorted({path for path in named if named.count(path) > 1})
    if twice:
        raise InvalidEdit(f"it names {', '.join(twice[:5])} more than once")
    if SKILL_FILE not in tree:
        raise InvalidEdit(f"it drops {SKILL_FILE}: a skill needs one")
    front, _body, _line = split_frontmatter(tree[SKILL_FILE].decode("utf-8", errors="replace"))
    if front.data is None:
        problem = front.problems[0].message if front.problems else "no frontmatter"
        raise InvalidEdit(f"its {SKILL_FILE} frontmatter is broken: {problem}")
    before, _, _ = split_frontmatter(original[SKILL_FILE].decode("utf-8", errors="replace"))
    name = (before.data or {}).get("name")
    if name is not None and front.data.get("name") != name:
        raise InvalidEdit(f"its frontmatter renames the skill ({front.data.get('name')!r}, not {name!r})")
    dangling = dangling_references(tree, original)
    if dangling:
        raise InvalidEdit(dangling[0])
    return {path: tree[path] for path in original if path in tree}


def dangling_references(tree: Mapping[str, bytes], original: Mapping[str, bytes]) -> list[str]:
    """Each file the edit dropped that a file it kept still names: a kept unit would point at nothing.

    The static scan checks mentions only inside folders the skill still has, so an edit that drops the
    last script would pass it; this check reads every kept text file for the dropped paths.
    """
    dropped = [path for path in original if path not in tree]
    found: list[str] = []
    for path, data in tree.items():
        if not _is_text(data):
            continue
        text = data.decode("utf-8")
        found.extend(f"it drops {gone}, which {path} still refers to" for gone in dropped if gone in text)
    return found
