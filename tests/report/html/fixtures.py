"""Result documents written here for the HTML report's tests: a scan, a trial of three skills, a
SkillSV valuation of a 60-unit skill and rerun records, each valid against its schema, with
hostile strings planted where a pull request could put them."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from aces_ci.report import scan_result_to_dict
from aces_ci.scan import Severity, SkillReport, StructuralScore
from tests.report.builders import clean_report, finding, pdf_report, sample_result

HOSTILE = "</script><script>alert(1)</script><img src=x onerror=alert(2)> \u202eevil\u202c javascript:alert(3)"
"""Markup, a script end tag, a bidi override and a javascript: URL: must all render as inert text."""

METRICS = (
    "composite",
    "outcome",
    "accuracy",
    "goal_accuracy",
    "skill_execution",
    "behavior_check",
    "skill_efficiency",
    "security",
)


def scan_doc() -> dict[str, Any]:
    """Three skills' scan, one of them named and described by an attacker."""
    md = "skills/evil/SKILL.md"
    hostile = SkillReport(
        skill="skills/evil",
        name=HOSTILE,
        skill_md=md,
        findings=(
            finding(
                "SEC005",
                Severity.ERROR,
                f"bidi control in {HOSTILE}",
                md,
                3,
                skill="skills/evil",
                evidence=HOSTILE,
                fix="see javascript:alert(4)",
            ),
            finding("XYZ999", Severity.WARNING, "rule from a newer aces-ci", md, None, skill="skills/evil"),
        ),
        score=StructuralScore(55, ()),
        verdict="fail",
        reasons=(f"1 error finding: {HOSTILE}",),
        judge=None,
    )
    return scan_result_to_dict(sample_result(pdf_report(), clean_report(), hostile))


def _lift(with_scores: list[list[float]], control_scores: list[list[float]], runs: int) -> dict[str, Any]:
    with_means = [sum(s) / len(s) for s in with_scores]
    ctl_means = [sum(s) / len(s) for s in control_scores]
    n = len(with_means)
    w, c = sum(with_means) / n, sum(ctl_means) / n
    delta = w - c
    return {
        "delta": delta,
        "ci": [max(-1.0, delta - 0.18), min(1.0, delta + 0.18)],
        "n_cases": n,
        "runs_per_arm": runs,
        "with_mean": w,
        "without_mean": c,
        "mde": 0.21,
        "method": "case-clustered t",
        "se": 0.09,
        "naive_ci": None,
        "n_cases_excluded": 0,
        "small_n": n < 10,
        "unscorable_with": 0,
        "unscorable_control": 0,
        "notes": [],
        "run_sd_with": 0.3,
        "run_sd_control": 0.3,
    }


def _case_scores(rng: random.Random, cases: int, runs: int, p: float) -> list[list[float]]:
    return [[1.0 if rng.random() < p else 0.0 for _ in range(runs)] for _ in range(cases)]


def _trigger_flags(rng: random.Random, cases: int, runs: int) -> list[list[bool | None]]:
    """Whether each with-run loaded the skill: mostly yes, the first case's last run unknown (no answer)."""
    flags: list[list[bool | None]] = [[rng.random() < 0.8 for _ in range(runs)] for _ in range(cases)]
    if cases and runs:
        flags[0][-1] = None
    return flags


