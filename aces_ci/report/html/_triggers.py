"""A trigger trial's part of the page: per skill its recall and false-trigger rate with intervals,
the recall gate's verdict, the change since ``--against``'s ref, and who took its queries.

Read from the ``trial --triggers --json`` document (``schemas/trigger-result.schema.json``); the
sentences are the Markdown section's (:mod:`aces_ci.report._trigger_markdown`), so the page and the
comment word a rate the same way. A share without queries (n = 0) is said, never drawn as zero.
"""

from __future__ import annotations

from typing import Any

from .._trigger_markdown import change_text, rate_text
from ._escape import number, text
from ._svg import RateRow, rates


def _badge(verdict: str | None) -> str:
    word = "not gated" if verdict is None else verdict
    return f'<span class="verdict v-{text(word.replace(" ", "-"), 20)}">{text(word, 20)}</span>'


def _header(doc: dict[str, Any], source: str) -> str:
    against = doc["against"]
    since = "" if against is None else f", against {text(against['ref'], 80)} ({text(against['commit'][:12], 12)})"
    gate = (
        "recall not gated (no --min-recall)"
        if doc["min_recall"] is None
        else f"recall gated at {number(doc['min_recall'], 2)} on its interval"
    )
    return (
        f"<p>The skills as <b>{text(doc['host'], 40)}</b> lists them{since}, {doc['runs']} run(s) per query "
        f"(the query is the unit, its runs averaged first), 95% intervals; {gate}; {doc['model_calls']:,} model "
        f"calls, {doc['tokens']:,} tokens. <span class=muted>From {text(source, 200)}.</span></p>"
    )


def trigger_verdicts(doc: dict[str, Any], source: str) -> str:
    """The verdict section's lines: each skill's recall and its gate verdict."""
    items = "".join(
        f'<li data-skill="{text(s["skill"], 200)}">{text(s["skill"], 120)}: {_badge(s["verdict"])} recall '
        f"{text(rate_text(s['recall']), 200)}</li>"
        for s in doc["skills"]
    )
    return f"<p>Trigger trial as {text(doc['host'], 40)} lists the skills:</p><ul class=trigger-verdicts>{items}</ul>"


def _cell(rate: dict[str, Any]) -> str:
    return f'<td class="num" data-v="{number(rate["value"], 4, missing="")}">{text(rate_text(rate), 200)}</td>'


def _chart(doc: dict[str, Any]) -> str:
    rows = []
    for skill in doc["skills"]:
        for key, kind, word in (("recall", "recall", "recall"), ("false_trigger", "false", "false triggers")):
            rate = skill[key]
            if rate["value"] is not None and rate["interval"] is not None:
                low, high = rate["interval"]
                rows.append(RateRow(f"{skill['skill']} {word} n={rate['n']}", rate["value"], low, high, kind))
    if not rows:
        return '<p class="missing">No skill had a query of either kind: no share to draw.</p>'
    return rates(f"Trigger recall and false-trigger rate as {doc['host']} lists the skills", rows, doc["min_recall"])


def _confusion(doc: dict[str, Any]) -> str:
    rows = "".join(
        f"<tr><td>{text(skill['skill'], 120)}</td><td>{text(pair['taken_by'], 120)}</td>"
        f'<td class="num">{pair["count"]}</td></tr>'
        for skill in doc["skills"]
        for pair in skill["confusion"]
    )
    if not rows:
        return (
            "<p>Confusion: every should-trigger decision a skill missed went to no other skill, or none was missed.</p>"
        )
    return (
        "<h4>Confusion: who took a skill's should-trigger queries</h4>"
        '<table class="confusion sortable"><thead><tr><th>Skill</th><th>Taken by</th>'
        f'<th class="num">Decisions</th></tr></thead><tbody>{rows}</tbody></table>'
    )


def trigger_block(doc: dict[str, Any], source: str) -> str:
    """The whole trigger trial: header, chart, the table of rates with intervals, the confusion pairs."""
    body = "".join(
        f'<tr data-skill="{text(s["skill"], 200)}"><td>{text(s["skill"], 120)}</td>{_cell(s["recall"])}'
        f"{_cell(s['false_trigger'])}<td>{_badge(s['verdict'])}</td>"
        f"<td>{'—' if s['against'] is None else text(change_text(s['against']), 300)}</td></tr>"
        for s in doc["skills"]
    )
    table = (
        '<table class="triggers sortable"><thead><tr><th>Skill</th><th class="num">Recall (should-trigger queries)'
        '</th><th class="num">False triggers (should-not queries)</th><th>Verdict</th><th>Change since the ref</th>'
        f"</tr></thead><tbody>{body}</tbody></table>"
    )
    return f'<div class="trigger-trial">{_header(doc, source)}{_chart(doc)}{table}{_confusion(doc)}</div>'
