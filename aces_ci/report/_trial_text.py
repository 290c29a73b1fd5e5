"""The human-readable trial report: what a skill author reads in a terminal or a CI log.

One block per skill: the verdict and why, the lift table (every metric: lift, its interval, both
means, n cases, runs per arm, the smallest detectable lift, and the naive pooled interval beside
it for comparison), the sentences that keep the numbers honest (discordance is not harm, small-n
intervals are rough, what would settle an underpowered verdict), the cost, negative-lift triage,
and the estimand in words. Then the repository summary and what this command spent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tabulate import tabulate

from ..safe_text import inline, one_line
from ._ci_sections import CASE_HEADERS, case_rows, cost_ratio, headline_parts
from ._common import plural, skill_title
from ._mermaid import NO_VARIATION
from ._trial_lines import (
    cost_line,
    degradation_line,
    discordance_line,
    extra_lines,
    gate_line,
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
    from ..trials import SkillTrialResult, TrialResult

_INDENT = "  "


def _lift_table(skill: SkillTrialResult, confidence: float) -> str:
    rows = []
    for metric, lift in skill.lift.items():
        if lift is None:
            continue
        rows.append(
            [
                metric.replace("_", " ") + (" *" if metric == skill.gate_metric else ""),
                signed(lift.delta),
                interval(lift.ci) + ("" if lift.se is not None else f" ({NO_VARIATION})"),
                f"{lift.with_mean:.3f}",
                f"{lift.without_mean:.3f}",
                str(lift.n_cases),
                str(lift.runs_per_arm),
                "—" if lift.mde is None else f"{lift.mde:.3f}",
                interval(lift.naive_ci),
            ]
        )
    headers = ["metric", "lift", f"{round(confidence * 100)}% interval", "with", "control", "cases", "runs", "mde"]
    headers.append("naive (pooled runs)")
    table = tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True) if rows else "no metric scored"
    return "\n".join(_INDENT + line for line in table.splitlines())


def _case_lines(skill: SkillTrialResult) -> list[str]:
    """Per case: prompt, each arm's run scores of the gated metric and first answer, cut as the comment cuts them
    (:func:`~aces_ci.report.case_rows`), each on one line of its own cell: what a reviewer scans for."""
    rows, left_out = case_rows(skill, one_line)
    if not rows:
        return []
    metric = skill.gate_metric.replace("_", " ")
    table = tabulate(rows, headers=CASE_HEADERS, tablefmt="simple", disable_numparse=True)
    lines = [f"{_INDENT}per case ({metric} in each run; the first run's answer):"]
    lines.extend(_INDENT + _INDENT + line for line in table.splitlines())
    if left_out:
        lines.append(f"{_INDENT}{_INDENT}{plural(left_out, 'more case')} in the JSON report")
    return lines


def _skill_block(skill: SkillTrialResult, result: TrialResult) -> list[str]:
    title = inline(skill_title(skill.skill, skill.name))
    lines = [f"{title} — {skill.verdict.upper()}", f"{_INDENT}{inline(skill.contrast)}"]
    lines.append(f"{_INDENT}{verdict_line(skill)}")
    if (settle := settle_line(skill)) is not None:
        lines.append(f"{_INDENT}{settle}")
    lines.append(_lift_table(skill, result.confidence))
    if any(lift is not None for lift in skill.lift.values()):
        lines.append(f"{_INDENT}* gated metric; mde = smallest lift this design detects with 80% power")
    gated = skill.lift.get(skill.gate_metric)
    if gated is not None:
        lines.extend(f"{_INDENT}note: {note}" for note in lift_notes(gated))
    for metric, reason in skill.not_applicable.items():
        lines.append(f"{_INDENT}{metric.replace('_', ' ')}: no lift ({inline(reason)})")
    for line in (discordance_line(skill), degradation_line(skill), trigger_line(skill)):
        if line is not None:
            lines.append(f"{_INDENT}{line}")
    lines.extend(f"{_INDENT}{inline(line)}" for line in extra_lines(skill))
    lines.append(f"{_INDENT}{cost_line(skill)}")
    lines.append(f"{_INDENT}{run_line(skill)}")
    lines.extend(_case_lines(skill))
    triage = triage_lines(skill)
    if triage:
        lines.append(f"{_INDENT}negative-lift triage:")
        lines.extend(f"{_INDENT}{_INDENT}{inline(line)}" for line in triage)
    lines.extend(f"{_INDENT}note: {inline(note)}" for note in skill.notes)
    lines.append(f"{_INDENT}what this estimates:")
    lines.extend(f"{_INDENT}{_INDENT}{inline(sentence)}" for sentence in skill.estimand_axes.values())
    return lines


def render_trial_text(result: TrialResult) -> str:
    """The whole report as plain text (no colour; byte-identical for the same result but its timestamp)."""
    lines = [headline(result), gate_line(result), ""]
    for skill in result.skills:
        arms, size = headline_parts(skill, skill.gate_metric, result.confidence)
        cost = cost_ratio(skill.cost)
        title = inline(skill_title(skill.skill, skill.name))
        lines.append(f"{title}: {arms}, {size}, {skill.verdict}" + (f"; {inline(cost)}" if cost else ""))
    lines.append("")
    for skill in result.skills:
        lines.extend(_skill_block(skill, result))
        lines.append("")
    if (repo := result.repository) is not None and repo.delta is not None:
        lines.append(
            f"repository: mean {result.gate_metric} lift {repo.delta:+.3f} {interval(repo.ci)} over "
            f"{plural(repo.n_skills, 'skill')} ({repo.method})"
        )
    lines.extend(f"note: {inline(note)}" for note in result.notes)
    spent = result.spent
    usd = "unpriced" if spent.usd is None else f"${spent.usd:.4f}"
    lines.append(
        f"spent now: {plural(spent.rollouts_run, 'rollout')} run, {spent.rollouts_reused} reused from the cache or "
        f"journal, {spent.input_tokens + spent.output_tokens:,} tokens, {usd}"
    )
    counts = {label: sum(1 for s in result.skills if s.verdict == label) for label in ("pass", "neutral")}
    counts |= {label: sum(1 for s in result.skills if s.verdict == label) for label in ("underpowered", "fail")}
    summary = ", ".join(f"{n} {label}" for label, n in counts.items() if n)
    lines.append(f"trial {result.verdict}: {summary or 'no skill'}")
    return "\n".join(lines) + "\n"


def trial_warnings(result: TrialResult) -> list[str]:
    """What stderr says beside the report: each underpowered skill (and whether it fails the gate), and the
    rollouts that ended as infrastructure errors or could not be graded (a rerun retries exactly those)."""
    warnings = []
    what = "fails the gate (gate.underpowered: fail)" if result.bands.underpowered_fails else "passes with a warning"
    for skill in result.skills:
        if skill.verdict == "underpowered":
            warnings.append(f"warning: {skill.skill} is underpowered and {what}: {skill.verdict_reason}")
    if result.infra_errors:
        warnings.append(
            f"{result.infra_errors} rollout(s) ended as infrastructure errors or could not be graded; "
            "rerun to retry them (finished rollouts come from the cache)"
        )
    return warnings
