"""The report page from result documents: which section each kind of result fills, in what order.

Every section is always on the page; one whose results were not given says which result would
fill it, so a reader never mistakes "not measured" for "nothing to see". The trial's parts load
on first use (they bring numpy through the comment's headline), so ``aces-ci scan --html`` stays
as quick to start as the scan.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import __version__
from ...scan import default_registry
from ._documents import ResultDocument
from ._escape import text
from ._shell import SECTIONS, missing, page, section


def _of(documents: Sequence[ResultDocument], kind: str) -> list[ResultDocument]:
    return [d for d in documents if d.kind == kind]


def _sources(documents: Sequence[ResultDocument]) -> str:
    items = "".join(f"<li>{d.kind} result: <code>{text(d.source, 300)}</code></li>" for d in documents)
    return f'<ul class="sources">{items}</ul>'


def _value_verdict(doc: ResultDocument) -> str:
    decisions = doc.data.get("decisions")
    summary = "not measured" if decisions is None else decisions["summary"]
    return f"<p>SkillSV of <b>{text(doc.data['skill'], 120)}</b>: {text(summary, 600)}</p>"


def _verdict(documents: Sequence[ResultDocument]) -> str:
    from ._trial import verdict_block

    parts = [
        f"<p class=muted>Rendered by aces-ci {text(__version__, 40)} from the result files "
        "below; every number on this page is theirs.</p>",
        _sources(documents),
    ]
    parts += [verdict_block(d.data, d.source) for d in _of(documents, "trial")]
    if _of(documents, "trigger"):
        from ._triggers import trigger_verdicts

        parts += [trigger_verdicts(d.data, d.source) for d in _of(documents, "trigger")]
    parts += [_value_verdict(d) for d in _of(documents, "value")]
    if _of(documents, "compress"):
        from ._compress import compress_verdicts

        parts += [compress_verdicts(d.data) for d in _of(documents, "compress")]
    if _of(documents, "scan"):
        from ._scan import scan_verdicts

        parts += [scan_verdicts(d.data) for d in _of(documents, "scan")]
    if not _of(documents, "trial"):
        live = any(_of(documents, kind) for kind in ("trigger", "value", "compress"))
        what = "no lift verdict or estimand" if live else "no live verdict, model, harness or estimand"
        parts.append(missing(f"No paired-trial result given: {what} to state."))
    return "".join(parts)


def _trial_parts(documents: Sequence[ResultDocument]) -> tuple[str, str, str]:
    trials = _of(documents, "trial")
    if not trials:
        none = "No trial result given"
        return (
            missing(f"{none}: no lift to draw."),
            missing(f"{none}: no cases or transcripts."),
            "",
        )
    from ._trial import cases_block, cost_block, lift_block

    return (
        "".join(lift_block(d.data) for d in trials),
        "".join(cases_block(d.data) for d in trials),
        "".join(cost_block(d.data) for d in trials),
    )


def _cost(documents: Sequence[ResultDocument], trial_cost: str) -> str:
    from ._rerun import history_block
    from ._value import value_cost

    parts = [trial_cost] + [value_cost(d.data) for d in _of(documents, "value")]
    reruns = [d.data for d in _of(documents, "rerun")]
    parts.append(
        history_block(reruns) if reruns else missing("History across releases and models: no rerun record given.")
    )
    if not trial_cost and not _of(documents, "value"):
        parts.insert(0, missing("Cost: no trial or value result given, so no tokens, calls or dollars to show."))
    return "".join(parts)


def _triggers(documents: Sequence[ResultDocument]) -> str:
    triggers = _of(documents, "trigger")
    if not triggers:
        return missing(
            "No trigger trial result given: aces-ci trial --triggers --json measures each skill's recall "
            "and false triggers."
        )
    from ._triggers import trigger_block

    return "".join(trigger_block(d.data, d.source) for d in triggers)


def _skillsv(documents: Sequence[ResultDocument]) -> str:
    values = _of(documents, "value")
    if not values:
        return missing("No value result given: run aces-ci value SKILL_DIR --json to value each unit.")
    from ._value import value_block

    return "".join(value_block(d.data, d.source, d.links) for d in values)


def _compress(documents: Sequence[ResultDocument]) -> str:
    results = _of(documents, "compress")
    if not results:
        return missing("No compress result given: aces-ci compress SKILL_DIR --json proposes a shorter skill.")
    from ._compress import compress_block

    return "".join(compress_block(d.data, d.source, d.links) for d in results)


def _scan(documents: Sequence[ResultDocument]) -> str:
    scans = _of(documents, "scan")
    if not scans:
        return missing("No scan result given: no findings to list.")
    from ._scan import scan_block

    registry = default_registry()
    return "".join(scan_block(d.data, d.source, registry, d.links) for d in scans)


def _headline_data(documents: Sequence[ResultDocument]) -> dict[str, Any]:
    """The page's machine-readable headline: per result, each skill's verdict and gated lift."""
    skills: list[dict[str, Any]] = []
    for doc in documents:
        if doc.kind == "trial":
            for s in doc.data["skills"]:
                lift = s["lift"].get(s["gate_metric"])
                skills.append(
                    {
                        "kind": "trial",
                        "skill": s["skill"],
                        "verdict": s["verdict"],
                        "metric": s["gate_metric"],
                        "delta": None if lift is None else lift["delta"],
                        "ci": None if lift is None else lift["ci"],
                    }
                )
        elif doc.kind == "trigger":
            skills += [
                {
                    "kind": "trigger",
                    "skill": s["skill"],
                    "verdict": s["verdict"],
                    "recall": s["recall"]["value"],
                    "ci": s["recall"]["interval"],
                }
                for s in doc.data["skills"]
            ]
        elif doc.kind == "scan":
            skills += [
                {"kind": "scan", "skill": s["skill"], "verdict": s["verdict"], "score": s["score"]["value"]}
                for s in doc.data["skills"]
            ]
    return {"tool": "aces-ci", "version": __version__, "sources": [d.source for d in documents], "skills": skills}


def render_html(documents: Sequence[ResultDocument]) -> str:
    """The whole report of ``documents`` (validated results of :func:`read_documents`) as one HTML page."""
    lift, cases, trial_cost = _trial_parts(documents)
    bodies = {
        "verdict": _verdict(documents),
        "lift": lift,
        "cases": cases,
        "triggers": _triggers(documents),
        "skillsv": _skillsv(documents),
        "compress": _compress(documents),
        "cost": _cost(documents, trial_cost),
        "scan": _scan(documents),
    }
    verdicts = sorted({d.data.get("verdict", "") for d in documents if d.kind in ("trial", "scan")} - {""})
    title = "aces-ci report" + (f": {', '.join(verdicts)}" if verdicts else "")
    return page(title, [section(key, label, bodies[key]) for key, label in SECTIONS], _headline_data(documents))
