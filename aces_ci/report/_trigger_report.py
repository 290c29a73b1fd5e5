"""The trigger trial's reports: its JSON document, and the files ``trial --triggers`` writes from it.

JSON (``--json``, and ``triggers.json`` in ``ci``): :func:`trigger_document`, as
``schemas/trigger-result.schema.json`` describes it. The Markdown section and the terminal's lines
are rendered from that document (:mod:`aces_ci.report._trigger_markdown`), as are the HTML page's,
so a trigger result re-renders later with ``aces-ci report trigger.json``.

JUnit (``--junit``): one testcase ``trigger.recall`` per skill in the gate suite's layout
(:func:`aces_ci.report.gate_suite`), the figures as properties. A ``fail`` verdict is a failure,
``underpowered`` passes with its message (or fails with aces.yml ``gate.underpowered: fail``), an
unmeasured recall (no should-trigger query) is skipped, and without ``--min-recall`` every
testcase passes with the figures only: nothing was gated.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..atomic import write_output
from ..redact import environment_secrets, redact_text
from ._gate_junit import JunitCriterion, append_gate_suite
from ._trigger_markdown import change_text, rate_text, trigger_markdown

if TYPE_CHECKING:  # the models are only read here; importing them would load the live tier into a scan
    from ..config import TrialReports
    from ..trials import Rate, SkillTriggers, TriggerTrial


def render_trigger_markdown(trial: TriggerTrial) -> str:
    """The trigger trial's Markdown section (``--markdown``, ``ci``'s comment), from its JSON document."""
    return trigger_markdown(trigger_document(trial))


def _rate_properties(prefix: str, rate: Rate) -> list[tuple[str, str]]:
    if rate.value is None or rate.interval is None:
        return [(f"{prefix}.n", "0")]
    return [
        (f"{prefix}.value", f"{rate.value:.6g}"),
        (f"{prefix}.ci_low", f"{rate.interval[0]:.6g}"),
        (f"{prefix}.ci_high", f"{rate.interval[1]:.6g}"),
        (f"{prefix}.n", str(rate.n)),
    ]


def _criterion(trial: TriggerTrial, skill: SkillTriggers, shown: dict[str, Any]) -> JunitCriterion:
    properties = [("host", trial.host), ("runs", str(trial.runs)), ("verdict", skill.verdict or "not gated")]
    if trial.min_recall is not None:
        properties.append(("min_recall", f"{trial.min_recall:g}"))
    properties += _rate_properties("recall", skill.recall) + _rate_properties("false_trigger", skill.false_trigger)
    properties += [(f"taken_by.{taker}", str(count)) for taker, count in skill.confusion]
    message = f"trigger recall {rate_text(shown['recall'])}"
    if skill.contrast is not None:
        change = skill.contrast.change
        properties += _rate_properties("recall_then", skill.contrast.then)
        properties += [("against", skill.contrast.ref), ("change.label", change.label)]
        if change.delta is not None and change.ci is not None:
            properties += [("change.delta", f"{change.delta:.6g}"), ("change.ci_low", f"{change.ci[0]:.6g}")]
            properties += [("change.ci_high", f"{change.ci[1]:.6g}"), ("change.n", str(change.n_cases))]
        message += f"; {change_text(shown['against'])}"
    if skill.verdict == "unmeasured":
        status = "skipped"
        message = "no should-trigger query: trigger recall is not measured"
    elif skill.verdict is None:
        status = "pass"
    elif trial.failing(skill):
        status = "fail"
    else:
        status = "warn" if skill.verdict == "underpowered" else "pass"
    if skill.verdict is not None and trial.min_recall is not None and status != "skipped":
        message += f": {skill.verdict} against {trial.min_recall:g}"
    skill_md = "SKILL.md" if skill.skill == "." else f"{skill.skill}/SKILL.md"
    failure = "LowTriggerRecall"
    return JunitCriterion("trigger.recall", skill.skill, status, message, tuple(properties), skill_md, 1, failure)


def render_trigger_junit(trial: TriggerTrial, generated_at: str) -> str:
    """The JUnit document of the trigger trial (one suite, one testcase per skill)."""
    shown = trigger_document(trial)["skills"]
    criteria = [_criterion(trial, skill, raw) for skill, raw in zip(trial.skills, shown, strict=True)]
    return append_gate_suite(None, criteria, generated_at=generated_at)


def _rate_json(rate: Rate) -> dict[str, Any]:
    return {"value": rate.value, "interval": list(rate.interval) if rate.interval else None, "n": rate.n}


def _contrast_json(skill: SkillTriggers) -> dict[str, Any] | None:
    if skill.contrast is None:
        return None
    change = skill.contrast.change
    return {
        "recall_then": _rate_json(skill.contrast.then),
        "change": {
            "delta": change.delta,
            "interval": list(change.ci) if change.ci else None,
            "n": change.n_cases,
            "label": change.label,
            "method": change.method,
        },
    }


def trigger_document(trial: TriggerTrial) -> dict[str, Any]:
    """The result as ``schemas/trigger-result.schema.json`` describes it: what every other report renders."""
    contrast = next((skill.contrast for skill in trial.skills if skill.contrast is not None), None)
    return {
        "host": trial.host,
        "runs": trial.runs,
        "min_recall": trial.min_recall,
        "against": None if contrast is None else {"ref": contrast.ref, "commit": contrast.commit},
        "skills": [
            {
                "skill": skill.skill,
                "recall": _rate_json(skill.recall),
                "false_trigger": _rate_json(skill.false_trigger),
                "confusion": [{"taken_by": taker, "count": count} for taker, count in skill.confusion],
                "verdict": skill.verdict,
                "against": _contrast_json(skill),
            }
            for skill in trial.skills
        ],
        "tokens": trial.usage.prompt_tokens + trial.usage.completion_tokens,
        "model_calls": trial.usage.model_calls,
    }


def render_trigger_json(trial: TriggerTrial) -> str:
    """The JSON file of :func:`trigger_document`."""
    return json.dumps(trigger_document(trial), indent=2) + "\n"


def write_trigger_reports(trial: TriggerTrial, reports: TrialReports) -> None:
    """Every report ``reports`` names (None: not asked for), secrets redacted; the page through the same schema
    check ``aces-ci report`` applies to a file."""
    from .html import document_from, write_html

    secrets = environment_secrets()
    document = trigger_document(trial)
    if reports.json:
        write_output(reports.json, redact_text(json.dumps(document, indent=2) + "\n", secrets), "trigger trial's JSON")
    if reports.markdown:
        write_output(reports.markdown, redact_text(trigger_markdown(document), secrets), "Markdown report")
    if reports.junit:
        junit = render_trigger_junit(trial, datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
        write_output(reports.junit, redact_text(junit, secrets), "JUnit report")
    if reports.html:
        write_html(reports.html, [document_from(document, str(reports.json or "trial --triggers"))])
