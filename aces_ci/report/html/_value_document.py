"""The SkillSV part's document view: the skill's real lines with each unit's value beside them.

Since schema 3 the ``value --json`` document keeps the text of the files the units cover
(``documents``, bounded): the view shows their lines, numbered, each run of a unit's lines with its
net effect as a heat margin (green helps, red hurts, in steps of the decision margin δ; hatched when
not estimated) and, beside its first line, the unit's decision, effect and interval. Long runs fold,
long resources start folded, a cut file says where it was cut and lists the units past the cut. A
result of schema 2 keeps no text: its units' previews are shown instead. Every line is untrusted
text, escaped like everything else on the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._escape import interval, number, text


def heat_class(effect: float | None, margin: float) -> str:
    """The heat margin's class: ``h1``–``h3`` helps by up to 1δ / 3δ / more, ``n1``–``n3`` hurts, ``hx`` unknown."""
    if effect is None:
        return "hx"
    step = effect / (margin if margin > 0 else 0.01)
    if step == 0:
        return "h0"
    if step > 0:
        return "h1" if step < 1 else "h2" if step < 3 else "h3"
    return "n1" if step > -1 else "n2" if step > -3 else "n3"


def _badge(decision: str) -> str:
    return f'<span class="verdict v-{text(decision, 20)}">{text(decision, 20)}</span>'


BLOCK_FOLD = 24
"""A unit's run of lines longer than this shows its first :data:`BLOCK_SHOWN` lines and folds the rest."""

BLOCK_SHOWN = 12

DOCUMENT_OPEN_LINES = 60
"""A resource longer than this starts folded (SKILL.md always starts open)."""


@dataclass(frozen=True)
class _Shown:
    """One unit's figures as the page shows them (the trigger unit's are the trigger value's)."""

    id: str
    effect: float | None
    ci: Any
    decision: str
    tokens: int
    where: str


def _shown(unit: dict[str, Any], trigger: dict[str, Any] | None) -> _Shown:
    first, last = unit["lines"]
    where = f"{unit['file']}:{first}–{last}"
    if unit["kind"] == "trigger":
        effect = None if trigger is None else trigger["value"]
        ci = None if trigger is None else trigger["ci"]
        return _Shown(unit["id"], effect, ci, "trigger", unit["tokens"], where)
    decision = unit.get("decision", "unresolved")
    return _Shown(unit["id"], unit.get("net_effect"), unit.get("ci"), decision, unit["tokens"], where)


def _annotation(shown: _Shown, preview: str | None = None) -> str:
    """The unit's decision, net effect and interval: once per unit, beside its first lines."""
    quoted = "" if preview is None else f"<pre>{text(preview, 2000)}</pre>"
    return (
        f'<div class="unit" data-unit="{text(shown.id, 20)}" data-effect="{number(shown.effect, 4, missing="")}">'
        f"{_badge(shown.decision)} <b>{number(shown.effect, 3, signed=True)}</b><br>"
        f'<span class="muted">{interval(shown.ci)}</span><br><span class="muted">{text(shown.id, 20)} · '
        f"{shown.tokens} tok · {text(shown.where, 160)}</span>{quoted}</div>"
    )


def _heat(shown: _Shown | None, margin: float) -> str:
    if shown is None:
        return '<div class="heat"></div>'
    title = f"{shown.id}: net effect {number(shown.effect, 3, signed=True)} ({interval(shown.ci)}), {shown.decision}"
    return f'<div class="heat {heat_class(shown.effect, margin)}" title="{text(title, 300)}"></div>'


def _ranges(unit: dict[str, Any]) -> list[tuple[str, int, int]]:
    """Where a unit's text lies: its own span and, for a contracted cycle, each member's."""
    ranges = [(unit["file"], unit["lines"][0], unit["lines"][1])]
    for member in unit.get("members", []):
        ranges += _ranges(member)
    return ranges


def _owners(doc: dict[str, Any]) -> dict[str, list[tuple[int, int, str]]]:
    """Per file, every unit's line ranges, widest first (so a narrower unit inside a wider one shows over it)."""
    by_file: dict[str, list[tuple[int, int, str]]] = {}
    for unit in doc["units"]:
        for file, first, last in _ranges(unit):
            by_file.setdefault(file, []).append((first, last, unit["id"]))
    for ranges in by_file.values():
        ranges.sort(key=lambda r: r[0] - r[1])
    return by_file


def _numbered(lines: list[str], first: int) -> str:
    return "".join(f'<span class="ln">{first + i}</span>{text(line)}\n' for i, line in enumerate(lines))


