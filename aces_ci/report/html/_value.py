"""A SkillSV result's part of the page: the document with each unit's value, the value-vs-cost map,
the section tree and the pruning curves.

Read from the ``value --json`` document (``schemas/skillsv-value.schema.json``). The JSON keeps
each unit's file, line range and a preview of its text, not the whole skill: the document view is
those previews in file and line order, each with its net effect as a heat margin (green helps,
red hurts, in steps of the decision margin δ; hatched when not estimated) and its decision.
"""

from __future__ import annotations

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


def _unit(unit: dict[str, Any], margin: float, trigger: dict[str, Any] | None) -> str:
    first, last = unit["lines"]
    if unit["kind"] == "trigger":
        effect = None if trigger is None else trigger["value"]
        ci = None if trigger is None else trigger["ci"]
        decision = "trigger"
    else:
        effect, ci, decision = unit.get("net_effect"), unit.get("ci"), unit.get("decision", "unresolved")
    return (
        f'<div class="unit" data-unit="{text(unit["id"], 20)}" data-effect="{number(effect, 4, missing="")}">'
        f'<div class="heat {heat_class(effect, margin)}" title="net effect {number(effect, 3, signed=True)}"></div>'
        f"<div>{text(unit['file'], 120)}:{first}–{last}<br>{text(unit['id'], 20)} · {unit['tokens']} tok</div>"
        f"<pre>{text(unit['preview'], 2000)}</pre><div>{_badge(decision)}<br>{number(effect, 3, signed=True)}"
        f"<br><span class=muted>{interval(ci)}</span></div></div>"
    )


def _document(doc: dict[str, Any]) -> str:
    margin = doc["settings"]["margin"]
    units = sorted(doc["units"], key=lambda u: (u["file"], u["lines"][0], u["id"]))
    body = "".join(_unit(unit, margin, doc.get("trigger_value")) for unit in units)
    return (
        f"<h4>The skill, unit by unit</h4><p class=note>Previews of each unit as the result keeps them, in file "
        f"and line order; the margin is the unit's net effect in steps of δ = {number(margin, 3)}.</p>"
        f'<div class="doc">{body}</div>'
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
