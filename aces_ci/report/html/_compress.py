"""A compress result's part of the page: the proposal, each candidate's Δ on the held-out cases, what it removed.

Read from ``aces-ci compress --json`` (``schemas/compress.schema.json``; ``ci``'s ``mode: compress`` writes the
same file to its reports). Each candidate is a forest-plot row like a trial's lift (Δ = candidate −
original, its 95% interval; the red band is a loss beyond the tolerance, where no candidate is
accepted), then a table with tokens kept, Δ, n, the verdict and its reason, the units removed or
rewritten at their file and lines, and the candidate's diff folded. Every string — the skill's name,
paths, reasons, an editor's refused answers, the diff — comes from the skill or a model: all go
through :func:`~._escape.text`.
"""

from __future__ import annotations

from typing import Any

from .._links import SourceLinks
from ._escape import number, text
from ._source import linked
from ._svg import ForestRow, forest

DIFF_CHARS = 200_000
"""Characters of a candidate's diff the page shows; the JSON holds it all."""


def _badge(verdict: str) -> str:
    return f'<span class="verdict v-{text(verdict, 20)}">{text(verdict, 20)}</span>'


def _kept(candidate: dict[str, Any], original: int) -> str:
    share = candidate["tokens_kept"]
    if share is None or not candidate["files"]:
        return "—"
    return f"{number(share * 100, 0)}% ({candidate['tokens']:,} of {original:,})"


def _delta(candidate: dict[str, Any]) -> str:
    found = candidate["contrast"]
    if found is None or found["delta"] is None:
        return "not measured"
    ci = found["ci"]
    interval = "" if ci is None else f" [{number(ci[0], signed=True)}, {number(ci[1], signed=True)}]"
    return f"{number(found['delta'], signed=True)}{interval}"


def _headline(doc: dict[str, Any]) -> str:
    accepted = doc["accepted"]
    if accepted is not None:
        proposal = next(c for c in doc["candidates"] if c["kind"] == accepted)
        return (
            f"proposed: the {text(accepted, 20)} skill, {_kept(proposal, doc['original_tokens'])} tokens kept, "
            f"Δ {_delta(proposal)}"
        )
    if not doc["candidates"]:
        return "nothing to propose: " + text(doc["notes"][0] if doc["notes"] else "no candidate was built", 600)
    return "nothing accepted: " + "; ".join(
        f"{text(c['kind'], 20)} {text(c['verdict'], 20)}" for c in doc["candidates"]
    )


def compress_verdicts(doc: dict[str, Any]) -> str:
    """The verdict section's line: what is proposed for the skill."""
    return f'<p class="compress-verdict">Compression of <b>{text(doc["skill"], 120)}</b>: {_headline(doc)}</p>'


def _chart(doc: dict[str, Any]) -> str:
    measured = [(c, c["contrast"]) for c in doc["candidates"] if c["contrast"] is not None]
    rows = [
        ForestRow(f"{c['kind']} ({c['verdict']})", found["delta"], found["ci"][0], found["ci"][1])
        for c, found in measured
        if found["delta"] is not None and found["ci"] is not None
    ]
    if not rows:
        return '<p class="missing">No candidate was verified with an interval: no Δ to draw.</p>'
    title = f"Δ of each candidate against the original on the held-out cases, {doc['skill']}"
    # a candidate is accepted when its whole interval lies above the tolerance: the red band is what it may not reach
    return forest(title, rows, None, doc["tolerance"], fail_label="tolerance")


def _where(change: dict[str, Any], prefix: str, links: SourceLinks | None) -> str:
    first, last = change["lines"]
    label = f"<code>{text(prefix + change['file'], 300)}:{first}-{last}</code>"
    return linked(label, links, change["file"], first, last)


