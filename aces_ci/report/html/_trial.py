"""A trial result's parts of the page: the verdict per skill, the lift forest plots, the cases, the cost.

Everything is read from the ``trial --json`` document (``schemas/trial-result.schema.json``);
the headline and the cost line are worded by the same functions as the PR comment
(:func:`~aces_ci.report._ci_sections.headline_parts`, ``cost_ratio``), so the numbers agree.
What the JSON does not hold (each run's full trajectory; in older results the commits compared or
the per-case trigger) is said, not guessed.
"""

from __future__ import annotations

from typing import Any

from .._ci_sections import cost_ratio, headline_parts
from .._common import skill_title
from .._live_model import TRIAL_METRICS
from ._escape import interval, number, text
from ._svg import ForestRow, forest
from ._transcripts import transcript_pair
from ._views import CaseView, skill_view

ANSWER_FOLD = 600
"""Characters of an answer shown before the rest is folded into a ``<details>``."""


def _title(skill: dict[str, Any]) -> str:
    return skill_title(skill["skill"], skill["name"])


def _badge(verdict: str) -> str:
    return f'<span class="verdict v-{text(verdict, 20)}">{text(verdict, 20)}</span>'


def verdict_block(doc: dict[str, Any], source: str) -> str:
    """Who ran what (model, harness, protocol, gate) and, per skill, its verdict with the comment's headline."""
    agent, protocol, gate = doc["agent"], doc["protocol"], doc["gate"]
    harness = agent["harness"] + (f" {agent['harness_version']}" if agent.get("harness_version") else "")
    rows = []
    for skill in doc["skills"]:
        arms, size = headline_parts(skill_view(skill), skill["gate_metric"], doc["confidence"])
        settle = skill.get("settle") or {}
        against = skill.get("against")
        rows.append(
            f'<tr class="skill-verdict" data-skill="{text(skill["skill"], 200)}"><td>{text(_title(skill), 120)}</td>'
            f'<td>{_badge(skill["verdict"])}</td><td class="headline">{text(arms, 200)}, {text(size, 200)}</td>'
            f"<td>{text(skill['contrast'], 200)}{'' if against is None else ' (against ' + text(against, 80) + ')'}"
            f"</td><td>{text(skill['verdict_reason'], 400)}"
            f"{'' if not settle.get('advice') else '<br><span class=note>' + text(settle['advice'], 400) + '</span>'}"
            "</td></tr>"
        )
    estimands = "".join(_estimand(skill) for skill in doc["skills"])
    return (
        f'<div class="trial-header"><h3>Trial {_badge(doc["verdict"])} <span class="muted">from {text(source, 200)}'
        f"</span></h3><p>Model <b>{text(agent['provider'], 40)}/{text(agent['model'], 120)}</b>, harness "
        f"<b>{text(harness, 120)}</b>, run {text(doc['generated_at'], 40)} by aces-ci "
        f"{text(doc['tool']['version'], 40)}"
        f"; {protocol['runs']} run(s) per case and arm, {text(protocol['coupling'], 20)} coupling, "
        f"{text(protocol['mode'], 20)} mode, seed {protocol['seed']}; gated metric {text(gate['metric'], 40)}, "
        f"pass at ≥ {number(gate['pass_band'], 2, signed=True)}, fail at ≤ {number(gate['fail_band'], 2, signed=True)}"
        f", {round(doc['confidence'] * 100)}% intervals. {_commits(doc['skills'])}</p>"
        '<table class="verdicts"><thead><tr><th>Skill</th><th>Verdict</th><th>Headline</th><th>Contrast</th>'
        f"<th>Why</th></tr></thead><tbody>{''.join(rows)}</tbody></table>{estimands}</div>"
    )


def _short(commit: str) -> str:
    return commit[:12] + ("-dirty" if commit.endswith("-dirty") else "")


def _commits(skills: list[dict[str, Any]]) -> str:
    """The commit each skill ran at and, for ``--against``, the commit it was compared with (escaped)."""
    if not any("commit" in skill for skill in skills):
        return "Commits compared: not recorded in this trial result (written before they were)."
    parts = []
    for skill in skills:
        head, base = skill.get("commit"), skill.get("against_commit")
        line = f"{_title(skill)} at {'a tree outside git' if head is None else _short(head)}"
        parts.append(line + ("" if base is None else f" against {_short(base)}"))
    return text("Commits compared: " + "; ".join(parts) + ".", 2000)


