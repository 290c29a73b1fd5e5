"""A SkillSV result's part of the page: the decisions and the run's precision, the document with each unit's
value (:mod:`._value_document`), the value-vs-cost map, what would settle each unresolved unit, the interactions
the model is sure of, the section tree and the pruning curves, read from the ``value --json`` document
(``schemas/skillsv-value.schema.json``; an older result without a field shows the section without it).
"""

from __future__ import annotations

from typing import Any

from .._links import SourceLinks
from .._value_markdown import forecast_cell, precision_text
from ._escape import interval, number, text
from ._shell import missing
from ._source import linked
from ._svg import Curve, MapPoint, curves, value_cost_map
from ._value_document import document_view


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


def _section_where(group: dict[str, Any], links: SourceLinks | None) -> str:
    return linked(f"{text(group['file'], 120)}:{group['line']}", links, group["file"], group["line"])


def _groups(doc: dict[str, Any], links: SourceLinks | None) -> str:
    if not doc["groups"]:
        return missing("Section tree: the result holds no sections.")
    rows = "".join(
        f"<tr><td>{text(g['label'], 200)}</td><td>{_section_where(g, links)}</td>"
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


def _closure_is_check(doc: dict[str, Any]) -> bool:
    """Σφ/Λ can be off 1 only where truncation can break it; otherwise it is an identity, not a check."""
    return doc["method"] == "estimate" and doc["settings"].get("tolerance") is not None


def _precision(decisions: dict[str, Any] | None) -> str:
    """What the run's precision could tell apart, in the comment's words (:func:`precision_text`)."""
    if decisions is None or decisions.get("resolution") is None:
        return ""
    resolution = decisions["resolution"]
    sentence = precision_text(resolution["half_width"], resolution["negligible_within"], decisions["margin"])
    return f"<p class=precision>{text(sentence)}</p>"


def _summary(doc: dict[str, Any]) -> str:
    decisions = doc.get("decisions")
    lift = doc.get("content_lift")
    closure = doc.get("closure_ratio")
    problem = doc.get("failure") or doc.get("error")
    closure_text = (
        f"; closure ratio {number(None if closure is None else closure['value'], 2)}" if _closure_is_check(doc) else ""
    )
    return (
        f"<p>Oracle <b>{text(doc['oracle'], 120)}</b>, {text(doc['method'], 20)} values under the "
        f"{text(doc['order_distribution'], 20)} order distribution; score: "
        f"{text(doc['settings']['score']['definition'], 300)}."
        f" Content lift Λ {number(None if lift is None else lift['value'], 3, signed=True)}"
        f" ({interval(None if lift is None else lift['ci'])}){closure_text}.</p>"
        + ("" if decisions is None else f"<p class=decisions>{text(decisions['summary'], 600)}</p>")
        + _precision(decisions)
        + ("" if problem is None else f"<p class=missing>{text(problem, 600)}</p>")
    )


def _more(unit: dict[str, Any], runs: int) -> str:
    """The unit's forecast in rollouts (its scores times ``runs``), as the comment shows it (:func:`forecast_cell`);
    without one, the unit's reason (a unit held for what requires it says what deleting them would do)."""
    point = unit.get("scores_to_decide")
    if not isinstance(point, int):
        reason = unit.get("reason")
        return text(reason, 300) if isinstance(reason, str) and reason else "—"
    span = unit.get("scores_to_decide_range")
    rollouts = None
    if isinstance(span, list) and len(span) == 2 and isinstance(span[0], int):
        rollouts = (span[0] * runs, None if span[1] is None else span[1] * runs)
    return text(forecast_cell(point * runs, rollouts))


def _where(unit: dict[str, Any], links: SourceLinks | None) -> str:
    first, last = unit["lines"]
    return linked(f"{text(unit['file'], 120)}:{first}", links, unit["file"], first, last)


def _unresolved(doc: dict[str, Any], links: SourceLinks | None) -> str:
    """Each unresolved unit with the rollouts that would decide it, cheapest first."""
    waiting = [u for u in doc["units"] if u.get("decision") == "unresolved"]
    if not waiting:
        return ""
    runs = doc["settings"]["score"].get("runs", 1)
    waiting.sort(key=lambda u: (u.get("scores_to_decide") is None, u.get("scores_to_decide") or 0, u["id"]))
    rows = "".join(
        f"<tr><td>{text(u['id'], 20)}</td><td>{_where(u, links)}</td>"
        f'<td class="num">{number(u.get("net_effect"), 3, signed=True)}</td>'
        f'<td class="num">{interval(u.get("ci"))}</td><td class="num">{_more(u, runs)}</td></tr>'
        for u in waiting
    )
    return (
        f"<h4>Unresolved units: what would settle each</h4><p class=note>More rollouts ({runs} a score) after which "
        "the interval would likely decide the unit; in brackets, the middle 80% of the forecast's simulated "
        'continued runs.</p><table class="unresolved sortable"><thead><tr><th>Unit</th><th>Where</th>'
        '<th class="num">Net effect</th><th class="num">Interval</th><th class="num">More rollouts (likely)</th>'
        f"</tr></thead><tbody>{rows}</tbody></table>"
    )


def _interactions(doc: dict[str, Any]) -> str:
    pairs = doc.get("interactions") or []
    if not pairs:
        return ""
    rows = "".join(
        f"<tr><td>{text(p['units'][0], 20)} × {text(p['units'][1], 20)}</td>"
        f"<td>{'work together' if p['effect'] > 0 else 'overlap'}</td>"
        f'<td class="num">{number(p["effect"], 3, signed=True)}</td><td class="num">{interval(p.get("ci"))}</td></tr>'
        for p in pairs
    )
    return (
        "<h4>Interactions the model is sure of</h4><p class=note>Pairs a Bonferroni test over every pair tested puts "
        "away from 0 (5% for the skill); the size is what the pair adds when both are in, shrunk toward 0 by the "
        'sparse fit, so it reads low.</p><table class="interactions"><thead><tr><th>Units</th><th>Meaning</th>'
        f'<th class="num">Pair effect</th><th class="num">Interval</th></tr></thead><tbody>{rows}</tbody></table>'
    )


def value_block(doc: dict[str, Any], source: str, links: SourceLinks | None = None) -> str:
    """One skill's SkillSV valuation: summary, document with heat margin, map, section tree, pruning curves; each
    file:line linked with ``links`` (prefixed with the skill's folder)."""
    return (
        f'<div class="skill-value" data-skill="{text(doc["skill"], 200)}"><h3>{text(doc["skill"], 120)} '
        f"<span class=muted>from {text(source, 200)}</span></h3>{_summary(doc)}{document_view(doc)}{_map(doc)}"
        f"{_unresolved(doc, links)}{_interactions(doc)}{_groups(doc, links)}{_pruning(doc)}</div>"
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