def trial_skill(
    skill: str,
    name: str,
    verdict: str,
    p_with: float,
    p_ctl: float,
    *,
    cases: int = 10,
    runs: int = 3,
    answer_chars: int = 300,
    seed: int = 1,
    noise_floor: bool = False,
) -> dict[str, Any]:
    """One skill of a trial: outcome and composite lifts from the scores written here, accuracy without variation,
    security not applicable; answers of ``answer_chars`` characters."""
    rng = random.Random(seed)
    with_s, ctl_s = _case_scores(rng, cases, runs, p_with), _case_scores(rng, cases, runs, p_ctl)
    outcome = _lift(with_s, ctl_s, runs)
    flat = dict(_lift([[1.0] * runs] * cases, [[1.0] * runs] * cases, runs), ci=[0.0, 0.0], mde=None, se=None)
    lift: dict[str, Any] = dict.fromkeys(METRICS)
    half = outcome["delta"] / 2
    composite = dict(outcome, delta=half, with_mean=outcome["without_mean"] + half)
    lift.update(outcome=outcome, composite=composite, accuracy=flat)
    lift["composite"]["ci"] = [outcome["ci"][0] / 2, outcome["ci"][1] / 2]
    gains = sum(1 for a, b in zip(with_s, ctl_s, strict=True) if sum(a) > sum(b))
    losses = sum(1 for a, b in zip(with_s, ctl_s, strict=True) if sum(a) < sum(b))
    filler = "lorem ipsum dolor sit amet " * (answer_chars // 27 + 1)
    arms = [
        {
            "arm": arm,
            "rollouts": cases * runs,
            "input_tokens": 1200 * cases * runs * k,
            "output_tokens": 300 * cases * runs,
            "cached_tokens": 100 * cases,
            "calls": 2 * cases * runs,
            "turns": 3 * cases * runs,
            "wall_s": 4.5 * cases * runs,
            "usd": 0.002 * cases * runs * k,
            "latency_median_s": 1.5,
        }
        for arm, k in (("with", 2), ("without", 1))
    ]
    return {
        "skill": skill,
        "name": name,
        "skill_md": f"{skill}/SKILL.md",
        "contrast": "with vs without the skill",
        "verdict": verdict,
        "verdict_reason": f"outcome interval {'above' if verdict == 'pass' else 'spans'} the band",
        "gate_metric": "outcome",
        "settle": None
        if verdict != "underpowered"
        else {
            "target": "pass",
            "cases_needed": 40,
            "extra_cases": 30,
            "runs_needed": None,
            "extra_runs": None,
            "rollouts_needed": 240,
            "reason": "80% power if the lift holds",
            "advice": "30 more cases would likely settle it",
        },
        "lift": lift,
        "not_applicable": {
            "security": "no security checks in the evals",
            "goal_accuracy": "no goal rubric",
            "skill_execution": "no scripts",
            "behavior_check": "no checks",
            "skill_efficiency": "efficiency is a cost line",
        },
        "discordance": {
            "gains": gains,
            "regressions": losses,
            "ties": cases - gains - losses,
            "n_cases": cases,
            "label": f"{gains} gains, {losses} regressions under this protocol",
        },
        "degradation": None,
        "trigger": {
            "rate": 0.9,
            "d_pair": None,
            "d_skip": None,
            "tau": None,
            "identity_residual": None,
            "triggered_runs": 27,
            "skipped_runs": 3,
            "unknown_runs": 0,
            "cases": cases,
            "cases_always": 8,
            "cases_sometimes": 1,
            "cases_never": 1,
            "coupling": "independent",
            "trigger_event": "skill load",
            "meaning": "share of runs that loaded the skill",
            "definition": "the SKILL.md body was read",
        },
        "cost": {
            "arms": arms,
            "lift_per_dollar": {
                "lift": outcome["delta"],
                "extra_usd_per_rollout": 0.002,
                "lift_per_extra_usd": outcome["delta"] / 0.002,
                "note": "per rollout",
            },
        },
        "estimand": f"Mean paired outcome lift of {name} over the cases its evals stand for.",
        "estimand_axes": {
            "contrast": "skill available vs not",
            "population": "the eval cases",
            "unit": f"case; independent arms; {runs} runs per case and arm",
            "budget": "none",
            "summary": "mean difference",
            "identification": "randomised arms per case",
        },
        "eval_source": f"{skill}/evals/evals.json",
        "n_cases": cases,
        "contrasts": [
            {
                "kind": "primary",
                "treatment": "with",
                "control": "without",
                "description": "with vs without",
                "visible_decoys": 0,
                "lift": lift,
                "not_applicable": {},
            }
        ],
        "routing_premium": None,
        "presence": None,
        "noise_floor": None
        if not noise_floor
        else {
            "delta": 0.01,
            "ci": [-0.05, 0.07],
            "n_cases": cases,
            "run_noise_sd": 0.2,
            "runs_per_arm": runs,
            "verdict": "neutral",
        },
        "stress": [],
        "triage": [],
        "sequential": [],
        "cases": [
            {
                "case": f"case-{i:03d}",
                "with_scores": w,
                "control_scores": c,
                "prompt": f"Prompt {i}: fill the form",
                "with_answer": f"answer with {i}: " + filler[:answer_chars],
                "control_answer": f"control {i}: " + filler[:answer_chars],
                "with_triggered": flags,
            }
            for i, (w, c, flags) in enumerate(zip(with_s, ctl_s, _trigger_flags(rng, cases, runs), strict=True))
        ],
        "against": None,
        "rollouts": 2 * cases * runs,
        "not_run": 0,
        "infra_errors": 0,
        "grader_errors": 0,
        "first_error": None,
        "notes": [],
        "capped": None,
    }


def hostile_transcript() -> dict[str, Any]:
    """A recorded transcript whose every string is hostile: a step's text, a tool call, its result, a skill event."""
    step = {
        "source": "agent",
        "text": HOSTILE + " long " * 100,
        "calls": [{"name": HOSTILE, "arguments": HOSTILE}],
        "results": [HOSTILE],
        "skill_events": [f"skill load {HOSTILE}"],
    }
    return {"steps": [step], "omitted_steps": 3, "note": HOSTILE}


def trial_doc(skills: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A trial of three skills (pass, underpowered, fail) with hostile text in a case, a prompt and an answer."""
    if skills is None:
        skills = [
            trial_skill("skills/pdf-tools", "pdf-tools", "pass", 0.9, 0.3, seed=1, noise_floor=True),
            trial_skill("skills/evil", HOSTILE, "underpowered", 0.6, 0.5, seed=2),
            trial_skill("skills/harmful", "harmful", "fail", 0.2, 0.8, seed=3),
        ]
        evil = skills[1]["cases"][0]
        evil.update(case=HOSTILE, prompt=HOSTILE, with_answer=HOSTILE + " long " * 200)
        evil.update(with_transcript=hostile_transcript(), control_transcript=None)
    return {
        "schema_version": 1,
        "tool": {"name": "aces-ci", "version": "0.1.0"},
        "generated_at": "2026-11-30T12:00:00+00:00",
        "verdict": "fail",
        "confidence": 0.95,
        "agent": {
            "provider": "anthropic",
            "model": "claude-haiku-4-5",
            "harness": "builtin",
            "harness_version": "1",
            "disclosure": "names in system prompt",
            "judge": None,
        },
        "protocol": {"runs": 3, "seed": 7, "coupling": "independent", "mode": "isolation", "sequential": False},
        "gate": {"metric": "outcome", "pass_band": 0.05, "fail_band": -0.1, "underpowered": "warn"},
        "skills": skills,
        "repository": None,
        "spent": {"rollouts_run": 180, "rollouts_reused": 0, "input_tokens": 10000, "output_tokens": 2000, "usd": 0.4},
        "stopped_by": None,
        "notes": [],
    }


def _estimate(value: float, half: float = 0.05, n: int = 40) -> dict[str, Any]:
    return {"value": value, "ci": [value - half, value + half], "n": n}


FORMS_LINES = 80
"""Lines of the fixture skill's text resource: more than a unit's run shows before folding."""


def _documents(body: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The files the fixture's units cover, as ``value --json`` keeps them: SKILL.md (two lines per body unit
    after the front matter and the title), a text resource and a binary one."""
    lines = ["---", "name: pdf-tools", "description: Fill PDF forms", "---", "# pdf-tools", ""]
    for unit in body:
        if unit["kind"] == "body":
            lines += [unit["preview"], ""]
    skill_md = "\n".join(lines) + "\n"
    forms = "".join(f"Form field {k}: what to type\n" for k in range(1, FORMS_LINES + 1))
    documents = [
        {
            "file": file,
            "binary": False,
            "bytes": len(body_text.encode()),
            "lines": count,
            "shown_lines": count,
            "truncated": False,
            "text": body_text,
        }
        for file, body_text, count in (("SKILL.md", skill_md, len(lines)), ("references/forms.md", forms, FORMS_LINES))
    ]
    binary = {"binary": True, "bytes": 2048, "lines": 0, "shown_lines": 0, "truncated": False, "text": None}
    documents.append({"file": "assets/logo.png", **binary})
    return [d for d in documents if any(u["file"] == d["file"] for u in body) or d["file"] == "SKILL.md"]


def value_doc(units: int = 60, *, hostile: bool = True) -> dict[str, Any]:
    """SkillSV of a ``units``-unit skill (trigger m plus body units, the last two of five or more a text and a
    binary resource) with the text of its files, sections and pruning curves."""
    rng = random.Random(5)
    decisions = ("keep", "compress", "delete", "negligible", "unresolved")
    resources = (
        {units - 2: ("references/forms.md", FORMS_LINES), units - 1: ("assets/logo.png", 1)} if units >= 5 else {}
    )
    body = []
    for i in range(1, units):
        effect = round(rng.uniform(-0.08, 0.12), 4)
        file, last = resources.get(i, ("SKILL.md", 0))
        body.append(
            {
                "id": f"u{i}",
                "kind": "body" if file == "SKILL.md" else "resource",
                "file": file,
                "lines": [5 + 2 * i, 6 + 2 * i] if file == "SKILL.md" else [1, last],
                "tokens": 20 + i,
                "preview": (HOSTILE if hostile and i == 7 else f"Rule {i}: do the thing number {i}."),
                "fallback": False,
                "net_effect": effect,
                "ci": [effect - 0.03, effect + 0.03],
                "content_value": effect + 0.01,
                "content_value_ci": [effect - 0.02, effect + 0.04],
                "context_cost": 0.002 * (i % 9),
                "context_cost_ci": [0.002 * (i % 9) - 0.003, 0.002 * (i % 9) + 0.003],
                "samples": 40,
                "zeroed_by_truncation": 0,
                "decision": decisions[i % 5],
                "reason": "interval vs margin",
                "scores_to_decide": None,
            }
        )
    trigger = {
        "id": "m",
        "kind": "trigger",
        "file": "SKILL.md",
        "lines": [1, 4],
        "tokens": 40,
        "preview": "name: pdf-tools",
        "fallback": False,
    }
    ids = [u["id"] for u in body]
    by = {d: [u["id"] for u in body if u["decision"] == d] for d in decisions}
    steps = range(11)
    curves = [
        {
            "method": m,
            "ranking": ids[:10],
            "removed": [k / 10 for k in steps],
            "scores": [0.8 - k * s for k in steps],
            "auc": 0.8 - 5 * s,
        }
        for m, s in (("skillsv", 0.005), ("closure_loo", 0.01), ("random", 0.03))
    ]
    return {
        "schema_version": 3,
        "tool": {"name": "aces-ci", "version": "0.1.0"},
        "skill": "pdf-tools",
        "skill_dir": "skills/pdf-tools",
        "tokenizer": "approx-v1",
        "oracle": "local:scripted",
        "method": "estimate",
        "order_distribution": "layer",
        "settings": {
            "orders": 40,
            "window": 8,
            "tolerance": None,
            "gate_hits": 1,
            "operators": ["del", "pad"],
            "seed": 1,
            "pooling": "pooled",
            "antithetic": True,
            "windows": "balanced",
            "stratified": True,
            "pairs_per_window": 1,
            "reuse": True,
            "panel_anchors": True,
            "max_evaluations": None,
            "budget_usd": None,
            "bootstrap": 200,
            "holdout": 0.3,
            "score": {"metric": "outcome", "definition": "share of cases passed", "judge": None},
            "margin": 0.02,
            "budget_scores": None,
            "fitted_to_budget": [],
        },
        "panel": {"attribution": 20, "held_out": 10},
        "units": [trigger, *body],
        "documents": _documents(body),
        "groups": [
            {
                "label": "## Usage" if not hostile else "## " + HOSTILE,
                "file": "SKILL.md",
                "line": 6,
                "units": ids[:20],
                "net_effect": 0.3,
                "ci": [0.1, 0.5],
            },
            {"label": "## Examples", "file": "SKILL.md", "line": 50, "units": ids[20:], "net_effect": 0.1, "ci": None},
        ],
        "trigger_value": _estimate(0.2),
        "anchors": {"empty": _estimate(0.3), "trigger_only": _estimate(0.5), "full": _estimate(0.8)},
        "content_lift": _estimate(0.3),
        "sum_values": _estimate(0.29),
        "closure_ratio": _estimate(0.97),
        "chains": {"completed": 40, "planned": 40, "truncation_rate": 0.0, "left_out": 0},
        "rollouts": {
            "spent": 4000,
            "this_run": 4000,
            "earlier_sessions": 0,
            "reused": 100,
            "valuation": 3600,
            "pruning_test": 400,
            "evaluations": 200,
            "requested": 4000,
            "full_audit": 24000,
            "cost_usd": 3.5,
            "served_from_cache": 12,
        },
        "stopped_by": None,
        "error": None,
        "failure": None,
        "measured": True,
        "decisions": {
            "margin": 0.02,
            "summary": f"{len(by['delete'])} units to delete, {len(by['keep'])} to keep",
            "delete": by["delete"],
            "negligible": by["negligible"],
            "compress": by["compress"],
            "keep": by["keep"],
            "unresolved": by["unresolved"],
            "cut_tokens": 300,
            "scores_to_decide": None,
        },
        "cases": [{"id": "c1", "empty": 0.2, "trigger_only": 0.5, "full": 0.9}],
        "low_value": [
            {"id": u, "file": "SKILL.md", "line": 10, "decision": "delete", "net_effect": -0.05}
            for u in by["delete"][:3]
        ],
        "held_out": {
            "tasks": 10,
            "full": 0.8,
            "trigger_only": 0.5,
            "content_lift": 0.3,
            "closure_ratio": 0.95,
            "closure_loo": {"u1": 0.01},
            "closure_loo_sum": 0.2,
            "curves": curves,
        },
    }


def rerun_doc(date: str, model: str, delta: float, *, note: str = "") -> dict[str, Any]:
    """One rerun record of two skills."""
    skill = {
        "skill_md": "skills/pdf-tools/SKILL.md",
        "lift": {"delta": delta, "ci": [delta - 0.1, delta + 0.1], "n_cases": 10, "runs_per_arm": 3},
        "cases": [{"case": "a", "lift": delta}],
        "baseline": {"release": "v1.0.0", "delta": 0.3, "ci": [0.2, 0.4]},
        "change": {
            "delta": delta - 0.3,
            "ci": [delta - 0.45, delta - 0.15],
            "n_cases": 10,
            "label": "regression" if delta < 0.2 else "no detectable change",
        },
        "edited": False,
        "note": note,
    }
    return {
        "schema_version": 1,
        "run_id": "123",
        "commit": "0123abcd" * 5,
        "measured_at": date,
        "metric": "outcome",
        "confidence": 0.95,
        "agent": {
            "provider": "anthropic",
            "model": model,
            "harness": "builtin",
            "harness_version": None,
            "disclosure": "names",
            "tool_version": "0.1.0",
        },
        "seed": 1,
        "skills": {"skills/pdf-tools": skill, "skills/other": dict(skill, lift=None, change=None)},
    }


def _rate(hits: int, n: int, low: float, high: float) -> dict[str, Any]:
    return {"value": hits / n if n else None, "interval": [low, high] if n else None, "n": n}


def trigger_doc() -> dict[str, Any]:
    """A trigger trial of three skills against an earlier ref: one passing, one (named by an attacker) failing
    whose queries another skill took, one without should-trigger queries."""
    change = {"delta": 0.25, "interval": [0.05, 0.45], "n": 12, "label": "improvement", "method": "paired t"}
    return {
        "host": "claude-code",
        "runs": 2,
        "min_recall": 0.7,
        "against": {"ref": "v1.0.0", "commit": "0123abcd" * 5},
        "skills": [
            {
                "skill": "skills/pdf-tools",
                "recall": _rate(11, 12, 0.62, 0.99),
                "false_trigger": _rate(1, 8, 0.0, 0.47),
                "confusion": [{"taken_by": "(none)", "count": 1}],
                "verdict": "pass",
                "against": {"recall_then": _rate(8, 12, 0.35, 0.9), "change": change},
            },
            {
                "skill": "skills/evil",
                "recall": _rate(3, 12, 0.05, 0.57),
                "false_trigger": _rate(0, 8, 0.0, 0.37),
                "confusion": [{"taken_by": HOSTILE, "count": 9}],
                "verdict": "fail",
                "against": None,
            },
            {
                "skill": "skills/quiet",
                "recall": _rate(0, 0, 0.0, 0.0),
                "false_trigger": _rate(0, 4, 0.0, 0.6),
                "confusion": [],
                "verdict": "unmeasured",
                "against": None,
            },
        ],
        "tokens": 52_000,
        "model_calls": 80,
    }


@dataclasses.dataclass(frozen=True)
class _SkillStub:
    """The one field :func:`~aces_ci.trials._transcript.fit_transcripts` reads and replaces."""

    cases: tuple[Any, ...]


def full_transcript(i: int, filler: str = "x") -> Any:
    """A transcript at every cap: the most a rollout can add to a result."""
    from aces_ci.trials import Transcript, TranscriptCall, TranscriptStep
    from aces_ci.trials._transcript import ARGUMENT_CHARS, MAX_STEPS, RESULT_CHARS, TEXT_CHARS

    step = TranscriptStep(
        "agent",
        filler * TEXT_CHARS,
        calls=(TranscriptCall("bash", filler * ARGUMENT_CHARS),),
        results=(filler * RESULT_CHARS,),
        skill_events=(f"script run demo/scripts/run{i}.sh",),
    )
    return Transcript((step,) * MAX_STEPS)


def with_full_transcripts(skill: dict[str, Any]) -> list[Any]:
    """Give every case of ``skill`` both arms' transcripts at every cap, fitted into the result's budget as a trial
    fits them; the fitted case rows."""
    from aces_ci.report._trial_json import _plain
    from aces_ci.trials import CaseRow
    from aces_ci.trials._transcript import fit_transcripts

    rows = tuple(
        CaseRow(c["case"], (), (), None, None, None, full_transcript(i), full_transcript(i))
        for i, c in enumerate(skill["cases"])
    )
    (fitted,) = fit_transcripts([_SkillStub(rows)])  # type: ignore[list-item]
    for case, row in zip(skill["cases"], fitted.cases, strict=True):
        case["with_transcript"] = _plain(row.with_transcript)
        case["control_transcript"] = _plain(row.control_transcript)
    return list(fitted.cases)


def value_doc_at_the_bound(units: int = 60) -> dict[str, Any]:
    """:func:`value_doc` whose documents hold as much text as a value JSON may keep: the text resource at the
    per-file bound, more reference files until the total bound is reached (the last one cut, as the JSON cuts)."""
    from aces_ci.skillsv._value_json import MAX_DOCUMENT_CHARS, MAX_DOCUMENTS_CHARS

    doc = value_doc(units)
    line = "A reference line that a unit of the skill covers, long enough to wrap on a phone.\n"
    full = line * (MAX_DOCUMENT_CHARS // len(line))
    documents = [d for d in doc["documents"] if d["file"] != "references/forms.md"]
    left = MAX_DOCUMENTS_CHARS - sum(len(d["text"] or "") for d in documents)
    for k in range(MAX_DOCUMENTS_CHARS // MAX_DOCUMENT_CHARS + 1):
        kept = full[: (min(len(full), left) // len(line)) * len(line)]
        if not kept:
            break
        left -= len(kept)
        lines = kept.count("\n")
        file = "references/forms.md" if k == 0 else f"references/part{k}.md"
        documents.append(
            {
                "file": file,
                "binary": False,
                "bytes": len(full),
                "lines": full.count("\n"),
                "shown_lines": lines,
                "truncated": lines < full.count("\n"),
                "text": kept,
            }
        )
    doc["documents"] = documents
    return doc


COMPRESS_HOSTILE = '<img src=x onerror="alert(1)">'
DIFF = (
    "--- a/skills/acme/SKILL.md\n+++ b/skills/acme/SKILL.md\n@@ -3,3 +3,2 @@\n- Refunds: 45 days.\n"
    f"-- Caution: never quote refund periods. {COMPRESS_HOSTILE}\n- Style: be brief.\n"
)


def _contrast(delta: float, low: float, high: float) -> dict[str, Any]:
    return {
        "delta": delta,
        "ci": [low, high],
        "n_cases": 12,
        "runs": 2,
        "original_mean": 0.5,
        "candidate_mean": 0.5 + delta,
        "mde": 0.2,
        "method": "paired t over cases",
        "coupling": "shared-seed",
    }


def compress_doc() -> dict[str, Any]:
    """A pruned candidate accepted, an edited one rejected after a refused answer; hostile strings throughout."""
    pruned = {
        "kind": "pruned",
        "verdict": "accepted",
        "reason": "the interval's lower bound +0.050 lies above the tolerance -0.050",
        "tokens": 90,
        "tokens_kept": 0.9,
        "files": ["SKILL.md"],
        "changes": [
            {
                "unit": f"u4{COMPRESS_HOSTILE}",
                "file": f"SKILL{COMPRESS_HOSTILE}.md",
                "lines": [13, 14],
                "change": "removed",
                "decision": "delete",
                "because_of": None,
            }
        ],
        "contrast": _contrast(0.25, 0.05, 0.45),
        "new_findings": [],
        "attempts": 0,
        "rejected_answers": [],
        "diff": DIFF,
    }
    edited = dict(
        pruned,
        kind="edited",
        verdict="rejected",
        reason=f"loses score {COMPRESS_HOSTILE}",
        tokens=60,
        tokens_kept=0.6,
        contrast=_contrast(-0.3, -0.5, -0.1),
        attempts=2,
        rejected_answers=[f"scripts/total.sh is gone {COMPRESS_HOSTILE}"],
        changes=[],
    )
    return {
        "schema_version": 1,
        "tool": {"name": "aces-ci", "version": "0.1.0"},
        "skill": f"acme{COMPRESS_HOSTILE}",
        "skill_dir": "skills/acme",
        "oracle": "live:openai/m",
        "seed": 0,
        "runs": 2,
        "tolerance": -0.05,
        "original_tokens": 100,
        "panel": {"attribution": [f"q{i}" for i in range(12)], "held_out": [f"q{i}" for i in range(12, 24)]},
        "values_from": "valued",
        "decisions": {"u4": "delete"},
        "decision_line": "cut 1 unit",
        "editor": "openai/m",
        "candidates": [pruned, edited],
        "accepted": "pruned",
        "stopped_by": None,
        "cost": {"rollouts": 10, "cost_usd": 0.1, "editor_calls": 2, "editor_cost_usd": 0.01},
        "notes": [f"note {COMPRESS_HOSTILE}"],
    }