def _estimand(skill: dict[str, Any]) -> str:
    axes = skill["estimand_axes"]
    items = "".join(
        f"<dt>{name}</dt><dd>{text(axes[key], 600)}</dd>"
        for key, name in (
            ("contrast", "Contrast"),
            ("population", "Population"),
            ("unit", "Unit, coupling, runs"),
            ("budget", "Budget"),
            ("summary", "Summary"),
            ("identification", "Identification"),
        )
    )
    return (
        f'<p class="estimand"><b>Estimand ({text(_title(skill), 120)}):</b> {text(skill["estimand"], 1200)}</p>'
        f"<details><summary>The six axes</summary><dl>{items}</dl></details>"
    )


def _no_variation(lift: dict[str, Any]) -> bool:
    low, high = lift["ci"]
    return bool(low == high)


def _forest_rows(skill: dict[str, Any]) -> tuple[list[ForestRow], list[str]]:
    rows, unplotted = [], []
    for metric in TRIAL_METRICS:
        lift = skill["lift"].get(metric)
        name = metric.replace("_", " ")
        if lift is None:
            reason = skill["not_applicable"].get(metric, "not measured")
            unplotted.append(f"{name}: {reason}")
        elif _no_variation(lift):
            unplotted.append(f"{name}: no variation (every run scored {number(lift['with_mean'], 2)} in both arms)")
        else:
            label = (
                f"{name} {number(lift['without_mean'], 2)}→{number(lift['with_mean'], 2)} "
                f"n={lift['n_cases']}×{lift['runs_per_arm']}"
            )
            rows.append(ForestRow(label, lift["delta"], lift["ci"][0], lift["ci"][1]))
    floor = skill.get("noise_floor")
    if floor is not None:
        label = f"A/A noise floor n={floor['n_cases']}×{floor['runs_per_arm']}"
        rows.append(ForestRow(label, floor["delta"], floor["ci"][0], floor["ci"][1], aa=True))
    return rows, unplotted


def _lift_table(skill: dict[str, Any]) -> str:
    body = []
    for metric in TRIAL_METRICS:
        lift = skill["lift"].get(metric)
        if lift is None:
            continue
        body.append(
            f'<tr data-metric="{metric}"><td>{metric.replace("_", " ")}</td>'
            f'<td class="num">{number(lift["without_mean"])}</td><td class="num">{number(lift["with_mean"])}</td>'
            f'<td class="num delta">{number(lift["delta"], signed=True)}</td>'
            f'<td class="num">{interval(lift["ci"])}</td>'
            f'<td class="num">{lift["n_cases"]}</td><td class="num">{lift["runs_per_arm"]}</td>'
            f'<td class="num">{number(lift.get("mde"))}</td></tr>'
        )
    return (
        '<table class="lift-table sortable"><thead><tr><th>Metric</th><th class="num">Control</th>'
        '<th class="num">With</th><th class="num">Lift</th><th class="num">Interval</th><th class="num">Cases</th>'
        f'<th class="num">Runs/arm</th><th class="num">Smallest detectable</th></tr></thead><tbody>{"".join(body)}'
        "</tbody></table>"
    )


def lift_block(doc: dict[str, Any]) -> str:
    """Per skill: the forest plot of every metric that varied, the table of the same numbers, and what is not drawn."""
    gate = doc["gate"]
    parts = []
    for skill in doc["skills"]:
        rows, unplotted = _forest_rows(skill)
        title = f"Lift per metric for {_title(skill)} ({skill['contrast']})"
        plot = forest(title, rows, gate["pass_band"], gate["fail_band"]) if rows else ""
        floor = (
            ""
            if skill.get("noise_floor")
            else '<p class="note">A/A noise floor: not measured in this trial (trial --control aa measures it).</p>'
        )
        listed = "".join(f"<li>{text(line, 300)}</li>" for line in unplotted)
        parts.append(
            f'<div class="skill-lift" data-skill="{text(skill["skill"], 200)}"><h3>{text(_title(skill), 120)} '
            f"{_badge(skill['verdict'])}</h3>{plot}{_lift_table(skill)}{floor}"
            f"{'<p>Not drawn:</p><ul class=unplotted>' + listed + '</ul>' if listed else ''}</div>"
        )
    return "".join(parts)


