"""A SkillSV result's part of the page: the document with each unit's value, the value-vs-cost map,
the section tree and the pruning curves.

Read from the ``value --json`` document (``schemas/skillsv-value.schema.json``). Since schema 3 it
keeps the text of the files the units cover (``documents``, bounded): the page shows their real
lines, numbered, each run of a unit's lines with its net effect as a heat margin (green helps, red
hurts, in steps of the decision margin δ; hatched when not estimated) and, beside its first line,
the unit's decision, effect and interval. Long runs fold, long resources start folded, a cut file
says where it was cut. A result of schema 2 keeps no text: its units' previews are shown instead.
Every line is untrusted text, escaped like everything else on the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._escape import interval, number, text
from ._shell import missing
from ._svg import Curve, MapPoint, curves, value_cost_map


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


def _document(doc: dict[str, Any]) -> str:
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


def _pair(ci: list[float] | None) -> tuple[float, float] | None:
    return None if ci is None else (ci[0], ci[1])


def _map(doc: dict[str, Any]) -> str:
    points = [
        MapPoint(
            u["id"],
            u.get("decision", "unresolved"),
            u["context_cost"],
            u["content_value"],
            _pair(u.get("context_cost_ci")),
            _pair(u.get("content_value_ci")),
        )
        for u in doc["units"]
        if u.get("content_value") is not None and u.get("context_cost") is not None
    ]
    if not points:
        return missing("Content value vs context cost: not in this result (measured with the del operator only).")
    legend = (
        '<p class="note">Each unit with both 95% intervals; green keep, red delete, amber compress, negligible or '
        "unresolved; units to delete or compress are named.</p>"
    )
    return (
        "<h4>Content value vs context cost</h4>"
        + legend
        + value_cost_map(f"Content value vs context cost, {doc['skill']}", points)
    )


def _groups(doc: dict[str, Any]) -> str:
    if not doc["groups"]:
        return missing("Section tree: the result holds no sections.")
    rows = "".join(
        f"<tr><td>{text(g['label'], 200)}</td><td>{text(g['file'], 120)}:{g['line']}</td>"
        f'<td class="num">{len(g["units"])}</td><td class="num">{number(g["net_effect"], 3, signed=True)}</td>'
        f'<td class="num">{interval(g["ci"])}</td></tr>'
        for g in doc["groups"]
    )
    return (
        '<h4>Sections</h4><table class="groups sortable"><thead><tr><th>Section</th><th>Where</th>'
        '<th class="num">Units</th><th class="num">Net effect (sum)</th><th class="num">Interval</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
    )


def _pruning(doc: dict[str, Any]) -> str:
    held = doc.get("held_out")
    if held is None or not held["curves"]:
        return missing("Pruning curves: not measured (run value with --holdout to test pruning on held-out tasks).")
    lines = [Curve(c["method"], c["removed"], c["scores"], c["auc"]) for c in held["curves"]]
    aucs = "".join(f"<li>{text(c.method, 20)}: AUC {number(c.auc, 3)}</li>" for c in lines)
    return (
        f"<h4>Pruning on {held['tasks']} held-out tasks</h4>"
        + curves(f"Pruning curves, {doc['skill']}", lines)
        + f'<ul class="aucs">{aucs}</ul>'
    )


def _summary(doc: dict[str, Any]) -> str:
    decisions = doc.get("decisions")
    lift = doc.get("content_lift")
    closure = doc.get("closure_ratio")
    problem = doc.get("failure") or doc.get("error")
    return (
        f"<p>Oracle <b>{text(doc['oracle'], 120)}</b>, {text(doc['method'], 20)} values under the "
        f"{text(doc['order_distribution'], 20)} order distribution; score: "
        f"{text(doc['settings']['score']['definition'], 300)}."
        f" Content lift Λ {number(None if lift is None else lift['value'], 3, signed=True)}"
        f" ({interval(None if lift is None else lift['ci'])}); closure ratio "
        f"{number(None if closure is None else closure['value'], 2)}.</p>"
        + ("" if decisions is None else f"<p class=decisions>{text(decisions['summary'], 600)}</p>")
        + ("" if problem is None else f"<p class=missing>{text(problem, 600)}</p>")
    )


def value_block(doc: dict[str, Any], source: str) -> str:
    """One skill's SkillSV valuation: summary, document with heat margin, map, section tree, pruning curves."""
    return (
        f'<div class="skill-value" data-skill="{text(doc["skill"], 200)}"><h3>{text(doc["skill"], 120)} '
        f"<span class=muted>from {text(source, 200)}</span></h3>{_summary(doc)}{_document(doc)}{_map(doc)}"
        f"{_groups(doc)}{_pruning(doc)}</div>"
    )


def value_cost(doc: dict[str, Any]) -> str:
    """What the valuation spent, against the full two-operator audit."""
    r = doc["rollouts"]
    return (
        f'<p class="value-cost">SkillSV of {text(doc["skill"], 120)}: {r["spent"]:,} rollouts '
        f"({r['this_run']:,} this run, {r['reused']:,} reused, {r['served_from_cache']:,} from cache; the full "
        f"audit would take {r['full_audit']:,}), {number(r['cost_usd'], 4)} USD"
        f"{'' if doc['stopped_by'] is None else ', stopped by ' + text(doc['stopped_by'], 40)}.</p>"
    )
