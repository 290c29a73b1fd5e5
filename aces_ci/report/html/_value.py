"""A SkillSV result's part of the page: the document with each unit's value (:mod:`._value_document`), the
value-vs-cost map, the section tree and the pruning curves, read from the ``value --json`` document
(``schemas/skillsv-value.schema.json``).
"""

from __future__ import annotations

from typing import Any

from ._escape import interval, number, text
from ._shell import missing
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
        f"<span class=muted>from {text(source, 200)}</span></h3>{_summary(doc)}{document_view(doc)}{_map(doc)}"
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