def _arm_figure(scores: list[float | None]) -> tuple[str, float | None]:
    scored = [s for s in scores if s is not None]
    if not scored:
        return "no score", None
    mean = sum(scored) / len(scored)
    runs = " ".join("·" if s is None else number(s, 2) for s in scores)
    return f"{number(mean, 2)} ({runs})", mean


def _answer(label: str, answer: str | None) -> str:
    if answer is None:
        return f"<div><h4>{label}</h4><p class=missing>No answer kept in the result.</p></div>"
    if len(answer) <= ANSWER_FOLD:
        return f"<div><h4>{label}</h4><pre>{text(answer)}</pre></div>"
    return (
        f"<div><h4>{label}</h4><pre>{text(answer[:ANSWER_FOLD])}</pre><details><summary>"
        f"{len(answer) - ANSWER_FOLD} more characters</summary><pre>{text(answer[ANSWER_FOLD:])}</pre></details></div>"
    )


def _trigger_cell(raw: dict[str, Any]) -> str:
    """Whether each with-run loaded the skill: ``2/3 loaded`` and a mark per run (✓ loaded, ✗ not, · unknown),
    sorted by the share; a result written before it was recorded says so."""
    if "with_triggered" not in raw:
        return '<td class="trigger" data-v="">not recorded</td>'
    flags = raw["with_triggered"]
    if flags is None:
        return '<td class="trigger" data-v="">no skill to load</td>'
    known = [flag for flag in flags if flag is not None]
    share = sum(known) / len(known) if known else None
    marks = " ".join("·" if flag is None else "✓" if flag else "✗" for flag in flags)
    return (
        f'<td class="trigger" data-v="{number(share, 4, missing="")}">{sum(known)}/{len(known)} loaded'
        f'<br><span class="muted">{marks}</span></td>'
    )


def _case_row(case: CaseView, raw: dict[str, Any]) -> str:
    with_text, with_mean = _arm_figure(list(case.with_scores))
    ctl_text, ctl_mean = _arm_figure(list(case.control_scores))
    diff = None if with_mean is None or ctl_mean is None else with_mean - ctl_mean
    label = "—" if diff is None else ("gain" if diff > 0 else "regression" if diff < 0 else "tie")
    prompt = "" if case.prompt is None else f"<p><b>Prompt</b></p><pre>{text(case.prompt, 4000)}</pre>"
    return (
        f'<tr data-case="{text(case.case, 200)}"><td data-v="{text(case.case, 200)}">{text(case.case, 200)}'
        f'<details class="transcript"><summary>'
        f'rollouts side by side</summary>{prompt}<div class="pair">{_answer("With the skill", case.with_answer)}'
        f"{_answer('Control', case.control_answer)}</div>{transcript_pair(raw)}</details></td>"
        f'<td class="num" data-v="{number(with_mean, 4, missing="")}">{with_text}</td>'
        f'<td class="num" data-v="{number(ctl_mean, 4, missing="")}">{ctl_text}</td>'
        f'<td data-v="{number(diff, 4, missing="")}">{label}</td>{_trigger_cell(raw)}</tr>'
    )


def cases_block(doc: dict[str, Any]) -> str:
    """Per skill: every case's runs per arm and its discordance, sortable and filterable, each row folding open
    to the prompt and both arms' answers."""
    parts = []
    for index, skill in enumerate(doc["skills"]):
        view = skill_view(skill)
        table_id = f"cases-{index}"
        metric = text(skill["gate_metric"], 40)
        trig = skill.get("trigger")
        trigger = (
            "Trigger: not measured in this trial."
            if trig is None
            else f"Trigger rate {number(trig['rate'], 2)} over {trig['triggered_runs'] + trig['skipped_runs']} runs "
            f"({trig['cases_always']} cases always, {trig['cases_sometimes']} sometimes, {trig['cases_never']} never "
            f"triggered; event: {trig['trigger_event']})."
        )
        disc = skill.get("discordance")
        discord = "" if disc is None else f" Discordance: {text(disc['label'], 300)}."
        rows = "".join(_case_row(case, raw) for case, raw in zip(view.cases, skill["cases"], strict=True))
        parts.append(
            f'<div class="skill-cases" data-skill="{text(skill["skill"], 200)}"><h3>{text(_title(skill), 120)}</h3>'
            f"<p>{text(trigger, 600)}{discord} Transcripts: each arm's first run of a case, redacted and cut as "
            "the trial recorded it; the rollout store holds the full trajectories.</p>"
            f'<input class="filter" type="search" placeholder="filter cases" data-table="{table_id}">'
            f'<table class="cases sortable" id="{table_id}"><thead><tr><th>Case</th>'
            f'<th class="num">With: {metric} (runs)</th><th class="num">Control: {metric} (runs)</th>'
            f"<th>Discordance</th><th>Trigger (with-runs that loaded the skill)</th></tr></thead><tbody>{rows}"
            "</tbody></table></div>"
        )
    return "".join(parts)


