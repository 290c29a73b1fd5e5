"""The trigger trial as Markdown and as JUnit XML: one line, or one testcase, per skill.

Markdown (``trial --triggers --markdown``): per skill its trigger recall (k/n queries with the
interval), the false-trigger rate, the recall gate's verdict and, with ``--against``, the recall
then and the change with its interval; then the confusion pairs (which skill took a should-trigger
query when this one did not) in a collapsed ``<details>`` block. Skill names come from the pull
request, so each goes through :mod:`aces_ci.report._md_escape` for the place it lands.

JSON (``--json``, and ``triggers.json`` in ``ci``): :func:`render_trigger_json`, as
``schemas/trigger-result.schema.json`` describes it.

JUnit (``--junit``): one testcase ``trigger.recall`` per skill in the gate suite's layout
(:func:`aces_ci.report.gate_suite`), the figures as properties. A ``fail`` verdict is a failure,
``underpowered`` passes with its message (or fails with aces.yml ``gate.underpowered: fail``), an
unmeasured recall (no should-trigger query) is skipped, and without ``--min-recall`` every
testcase passes with the figures only: nothing was gated.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ._gate_junit import JunitCriterion, append_gate_suite
from ._md_escape import cell, code_span, html_text

if TYPE_CHECKING:  # the models are only read here; importing them would load the live tier into a scan
    from ..trials import Rate, RecallContrast, SkillTriggers, TriggerTrial

_NAME_LIMIT = 120
_VERDICT_WORDS = {
    "pass": "✅ pass",
    "fail": "❌ fail",
    "underpowered": "⚠️ underpowered",
    "unmeasured": "➖ unmeasured",
    None: "not gated",
}


def rate_text(rate: Rate) -> str:
    """``0.83 (10/12 queries) [0.52, 0.98]``; ``not measured (n = 0)`` without queries."""
    if rate.value is None or rate.interval is None:
        return "not measured (n = 0)"
    low, high = rate.interval
    hits = rate.value * rate.n
    count = f"{round(hits)}/{rate.n}" if abs(hits - round(hits)) < 1e-9 else f"{hits:.1f}/{rate.n}"
    return f"{rate.value:.2f} ({count} queries) [{low:.2f}, {high:.2f}]"


def change_text(contrast: RecallContrast) -> str:
    """``recall at v1 0.00 → now, change +1.00 [+0.70, +1.00] over 4 queries: improvement``."""
    change = contrast.change
    then = "n = 0" if contrast.then.value is None else f"{contrast.then.value:.2f}"
    if change.delta is None or change.ci is None:
        return f"recall at the earlier ref {then}; change not comparable ({change.method})"
    low, high = change.ci
    return (
        f"recall at the earlier ref {then}, change {change.delta:+.2f} [{low:+.2f}, {high:+.2f}] "
        f"over {change.n_cases} queries: {change.label}"
    )


def _skill_line(trial: TriggerTrial, skill: SkillTriggers) -> str:
    parts = [
        f"recall {rate_text(skill.recall)}",
        f"false triggers {rate_text(skill.false_trigger)}",
        _VERDICT_WORDS[skill.verdict] + (f" against {trial.min_recall:g}" if trial.min_recall is not None else ""),
    ]
    if skill.contrast is not None:
        parts.append(change_text(skill.contrast))
    return f"- {code_span(skill.skill, _NAME_LIMIT)}: " + "; ".join(parts)


def _confusion_block(trial: TriggerTrial) -> list[str]:
    rows = [(skill, taker, count) for skill in trial.skills for taker, count in skill.confusion]
    if not rows:
        return []
    total = sum(count for _, _, count in rows)
    summary = html_text(f"Confusion: {total} should-trigger decisions went elsewhere", 200)
    lines = ["", f"<details><summary>{summary}</summary>", "", "| Skill | Taken by | Decisions |", "|---|---|---:|"]
    lines += [
        f"| {cell(skill.skill, _NAME_LIMIT)} | {cell(taker, _NAME_LIMIT)} | {count} |" for skill, taker, count in rows
    ]
    lines += ["", "</details>"]
    return lines


def render_trigger_markdown(trial: TriggerTrial) -> str:
    """The trigger trial in GitHub Markdown: one line per skill, the confusion pairs collapsed.

    The same section stands alone (``--markdown``) and sits in ``ci``'s comment.
    """
    against = ""
    contrasts = [skill.contrast for skill in trial.skills if skill.contrast is not None]
    if contrasts:
        against = f", against {code_span(contrasts[0].ref, 80)} ({contrasts[0].commit[:12]})"
    lines = [
        f"#### Trigger trial: the skills as {cell(trial.host, 40)} lists them{against}",
        "",
        f"{trial.runs} run(s) per query; the query is the unit (its runs averaged first); 95% intervals.",
        "",
    ]
    lines += [_skill_line(trial, skill) for skill in trial.skills]
    lines += _confusion_block(trial)
    usage = trial.usage
    lines += ["", f"{usage.model_calls} model calls, {usage.prompt_tokens + usage.completion_tokens:,} tokens."]
    return "\n".join(lines) + "\n"


def _rate_properties(prefix: str, rate: Rate) -> list[tuple[str, str]]:
    if rate.value is None or rate.interval is None:
        return [(f"{prefix}.n", "0")]
    return [
        (f"{prefix}.value", f"{rate.value:.6g}"),
        (f"{prefix}.ci_low", f"{rate.interval[0]:.6g}"),
        (f"{prefix}.ci_high", f"{rate.interval[1]:.6g}"),
        (f"{prefix}.n", str(rate.n)),
    ]


def _criterion(trial: TriggerTrial, skill: SkillTriggers) -> JunitCriterion:
    properties = [("host", trial.host), ("runs", str(trial.runs)), ("verdict", skill.verdict or "not gated")]
    if trial.min_recall is not None:
        properties.append(("min_recall", f"{trial.min_recall:g}"))
    properties += _rate_properties("recall", skill.recall) + _rate_properties("false_trigger", skill.false_trigger)
    properties += [(f"taken_by.{taker}", str(count)) for taker, count in skill.confusion]
    message = f"trigger recall {rate_text(skill.recall)}"
    if skill.contrast is not None:
        change = skill.contrast.change
        properties += _rate_properties("recall_then", skill.contrast.then)
        properties += [("against", skill.contrast.ref), ("change.label", change.label)]
        if change.delta is not None and change.ci is not None:
            properties += [("change.delta", f"{change.delta:.6g}"), ("change.ci_low", f"{change.ci[0]:.6g}")]
            properties += [("change.ci_high", f"{change.ci[1]:.6g}"), ("change.n", str(change.n_cases))]
        message += f"; {change_text(skill.contrast)}"
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
    return append_gate_suite(None, [_criterion(trial, skill) for skill in trial.skills], generated_at=generated_at)


def _rate_json(rate: Rate) -> dict[str, object]:
    return {"value": rate.value, "interval": list(rate.interval) if rate.interval else None, "n": rate.n}


def _contrast_json(skill: SkillTriggers) -> dict[str, object] | None:
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


def render_trigger_json(trial: TriggerTrial) -> str:
    """The result as ``schemas/trigger-result.schema.json`` describes it."""
    contrast = next((skill.contrast for skill in trial.skills if skill.contrast is not None), None)
    document = {
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
    return json.dumps(document, indent=2) + "\n"
