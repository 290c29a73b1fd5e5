"""A scan result's part of the page: per skill its structural and judge scores, then its findings.

Read from the ``scan --json`` document (``schemas/scan-result.schema.json``). Each finding shows
file:line, its rule (linked to the rule's page in docs/rules.md when this aces-ci knows the id;
an unknown id from another version is shown unlinked), the message, the evidence and the fix
(the finding's own, else the rule's). Suppressed findings are listed, marked, not counted.
"""

from __future__ import annotations

from typing import Any

from ...scan import RuleRegistry
from .._common import find_rule, score_text, skill_title
from .._links import SourceLinks
from ._escape import href, text
from ._source import linked


def _rule(rule_id: str, registry: RuleRegistry) -> str:
    rule = find_rule(registry, rule_id)
    url = None if rule is None else href(rule.help_uri())
    label = text(rule_id, 40)
    if rule is not None:
        label += f" <span class=muted>{text(rule.name, 80)}</span>"
    return label if url is None else f'<a href="{url}" rel="noreferrer">{label}</a>'


def _fix(finding: dict[str, Any], registry: RuleRegistry) -> str:
    if finding.get("fix"):
        return str(finding["fix"])
    rule = find_rule(registry, finding["rule_id"])
    return rule.fix if rule is not None and rule.fix else ""


def _finding(finding: dict[str, Any], registry: RuleRegistry, links: SourceLinks | None) -> str:
    line = "" if finding["line"] is None else f":{finding['line']}"
    where = linked(f"<code>{text(finding['path'], 300)}{line}</code>", links, finding["path"], finding["line"])
    suppressed = finding.get("suppressed")
    note = "" if suppressed is None else f"<br><span class=muted>suppressed ({text(suppressed['kind'], 20)})</span>"
    evidence = "" if not finding.get("evidence") else f"<pre>{text(finding['evidence'], 600)}</pre>"
    return (
        f'<tr class="finding{" suppressed" if suppressed else ""}"><td class="sev-{text(finding["severity"], 10)}">'
        f"{text(finding['severity'], 10)}{note}</td><td>{_rule(finding['rule_id'], registry)}</td>"
        f"<td>{where}</td><td>{text(finding['message'], 1000)}{evidence}</td>"
        f"<td>{text(_fix(finding, registry), 600)}</td></tr>"
    )


def _judge(judge: dict[str, Any] | None) -> str:
    if judge is None:
        return "not run"
    if judge.get("error"):
        return f"error: {judge['error']}"
    if judge.get("score") is None:
        return f"no score ({judge['model']})"
    return f"{score_text(judge['score'])} ({judge['model']})"


def _skill(skill: dict[str, Any], index: int, registry: RuleRegistry, links: SourceLinks | None) -> str:
    judge_text = _judge(skill.get("judge"))
    reasons = "".join(f"<li>{text(r, 400)}</li>" for r in skill["reasons"])
    rows = "".join(_finding(f, registry, links) for f in skill["findings"])
    table = (
        f'<input class="filter" type="search" placeholder="filter findings" data-table="findings-{index}">'
        f'<table class="findings sortable" id="findings-{index}"><thead><tr><th>Severity</th><th>Rule</th>'
        f"<th>Where</th><th>Finding</th><th>Fix</th></tr></thead><tbody>{rows}</tbody></table>"
        if rows
        else "<p>No findings.</p>"
    )
    return (
        f'<div class="skill-scan" data-skill="{text(skill["skill"], 200)}">'
        f"<h3>{text(skill_title(skill['skill'], skill['name']), 120)}"
        f' <span class="verdict v-{text(skill["verdict"], 10)}">{text(skill["verdict"], 10)}</span></h3>'
        f'<p>Structural score <b class="structural">{score_text(skill["score"]["value"])}</b> · judge score '
        f'<b class="judge">{text(judge_text, 300)}</b> · <code>{text(skill["skill_md"], 300)}</code></p>'
        f"{'<ul>' + reasons + '</ul>' if reasons else ''}{table}</div>"
    )


def scan_block(doc: dict[str, Any], source: str, registry: RuleRegistry, links: SourceLinks | None = None) -> str:
    """The scan's verdict and counts, then each skill's scores and findings (each file:line linked with ``links``)."""
    summary = doc["summary"]
    counts = summary["findings"]
    return (
        f'<div class="scan-result"><p>Scan <span class="verdict v-{text(doc["verdict"], 10)}">'
        f"{text(doc['verdict'], 10)}</span> from {text(source, 200)} ({text(doc['generated_at'], 40)}, aces-ci "
        f"{text(doc['tool']['version'], 40)}, profile {text(doc['profile'], 20)}, minimum score {doc['min_score']}): "
        f"{summary['passed']} of {summary['skills']} skills pass; {counts['error']} errors, {counts['warning']} "
        f"warnings, {counts['note']} notes, {summary['suppressed']} suppressed.</p>"
        + "".join(_skill(skill, i, registry, links) for i, skill in enumerate(doc["skills"]))
        + "</div>"
    )


def scan_verdicts(doc: dict[str, Any]) -> str:
    """The header's line for a scan: its verdict per skill."""
    items = "".join(
        f'<li data-skill="{text(s["skill"], 200)}">{text(skill_title(s["skill"], s["name"]), 120)}: '
        f'<span class="verdict v-{text(s["verdict"], 10)}">{text(s["verdict"], 10)}</span> '
        f"(structural score {score_text(s['score']['value'])})</li>"
        for s in doc["skills"]
    )
    return f"<h3>Static scan</h3><ul class=scan-verdicts>{items}</ul>"
