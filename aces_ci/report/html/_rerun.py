"""Rerun records' part of the page: the history of each skill's gated lift across reruns, releases and models.

Each ``reruns/<date>-<run>.json`` record (``schemas/rerun.schema.json``) holds per skill the lift
then, the release baseline it was compared with and the change. Given several, the page orders
them by time and draws each skill's lifts one under another with their intervals, so drift is seen
at a glance; the table beside holds the same numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._escape import interval, number, text
from ._svg import ForestRow, forest


def _row(record: dict[str, Any], skill: str, entry: dict[str, Any]) -> str:
    lift, base, change = entry.get("lift"), entry.get("baseline"), entry.get("change")
    agent = record["agent"]
    return (
        f'<tr data-skill="{text(skill, 200)}"><td>{text(record["measured_at"], 40)}</td>'
        f"<td><code>{text(record['commit'] or 'not recorded', 60)}</code></td>"
        f"<td>{text(agent['model'], 120)} / {text(agent['harness'], 60)}</td><td>{text(skill, 200)}</td>"
        f'<td class="num" data-v="{number(None if lift is None else lift["delta"], 4, missing="")}">'
        f"{number(None if lift is None else lift['delta'], 3, signed=True)}</td>"
        f'<td class="num">{interval(None if lift is None else lift["ci"])}</td>'
        f"<td>{'—' if base is None else text(base['release'], 80) + ' ' + number(base['delta'], 3, signed=True)}</td>"
        f"<td>{'not comparable' if change is None else text(change['label'], 40)}"
        f"{'' if not entry['note'] else '<br><span class=muted>' + text(entry['note'], 300) + '</span>'}</td></tr>"
    )


def history_block(records: Sequence[dict[str, Any]]) -> str:
    """Every skill's lift per rerun, oldest first: a plot per skill and one table of all."""
    ordered = sorted(records, key=lambda r: r["measured_at"])
    skills = sorted({name for r in ordered for name in r["skills"]})
    plots = []
    for skill in skills:
        rows = [
            ForestRow(
                f"{r['measured_at'][:10]} {r['agent']['model']}",
                r["skills"][skill]["lift"]["delta"],
                *r["skills"][skill]["lift"]["ci"],
            )
            for r in ordered
            if skill in r["skills"] and r["skills"][skill].get("lift") is not None
        ]
        if rows:
            plots.append(f"<h4>{text(skill, 200)}</h4>" + forest(f"Lift across reruns, {skill}", rows, None, None))
    table = "".join(_row(r, skill, r["skills"][skill]) for r in ordered for skill in sorted(r["skills"]))
    return (
        f"<h3>History across reruns ({len(ordered)} record(s))</h3>{''.join(plots)}"
        '<table class="history sortable"><thead><tr><th>Measured</th><th>Commit</th><th>Model / harness</th>'
        '<th>Skill</th><th class="num">Lift</th><th class="num">Interval</th><th>Release baseline</th>'
        f"<th>Change</th></tr></thead><tbody>{table}</tbody></table>"
    )
