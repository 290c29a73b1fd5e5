"""The trigger trial in words, from its JSON document: the Markdown section and the terminal's lines.

Both read the document ``render_trigger_json`` writes (``schemas/trigger-result.schema.json``), not
the model, so ``trial --triggers`` and ``aces-ci report trigger.json --markdown`` say the same thing
from a fresh run or from last month's artifact. Markdown: per skill its trigger recall (k/n queries
with the interval), the false-trigger rate, the recall gate's verdict and, with ``--against``, the
recall then and the change with its interval; then the confusion pairs (which skill took a
should-trigger query when this one did not) in a collapsed ``<details>`` block. Skill names come
from the pull request, so each goes through :mod:`aces_ci.report._md_escape` for the place it lands;
the terminal's lines are redacted and made printable by their caller and here.
"""

from __future__ import annotations

from typing import Any

from ..safe_text import one_line
from ._md_escape import cell, code_span, html_text

_NAME_LIMIT = 120
_VERDICT_WORDS = {
    "pass": "✅ pass",
    "fail": "❌ fail",
    "underpowered": "⚠️ underpowered",
    "unmeasured": "➖ unmeasured",
    None: "not gated",
}


def rate_text(rate: dict[str, Any]) -> str:
    """``0.83 (10/12 queries) [0.52, 0.98]``; ``not measured (n = 0)`` without queries."""
    if rate["value"] is None or rate["interval"] is None:
        return "not measured (n = 0)"
    low, high = rate["interval"]
    hits = rate["value"] * rate["n"]
    count = f"{round(hits)}/{rate['n']}" if abs(hits - round(hits)) < 1e-9 else f"{hits:.1f}/{rate['n']}"
    return f"{rate['value']:.2f} ({count} queries) [{low:.2f}, {high:.2f}]"


def change_text(against: dict[str, Any]) -> str:
    """``recall at the earlier ref 0.00, change +1.00 [+0.70, +1.00] over 4 queries: improvement``."""
    change, then = against["change"], against["recall_then"]
    before = "n = 0" if then["value"] is None else f"{then['value']:.2f}"
    if change["delta"] is None or change["interval"] is None:
        return f"recall at the earlier ref {before}; change not comparable ({change['method']})"
    low, high = change["interval"]
    return (
        f"recall at the earlier ref {before}, change {change['delta']:+.2f} [{low:+.2f}, {high:+.2f}] "
        f"over {change['n']} queries: {change['label']}"
    )


def _skill_line(doc: dict[str, Any], skill: dict[str, Any]) -> str:
    gated = f" against {doc['min_recall']:g}" if doc["min_recall"] is not None else ""
    parts = [
        f"recall {rate_text(skill['recall'])}",
        f"false triggers {rate_text(skill['false_trigger'])}",
        _VERDICT_WORDS[skill["verdict"]] + gated,
    ]
    if skill["against"] is not None:
        parts.append(change_text(skill["against"]))
    return f"- {code_span(skill['skill'], _NAME_LIMIT)}: " + "; ".join(parts)


def _confusion_block(doc: dict[str, Any]) -> list[str]:
    rows = [(skill["skill"], pair["taken_by"], pair["count"]) for skill in doc["skills"] for pair in skill["confusion"]]
    if not rows:
        return []
    total = sum(count for _, _, count in rows)
    summary = html_text(f"Confusion: {total} should-trigger decisions went elsewhere", 200)
    lines = ["", f"<details><summary>{summary}</summary>", "", "| Skill | Taken by | Decisions |", "|---|---|---:|"]
    lines += [f"| {cell(skill, _NAME_LIMIT)} | {cell(taker, _NAME_LIMIT)} | {count} |" for skill, taker, count in rows]
    lines += ["", "</details>"]
    return lines


def trigger_markdown(doc: dict[str, Any]) -> str:
    """The trigger trial in GitHub Markdown: one line per skill, the confusion pairs collapsed.

    The same section stands alone (``--markdown``, ``aces-ci report --markdown``) and sits in ``ci``'s comment.
    """
    against = ""
    if doc["against"] is not None:
        against = f", against {code_span(doc['against']['ref'], 80)} ({doc['against']['commit'][:12]})"
    lines = [
        f"#### Trigger trial: the skills as {cell(doc['host'], 40)} lists them{against}",
        "",
        f"{doc['runs']} run(s) per query; the query is the unit (its runs averaged first); 95% intervals.",
        "",
    ]
    lines += [_skill_line(doc, skill) for skill in doc["skills"]]
    lines += _confusion_block(doc)
    lines += ["", f"{doc['model_calls']} model calls, {doc['tokens']:,} tokens."]
    return "\n".join(lines) + "\n"


def _shown(rate: dict[str, Any]) -> str:
    if rate["value"] is None or rate["interval"] is None:
        return "n=0"
    low, high = rate["interval"]
    return f"{rate['value']:.2f} [{low:.2f}, {high:.2f}] n={rate['n']}"


def trigger_text(doc: dict[str, Any]) -> str:
    """The terminal's lines: per skill recall, false triggers and who took its queries; the change with --against."""
    lines = [f"trigger trial as {one_line(doc['host'], 40)} lists the skills, {doc['runs']} run(s) per query"]
    for skill in doc["skills"]:
        taken = ", ".join(f"{one_line(p['taken_by'], _NAME_LIMIT)} ×{p['count']}" for p in skill["confusion"]) or "-"
        lines.append(
            f"{one_line(skill['skill'], _NAME_LIMIT)}: recall {_shown(skill['recall'])}; "
            f"false triggers {_shown(skill['false_trigger'])}; should-trigger queries taken by: {taken}"
        )
        if skill["against"] is not None and doc["against"] is not None:
            lines.append(f"  {one_line(doc['against']['ref'], 80)}: {change_text(skill['against'])}")
    lines.append(f"{doc['model_calls']} model calls, {doc['tokens']:,} tokens")
    return "\n".join(lines) + "\n"