def _block(lines: list[str], first: int, shown: _Shown | None, annotated: bool, margin: float) -> str:
    """One run of lines owned by one unit (or by none): heat margin, numbered lines, the unit's annotation."""
    if len(lines) > BLOCK_FOLD:
        rest = len(lines) - BLOCK_SHOWN
        body = (
            f"<pre>{_numbered(lines[:BLOCK_SHOWN], first)}</pre><details><summary>{rest} more lines</summary>"
            f"<pre>{_numbered(lines[BLOCK_SHOWN:], first + BLOCK_SHOWN)}</pre></details>"
        )
    else:
        body = f"<pre>{_numbered(lines, first)}</pre>"
    owner = "" if shown is None else f' data-owner="{text(shown.id, 20)}"'
    side = _annotation(shown) if shown is not None and annotated else "<div></div>"
    return f'<div class="blk"{owner}>{_heat(shown, margin)}<div class="src">{body}</div>{side}</div>'


def _text_document(
    document: dict[str, Any],
    ranges: list[tuple[int, int, str]],
    units: dict[str, _Shown],
    placed: set[str],
    margin: float,
) -> str:
    lines = document["text"].split("\n")
    if document["text"].endswith("\n"):
        lines.pop()
    owner: list[str | None] = [None] * len(lines)
    for first, last, ranged in ranges:
        for index in range(max(first, 1) - 1, min(last, len(lines))):
            owner[index] = ranged
    blocks, start = [], 0
    for index in range(1, len(lines) + 1):
        if index == len(lines) or owner[index] != owner[start]:
            unit_id = owner[start]
            shown = None if unit_id is None else units[unit_id]
            blocks.append(_block(lines[start:index], start + 1, shown, unit_id not in placed, margin))
            if unit_id is not None:
                placed.add(unit_id)
            start = index
    cut = ""
    if document["truncated"]:
        cut = (
            f'<p class="missing cut">Cut at line {document["shown_lines"]} of {document["lines"]}: the result keeps '
            "at most 100,000 characters of a file (400,000 of all files); units past the cut are listed below.</p>"
        )
    return f'<div class="doc">{"".join(blocks)}</div>{cut}'


def _documents(doc: dict[str, Any], units: dict[str, _Shown], margin: float) -> str:
    owners = _owners(doc)
    placed: set[str] = set()
    parts = []
    for document in doc["documents"]:
        file = document["file"]
        if document["text"] is None:
            what = f"binary, {document['bytes']:,} bytes, not embedded" if document["binary"] else "not in the result"
            body = f'<p class="missing">{text(what)}</p>'
        else:
            body = _text_document(document, owners.get(file, []), units, placed, margin)
        count = len({unit_id for _, _, unit_id in owners.get(file, [])})
        is_open = " open" if file == doc["documents"][0]["file"] or document["lines"] <= DOCUMENT_OPEN_LINES else ""
        parts.append(
            f'<details class="document" data-file="{text(file, 300)}"{is_open}><summary><code>{text(file, 300)}'
            f"</code> — {document['lines']} lines, {count} unit(s)</summary>{body}</details>"
        )
    rest = [u for u in doc["units"] if u["id"] not in placed]
    if rest:
        listed = "".join(_annotation(units[u["id"]], u["preview"]) for u in rest)
        parts.append(f'<p class="note">Units whose lines are not shown above (binary, or past a cut):</p>{listed}')
    return "".join(parts)


def _previews(doc: dict[str, Any], units: dict[str, _Shown], margin: float) -> str:
    """A result written before the documents were kept (schema 2): each unit's preview, in file and line order."""
    ordered = sorted(doc["units"], key=lambda u: (u["file"], u["lines"][0], u["id"]))
    blocks = "".join(
        f'<div class="blk">{_heat(units[u["id"]], margin)}<div class="src"><pre>{text(u["preview"], 2000)}</pre>'
        f"</div>{_annotation(units[u['id']])}</div>"
        for u in ordered
    )
    return f'<div class="doc">{blocks}</div>'


def document_view(doc: dict[str, Any]) -> str:
    """The skill line by line with each unit's heat margin and decision (its previews for a schema-2 result)."""
    margin = doc["settings"]["margin"]
    units = {u["id"]: _shown(u, doc.get("trigger_value")) for u in doc["units"]}
    legend = (
        f"the margin is each unit's net effect in steps of δ = {number(margin, 3)} (green helps, red hurts, "
        "hatched not estimated), its decision beside its first line."
    )
    if "documents" not in doc:
        return (
            "<h4>The skill, unit by unit</h4><p class=note>This result (schema 2) keeps no document text: each "
            f"unit's preview in file and line order; {legend}</p>{_previews(doc, units, margin)}"
        )
    return f"<h4>The skill, line by line</h4><p class=note>The files the units cover; {legend}</p>" + _documents(
        doc, units, margin
    )