_COST_FIELDS = ("rollouts", "input_tokens", "output_tokens", "cached_tokens", "calls", "turns")


def _lift_per_cost(skill: dict[str, Any]) -> str:
    """Lift per extra dollar as the result states it; without a price, per extra 1k tokens from the arms' totals."""
    per = skill["cost"].get("lift_per_dollar")
    if per is not None and per.get("lift_per_extra_usd") is not None:
        return (
            f"Lift per extra dollar: {number(per['lift_per_extra_usd'], 3)} "
            f"(extra {number(per['extra_usd_per_rollout'], 4)} $ per rollout). {per['note']}"
        )
    arms, lift = skill["cost"]["arms"], skill["lift"].get(skill["gate_metric"])
    unpriced = "Lift per extra dollar: not computed (no price for this model)."
    if lift is None or len(arms) < 2 or not arms[0]["rollouts"] or not arms[1]["rollouts"]:
        return unpriced
    per_rollout = [(a["input_tokens"] + a["output_tokens"]) / a["rollouts"] for a in arms[:2]]
    extra_k = (per_rollout[0] - per_rollout[1]) / 1000
    if extra_k <= 0:
        return f"{unpriced} The {arms[0]['arm']} arm used no more tokens per rollout than {arms[1]['arm']}."
    return (
        f"{unpriced} Lift per extra 1k tokens: {number(lift['delta'] / extra_k, 3, signed=True)} "
        f"({skill['gate_metric']} lift {number(lift['delta'], 3, signed=True)} over {number(extra_k, 2)}k extra "
        "input and output tokens per rollout)."
    )


def cost_block(doc: dict[str, Any]) -> str:
    """Per skill: tokens, calls, dollars and wall time per arm, the comment's cost line and the lift per dollar."""
    parts = []
    for skill in doc["skills"]:
        rows = "".join(
            f"<tr><td>{text(arm['arm'], 80)}</td>"
            + "".join(f'<td class="num">{arm[f]:,}</td>' for f in _COST_FIELDS)
            + f'<td class="num">{number(arm["wall_s"], 1)}</td>'
            f'<td class="num">{number(arm["usd"], 4, missing="no price")}</td></tr>'
            for arm in skill["cost"]["arms"]
        )
        per_line = _lift_per_cost(skill)
        ratio = cost_ratio(skill_view(skill).cost)
        parts.append(
            f'<div class="skill-cost" data-skill="{text(skill["skill"], 200)}"><h3>{text(_title(skill), 120)}</h3>'
            '<table class="cost sortable"><thead><tr><th>Arm</th><th class="num">Rollouts</th>'
            '<th class="num">Input tokens</th><th class="num">Output tokens</th><th class="num">Cached tokens</th>'
            '<th class="num">Calls</th><th class="num">Turns</th><th class="num">Wall s</th><th class="num">USD</th>'
            f"</tr></thead><tbody>{rows}</tbody></table><p>{text(ratio or 'No second arm to compare.', 400)}</p>"
            f"<p>{text(per_line, 600)}</p></div>"
        )
    spent = doc["spent"]
    parts.append(
        f"<p>Spent by this trial: {spent['rollouts_run']} rollouts run, {spent['rollouts_reused']} reused, "
        f"{spent['input_tokens']:,} input and {spent['output_tokens']:,} output tokens, "
        f"{text(number(spent['usd'], 4, missing='no price') + ' USD')}"
        f"{'' if doc['stopped_by'] is None else '; stopped by ' + text(doc['stopped_by'], 40)}.</p>"
    )
    return "".join(parts)
