"""A rerun against the release baselines: per skill, lift now vs then, the interval of the difference, what changed.

:func:`compare` pairs each skill of a rerun's :class:`~aces_ci.trials.TrialResult` with its
:class:`~aces_ci.github._baselines.SkillBaseline` and computes the change of the gated lift with
:func:`aces_ci.stats.lift_change` (cases paired across the two trials; see its docstring for what
the interval assumes). A regression is flagged only when that interval lies below zero — a lower
point estimate alone is not one. :func:`change_criteria` turns the comparison into gate criteria
(``rerun.regression``) and :func:`history_section` into the comment's table, with the agent of
then and now side by side so "what changed" (the model id, the harness, aces-ci) is visible.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from ..gate import CriterionStatus, GateCriterion
from ..report import fmt_interval, fmt_lift, markdown_cell
from ..stats import LiftChange, lift_change
from ..trials import TrialResult
from ._baselines import Agent, SkillBaseline, skill_case_lifts


@dataclass(frozen=True)
class SkillChange:
    """One skill's lift now against its last release's."""

    skill: str
    skill_md: str
    metric: str
    now: float | None
    now_ci: tuple[float, float] | None
    baseline: SkillBaseline | None
    """None: no release has measured this skill yet."""
    change: LiftChange | None
    agent_now: Agent
    seed_now: int
    note: str = ""
    edited: bool = False
    """The skill's files changed since the release's commit: the change mixes the edit with any agent change."""

    @property
    def what_changed(self) -> str:
        """The agent's parts that differ between then and now, in words (empty when nothing did)."""
        if self.baseline is None:
            return ""
        then, now = self.baseline.agent, self.agent_now
        parts = [f"skill edited since {self.baseline.release}"] if self.edited else []
        parts += [
            f"{label} {old} → {new}"
            for label, old, new in (
                ("model", f"{then.provider}/{then.model}", f"{now.provider}/{now.model}"),
                ("harness", f"{then.harness} ({then.disclosure})", f"{now.harness} ({now.disclosure})"),
                ("aces-ci", then.tool_version, now.tool_version),
                ("harness build", then.harness_version, now.harness_version),
            )
            if old != new and old is not None and new is not None
        ]
        return "; ".join(parts)


def compare(
    result: TrialResult, baselines: Mapping[str, SkillBaseline], alpha: float, edited: Collection[str] = ()
) -> list[SkillChange]:
    """Every skill of the rerun against its baseline (when there is one on the same metric).

    ``edited`` names the skills whose files changed since their release's commit: their change of
    lift is not the agent's alone, and the comparison says so.
    """
    agent = Agent.of(result)
    changes = []
    for skill in result.skills:
        lift = skill.lift.get(result.gate_metric)
        base = baselines.get(skill.skill)
        change, note = None, ""
        if base is None:
            note = "no release has measured this skill yet: nothing to compare with"
        elif base.metric != result.gate_metric:
            note = f"the baseline gated {base.metric}, this run {result.gate_metric}: not comparable"
        elif lift is None:
            note = f"no {result.gate_metric} lift now: not comparable"
        else:
            change = lift_change(skill_case_lifts(skill), base.cases, alpha)
            if base.seed == result.seed:
                note = (
                    f"this run used the baseline's seed {base.seed}: with a shared rollout cache its runs repeat the "
                    "baseline's, so the two trials are not independent"
                )
        changes.append(
            SkillChange(
                skill=skill.skill,
                skill_md=skill.skill_md,
                metric=result.gate_metric,
                now=None if lift is None else lift.delta,
                now_ci=None if lift is None else lift.ci,
                baseline=base,
                change=change,
                agent_now=agent,
                seed_now=result.seed,
                note=note,
                edited=skill.skill in edited,
            )
        )
    return changes


def _describe(change: LiftChange, confidence: float) -> str:
    assert change.delta is not None and change.ci is not None
    level = round(confidence * 100)
    return (
        f"change {fmt_lift(change.delta)}, {level}% interval {fmt_interval(change.ci)} over {change.n_cases} "
        f"cases scored in both trials"
    )


def change_criteria(changes: Sequence[SkillChange], confidence: float) -> list[GateCriterion]:
    """``rerun.regression`` per skill: fails only when the interval of now − then lies below zero."""
    criteria = []
    for item in changes:
        change, base = item.change, item.baseline
        if change is None or base is None or change.delta is None or change.ci is None:
            criteria.append(
                GateCriterion(
                    "rerun.regression", item.skill, "skipped", item.note or "not comparable", (), item.skill_md, 1
                )
            )
            continue
        changed = f" What changed: {item.what_changed}." if item.what_changed else " The agent is the same as then."
        message = (
            f"{change.label}: {item.metric} lift now {fmt_lift(item.now or 0.0)} vs {fmt_lift(base.delta)} at "
            f"{base.release}; {_describe(change, confidence)}.{changed}"
        )
        properties = (
            ("metric", item.metric),
            ("release", base.release),
            ("lift_then", f"{base.delta:.6g}"),
            ("lift_now", "" if item.now is None else f"{item.now:.6g}"),
            ("change", f"{change.delta:.6g}"),
            ("change_ci_low", f"{change.ci[0]:.6g}"),
            ("change_ci_high", f"{change.ci[1]:.6g}"),
            ("n_cases", str(change.n_cases)),
            ("model_then", base.agent.model),
            ("model_now", item.agent_now.model),
        )
        status: CriterionStatus = "fail" if change.regression else "pass"
        criteria.append(
            GateCriterion(
                "rerun.regression", item.skill, status, message, properties, item.skill_md, 1, "LiftRegression"
            )
        )
    return criteria


def history_section(changes: Sequence[SkillChange], confidence: float) -> str:
    """The comment's "now vs last release" table, what changed, and what the interval assumes."""
    from tabulate import tabulate  # the comment's other tables load it the same way, on first use

    if not changes:
        return ""
    level = f"{round(confidence * 100)}% interval"
    rows = []
    notes = []
    for item in changes:
        base, change = item.baseline, item.change
        then = (
            "—"
            if base is None
            else f"{fmt_lift(base.delta)} {fmt_interval(base.ci)} ({markdown_cell(base.release, 40)})"
        )
        now = "—" if item.now is None or item.now_ci is None else f"{fmt_lift(item.now)} {fmt_interval(item.now_ci)}"
        if change is None or change.delta is None or change.ci is None:
            diff, interval, label = "—", "—", "not comparable"
        else:
            diff, interval, label = fmt_lift(change.delta), fmt_interval(change.ci), change.label
        rows.append([markdown_cell(item.skill, 120), then, now, diff, interval, label])
        if item.what_changed:
            notes.append(f"- **{markdown_cell(item.skill, 120)}**: {markdown_cell(item.what_changed, 400)}")
        if item.note:
            notes.append(f"- **{markdown_cell(item.skill, 120)}**: {markdown_cell(item.note, 400)}")
    headers = ("Skill", "Lift at release", "Lift now", "Change", level, "Reading")
    table = tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)
    metric = changes[0].metric
    assumption = next((c.change.assumption for c in changes if c.change is not None), "")
    text = f"#### {metric} lift now vs the last release\n\n{table}\n\n"
    text += "A regression is flagged only when the interval of the change lies below zero.\n"
    if assumption:
        text += f"The interval of the change: {markdown_cell(assumption, 400)}.\n"
    if notes:
        text += "\nWhat changed since the release:\n" + "\n".join(notes) + "\n"
    return text + "\n"
