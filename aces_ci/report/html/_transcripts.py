"""A case's first runs side by side as transcripts: each step's role and text, tool calls, results, skill touches.

The transcripts come from the trial JSON (``cases[].with_transcript`` / ``control_transcript``,
already bounded and redacted when the trial wrote them); every string in them is a model's or a
tool's output, so each goes through :func:`~aces_ci.report.html._escape.text`. Tool calls and
skill touches carry their own classes (``tool-call``, ``skill-event``) so they stand out, and long
texts show their start with the rest folded into a ``<details>``. A result written before
transcripts were recorded has no such keys, and the view says so.
"""

from __future__ import annotations

from typing import Any

from ._escape import text

FOLD_CHARS = 300
"""Characters of a step's text or a tool result shown before the rest is folded."""
_ROLES = {"system": "System", "user": "User", "agent": "Agent"}


def folded(value: str, css: str = "") -> str:
    """``value`` in a ``<pre>``, its first :data:`FOLD_CHARS` characters shown and the rest in a ``<details>``."""
    cls = f' class="{css}"' if css else ""
    if len(value) <= FOLD_CHARS:
        return f"<pre{cls}>{text(value)}</pre>"
    return (
        f"<pre{cls}>{text(value[:FOLD_CHARS])}</pre><details><summary>{len(value) - FOLD_CHARS} more characters"
        f"</summary><pre{cls}>{text(value[FOLD_CHARS:])}</pre></details>"
    )


def _call(call: dict[str, Any]) -> str:
    return (
        f'<div class="tool-call"><b>tool call</b> <code>{text(call["name"], 200)}</code>'
        f"{folded(call['arguments'])}</div>"
    )


def _step(step: dict[str, Any]) -> str:
    source = str(step["source"])
    events = "".join(f'<div class="skill-event">{text(event, 400)}</div>' for event in step["skill_events"])
    calls = "".join(_call(call) for call in step["calls"])
    results = "".join(f'<div class="tool-result"><b>tool result</b>{folded(r)}</div>' for r in step["results"])
    body = folded(step["text"]) if step["text"] else ""
    marked = " has-skill" if step["skill_events"] else ""
    return (
        f'<li class="step s-{text(source, 10)}{marked}"><span class="role">{text(_ROLES.get(source, source), 20)}'
        f"</span>{events}{body}{calls}{results}</li>"
    )


def _transcript(label: str, transcript: dict[str, Any] | None) -> str:
    if transcript is None:
        return f"<div><h4>{label}</h4><p class=note>No run of this arm for this case.</p></div>"
    steps = "".join(_step(step) for step in transcript["steps"])
    note = transcript.get("note")
    tail = "" if not note else f"<p class=note>{text(note, 600)}</p>"
    return f'<div><h4>{label}</h4><ol class="steps">{steps}</ol>{tail}</div>'


def transcript_pair(case: dict[str, Any]) -> str:
    """Both arms' first-run transcripts of one ``cases[]`` entry, or why there are none."""
    if "with_transcript" not in case and "control_transcript" not in case:
        return "<p class=note>Transcripts were not recorded in this trial result (written before they were).</p>"
    return (
        f'<div class="transcripts">{_transcript("With the skill, run 1", case.get("with_transcript"))}'
        f"{_transcript('Control, run 1', case.get('control_transcript'))}</div>"
    )
