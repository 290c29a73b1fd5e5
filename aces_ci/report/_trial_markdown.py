"""The trial report in GitHub Markdown: the job summary, or a file to attach to a release.

A summary table (one row per skill: verdict, gated lift and its interval, n × runs), then per
skill the lift table and cost table of the CI comment (:func:`lift_table`, :func:`cost_table`),
its lift chart, the honesty sentences of :mod:`aces_ci.report._trial_lines`, negative-lift triage
in a collapsed block, and the estimand of every skill at the end. Text from skills and
trajectories is escaped cell by cell, so no answer can break a table or inject HTML.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._ci_sections import case_table, cost_table, estimand_section, lift_table, metric_lifts
from ._ci_sections import headline as skill_headline
from ._common import plural, skill_title
from ._md_escape import cell as _cell
from ._mermaid import lift_chart
from ._trial_lines import (
    VERDICT_WORDS,
    cost_line,
    degradation_line,
    discordance_line,
    extra_lines,
    gate_line,
    gated_lift,
    headline,
    interval,
    lift_notes,
    run_line,
    settle_line,
    signed,
    triage_lines,
    trigger_line,
    verdict_line,
)

if TYPE_CHECKING:  # the models are only read here; importing them would load the live tier into a scan
    from ..trials import MetricLiftResult, SkillTrialResult, TrialResult

TRIAL_MARKER = "<!-- aces-ci:trial -->"
_ICONS = {"pass": "✅", "neutral": "➖", "underpowered": "⚠️", "fail": "❌"}


def _lift_cells(lift: MetricLiftResult | None) -> str:
    """Lift, interval and cases × runs as three table cells."""
    if lift is None:
        return "— | — | —"
    return f"{signed(lift.delta)} | {interval(lift.ci)} | {lift.n_cases} × {lift.runs_per_arm}"


def _summary(result: TrialResult) -> str:
    lines = ["| Skill | Verdict | Lift | Interval | Cases × runs |", "|---|---|--:|--:|--:|"]
    for skill in result.skills:
        figures = _lift_cells(gated_lift(skill))
        verdict = f"{_ICONS[skill.verdict]} {VERDICT_WORDS[skill.verdict].lower()}"
        lines.append(f"| {_cell(skill_title(skill.skill, skill.name), 120)} | {verdict} | {figures} |")
    return "\n".join(lines) + "\n"


def _wall(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds:.1f}s"


def _stress_table(skill: SkillTrialResult) -> str:
    """Routing stress test: the gated metric's lift and the wall time per rollout against the visible decoys."""
    lines = [
        f"**Routing stress test** ({_cell(skill.gate_metric.replace('_', ' '), 40)} lift against the number of "
        "decoy skills the agent sees)\n",
        "| Visible decoys | Lift | Interval | Cases × runs | Wall time per with-run | per without-run |",
        "|--:|--:|--:|--:|--:|--:|",
    ]
    for level in skill.stress:
        figures = _lift_cells(level.lift)
        walls = f"{_wall(level.with_mean_wall_s)} | {_wall(level.without_mean_wall_s)}"
        lines.append(f"| {level.visible_decoys} | {figures} | {walls} |")
    return "\n".join(lines) + "\n"


def _skill_section(skill: SkillTrialResult, result: TrialResult) -> str:
    parts = [f"### {_cell(skill_title(skill.skill, skill.name), 120)}: {_ICONS[skill.verdict]} {skill.verdict}\n"]
    parts.append(f"{_cell(skill.contrast, 300)}. {_cell(verdict_line(skill), 1000)}\n\n")
    if (settle := settle_line(skill)) is not None:
        parts.append(f"{_cell(settle, 1000)}\n\n")
    parts.append(case_table(skill))
    parts.append(lift_table(skill, result.confidence))
    gated = gated_lift(skill)
    if gated is not None:
        parts.extend(f"\n_{_cell(note, 400)}._\n" for note in lift_notes(gated))
    chart = lift_chart(
        metric_lifts(skill),
        title=f"{skill.name}, {skill.contrast}: lift by metric",
        confidence=result.confidence,
        pass_band=result.bands.pass_band,
        fail_band=result.bands.fail_band,
    )
    if chart:
        parts.append("\n" + chart)
    facts = [line for line in (degradation_line(skill), trigger_line(skill)) if line is not None]
    facts += extra_lines(skill)
    facts += [f"{metric.replace('_', ' ')}: no lift ({reason})" for metric, reason in skill.not_applicable.items()]
    if discordance_line(skill) is None and skill.lift.get(skill.gate_metric) is None:
        facts.append("no case was scored in both conditions")
    if facts:
        parts.append("\n" + "".join(f"- {_cell(fact, 1000)}\n" for fact in facts))
    if skill.stress:
        parts.append("\n" + _stress_table(skill))
    parts.append("\n" + cost_table(skill.cost))
    parts.append(f"\n{_cell(cost_line(skill), 2000)}. {_cell(run_line(skill), 400)}.\n")
    triage = triage_lines(skill)
    if triage:
        body = "".join(f"- {_cell(line.strip(), 600)}\n" for line in triage)
        parts.append(f"\n<details>\n<summary>Negative-lift triage ({plural(len(skill.triage), 'case')})</summary>\n\n")
        parts.append(body + "\n</details>\n")
    parts.extend(f"\n> {_cell(note, 600)}\n" for note in skill.notes)
    return "".join(parts)


def render_trial_markdown(result: TrialResult) -> str:
    """The whole trial as one Markdown document."""
    parts = [TRIAL_MARKER, "\n## aces-ci trial\n\n", f"{_cell(headline(result), 400)}\n\n"]
    parts.append(f"{_cell(gate_line(result), 400)}\n\n")
    parts.extend(
        f"- {skill_headline(skill, skill.gate_metric, result.confidence, skill.verdict)}\n" for skill in result.skills
    )
    parts.append("\n")
    parts.append(_summary(result))
    repo = result.repository
    if repo is not None and repo.delta is not None:
        parts.append(
            f"\nRepository: mean {result.gate_metric} lift {signed(repo.delta)} {interval(repo.ci)} over "
            f"{plural(repo.n_skills, 'skill')} ({_cell(repo.method, 300)}).\n"
        )
    parts.extend(f"\n> {_cell(note, 600)}\n" for note in result.notes)
    for skill in result.skills:
        parts.append("\n" + _skill_section(skill, result))
    parts.append("\n" + estimand_section(result.skills))
    spent = result.spent
    usd = "unpriced" if spent.usd is None else f"${spent.usd:.4f}"
    parts.append(
        f"\n_Spent now: {plural(spent.rollouts_run, 'rollout')} run, {spent.rollouts_reused} reused, "
        f"{spent.input_tokens + spent.output_tokens:,} tokens, {usd}._\n"
    )
    return "".join(parts)