def _changes(candidate: dict[str, Any], skill_dir: str, links: SourceLinks | None) -> str:
    if not candidate["changes"]:
        return ""
    prefix = "" if skill_dir in ("", ".") else skill_dir.rstrip("/") + "/"
    rows = "".join(
        f"<tr><td><code>{text(change['unit'], 40)}</code></td>"
        f"<td>{_where(change, prefix, links)}</td>"
        f"<td>{text(change['change'], 20)}</td><td>{text(change['decision'] or 'unvalued', 60)}"
        + (f" (requires removed {text(change['because_of'], 40)})" if change["because_of"] else "")
        + "</td></tr>"
        for change in candidate["changes"]
    )
    return (
        f"<h4>{text(candidate['kind'], 20)}: units removed or rewritten</h4>"
        '<table class="compress-changes"><thead><tr><th>Unit</th><th>Where</th><th>Change</th>'
        f"<th>SkillSV decision</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _extras(candidate: dict[str, Any]) -> str:
    refused = "".join(f"<li>{text(reason, 600)}</li>" for reason in candidate["rejected_answers"])
    findings = "".join(f"<li>{text(finding, 600)}</li>" for finding in candidate["new_findings"])
    parts = [f"<p>Editor answers refused:</p><ul>{refused}</ul>"] if refused else []
    parts += [f"<p>New static-scan findings:</p><ul>{findings}</ul>"] if findings else []
    diff = candidate.get("diff") or ""
    if diff:
        shown = diff[:DIFF_CHARS]
        more = f"<p class=muted>{len(diff) - len(shown):,} more characters in the JSON.</p>" if shown != diff else ""
        parts.append(
            f'<details class="compress-diff"><summary>The {text(candidate["kind"], 20)} skill\'s diff '
            f"({len(diff.splitlines())} lines)</summary><pre>{text(shown)}</pre>{more}</details>"
        )
    return "".join(parts)


def compress_block(doc: dict[str, Any], source: str, links: SourceLinks | None = None) -> str:
    """The whole result: headline and design, the forest rows, the candidates' table, each one's units and diff
    (each unit's file:line linked with ``links``, prefixed with the skill's folder)."""
    held, attribution = len(doc["panel"]["held_out"]), len(doc["panel"]["attribution"])
    header = (
        f"<h3>Compression of {text(doc['skill'], 120)}</h3><p><b>{_headline(doc)}</b></p>"
        f"<p>{attribution} attribution cases valued, {held} held-out cases verified (seeded, disjoint), "
        f"{doc['runs']} run(s) per case and version, paired by seed; accepted only when the interval's lower bound "
        f"lies above {number(doc['tolerance'], 2, signed=True)}. SkillSV: {text(doc['decision_line'], 600)}. "
        f"<span class=muted>From {text(source, 200)}.</span></p>"
    )
    rows = "".join(
        f'<tr data-candidate="{text(c["kind"], 20)}"><td>{text(c["kind"], 20)}</td><td>{_badge(c["verdict"])}</td>'
        f'<td class="num">{_kept(c, doc["original_tokens"])}</td><td class="num">{_delta(c)}</td>'
        f'<td class="num">{"—" if c["contrast"] is None else c["contrast"]["n_cases"]}</td>'
        f"<td>{text(c['reason'], 600)}</td></tr>"
        for c in doc["candidates"]
    )
    table = (
        '<table class="compress sortable"><thead><tr><th>Candidate</th><th>Verdict</th><th class="num">Tokens kept'
        '</th><th class="num">Δ vs original [95% CI]</th><th class="num">Held-out cases</th><th>Why</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
    )
    details = "".join(_changes(c, doc["skill_dir"], links) + _extras(c) for c in doc["candidates"])
    notes = "".join(f"<li>{text(note, 600)}</li>" for note in doc["notes"])
    stopped = (
        f"<p>Stopped by {text(doc['stopped_by'], 40)}: a candidate not yet scored is reported unverified.</p>"
        if doc["stopped_by"]
        else ""
    )
    return (
        f'<div class="compress-result">{header}{_chart(doc)}{table}{details}{stopped}'
        f"{f'<ul class=notes>{notes}</ul>' if notes else ''}</div>"
    )
