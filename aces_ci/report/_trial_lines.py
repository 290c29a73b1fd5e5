"""The sentences every trial report prints beside the numbers, written once for the text and Markdown reports.

Each function turns one part of a :class:`~aces_ci.trials.SkillTrialResult` into plain sentences
a skill author can act on; the renderers only lay them out (and Markdown escapes them). Labels
that keep a number from being over-read live here too: discordance is "not harm", a small-n
interval is "rough", an underpowered verdict says what would settle it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._common import plural

if TYPE_CHECKING:  # the models are only read here; importing them would load the live tier into a scan
    from ..trials import MetricLiftResult, SkillTrialResult, TrialResult

VERDICT_WORDS = {
    "pass": "PASS",
    "neutral": "NEUTRAL",
    "underpowered": "UNDERPOWERED",
    "fail": "FAIL",
}


def signed(value: float | None) -> str:
    return "—" if value is None else f"{value:+.3f}"


def _or_none(value: float | None) -> str:
    return "none (no such run)" if value is None else f"{value:+.3f}"


def interval(ci: tuple[float, float] | None) -> str:
    return "—" if ci is None else f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"


def headline(result: TrialResult) -> str:
    level = f"{round(result.confidence * 100)}% intervals"
    design = "sequential, up to " if result.sequential else ""
    return (
        f"aces-ci trial · {result.model} ({result.provider}) · harness {_harness(result)} ({result.disclosure}) · "
        f"{design}{plural(result.runs, 'run')} per case and condition · {result.coupling} coupling · "
        f"{result.mode} mode · {level} · {judge_words(result)}"
    )


def _harness(result: TrialResult) -> str:
    return result.harness if result.harness_version is None else f"{result.harness} {result.harness_version}"


def judge_words(result: TrialResult) -> str:
    return f"judge {result.judge}" if result.judge else "no judge (metrics only a judge decides are not graded)"


def gate_line(result: TrialResult) -> str:
    underpowered = "fails the gate" if result.bands.underpowered_fails else "passes with a warning"
    return (
        f"gate: {result.gate_metric} lift, pass when the interval's lower bound ≥ {result.bands.pass_band:+.2f}, "
        f"fail when its upper bound ≤ {result.bands.fail_band:+.2f}; underpowered {underpowered}"
    )


def gated_lift(skill: SkillTrialResult) -> MetricLiftResult | None:
    return skill.lift.get(skill.gate_metric)


def verdict_line(skill: SkillTrialResult) -> str:
    return f"verdict: {VERDICT_WORDS[skill.verdict]} — {skill.verdict_reason}"


def lift_notes(lift: MetricLiftResult) -> list[str]:
    notes = []
    if lift.small_n:
        notes.append(
            f"only {plural(lift.n_cases, 'case')}: intervals from fewer than 10 cases cover the truth less often "
            "than stated (rough)"
        )
    if lift.n_cases_excluded:
        notes.append(f"{plural(lift.n_cases_excluded, 'case')} left out: no score in one of the conditions")
    if lift.run_sd_with is not None and lift.run_sd_control is not None:
        notes.append(
            f"run-to-run SD of one run's score around its case mean: {lift.run_sd_with:.3f} with, "
            f"{lift.run_sd_control:.3f} control"
        )
    else:
        notes.append("one run per case: run-to-run noise is not told apart from case-to-case spread")
    return notes


def settle_line(skill: SkillTrialResult) -> str | None:
    s = skill.settle
    if s is None:
        return None
    return f"to settle it: {s.advice or s.reason}"


def discordance_line(skill: SkillTrialResult) -> str | None:
    d = skill.discordance
    if d is None:
        return None
    return (
        f"paired discordance over {plural(d.n_cases, 'case')}: {d.gains} gains, {d.regressions} regressions, "
        f"{d.ties} ties — discordance under this protocol, not the share of tasks the skill harms"
    )


def degradation_line(skill: SkillTrialResult) -> str | None:
    g = skill.degradation
    if g is None:
        return None
    surely = f"degraded cases: {g.confidently_degraded:.0%} ({g.confidently_count}) of {plural(g.n_cases, 'case')}"
    if g.n_cases and g.possibly_count == g.n_cases:
        # Every per-case interval reaches below the margin: the upper bound is the design's, not the skill's.
        lift = gated_lift(skill)
        runs = f"with {plural(lift.runs_per_arm, 'run')} per case and condition" if lift is not None else "here"
        return (
            f"{surely} surely got worse; {runs} no case can be cleared of harm, so the share that got worse is not "
            "bounded above yet (more runs per case narrow it)"
        )
    return (
        f"{surely} surely got worse, at most {g.possibly_degraded:.0%} ({g.possibly_count}) may have — the true "
        "share lies between the two"
    )


def trigger_line(skill: SkillTrialResult) -> str | None:
    t = skill.trigger
    if t is None or t.rate is None:
        return None
    return (
        f"skill loaded in {t.rate:.0%} of with-runs; lift on those runs (D_pair) {_or_none(t.d_pair)}, on the others "
        f"(D_skip) {_or_none(t.d_skip)} — a description of this protocol, not the effect of loading the skill"
    )


def cost_line(skill: SkillTrialResult) -> str:
    parts = []
    for arm in skill.cost:
        usd = "unpriced" if arm.usd is None else f"${arm.usd:.4f}"
        parts.append(
            f"{arm.arm}: {plural(arm.rollouts, 'rollout')}, {arm.input_tokens + arm.output_tokens:,} tokens, {usd}"
        )
    per = skill.lift_per_dollar
    extra = ""
    if per is not None and per.lift_per_extra_usd is not None:
        extra = f"; lift per extra dollar per rollout {per.lift_per_extra_usd:+.3g}"
    elif per is not None and per.note:
        extra = f"; lift per dollar: {per.note}"
    return "cost (the design's, cached rollouts included): " + "; ".join(parts) + extra


def extra_lines(skill: SkillTrialResult) -> list[str]:
    """Routing premium, presence split, noise floor, stress test, sequential looks, --against ref."""
    lines = []
    if skill.against:
        lines.append(f"control: {skill.name} as it was at {skill.against}")
    if (p := skill.routing_premium) is not None:
        lines.append(
            f"routing premium (isolation lift {p.isolation:+.3f} minus group lift {p.group:+.3f}, among "
            f"{p.visible_decoys} decoys): {p.delta:+.3f} {interval(p.ci)} over {plural(p.n_cases, 'case')}"
        )
    if (s := skill.presence) is not None:
        lines.append(
            f"presence value θ_m (name and description only) {s.presence:+.3f} {interval(s.presence_ci)} + content "
            f"lift Λ (the body) {s.content:+.3f} {interval(s.content_ci)}"
            + (f"; total lift {s.total:+.3f} — {s.note}" if s.note else f" = total lift {s.total:+.3f}")
        )
    if (n := skill.noise_floor) is not None:
        noise = "—" if n.run_noise_sd is None else f"{n.run_noise_sd:.3f}"
        lines.append(
            f"A/A noise floor (the same condition twice): lift {n.delta:+.3f} {interval(n.ci)}, run-to-run SD {noise}; "
            f"the gate would read it as {n.verdict}"
        )
    for level in skill.stress:
        wall_with = "—" if level.with_mean_wall_s is None else f"{level.with_mean_wall_s:.1f}s"
        lift = level.lift
        figure = "no lift" if lift is None else f"lift {lift.delta:+.3f} {interval(lift.ci)}"
        wall_without = "—" if level.without_mean_wall_s is None else f"{level.without_mean_wall_s:.1f}s"
        lines.append(
            f"stress, {level.visible_decoys} decoys visible: {figure}; wall time per with-run {wall_with}, "
            f"per without-run {wall_without}"
        )
    if (c := skill.capped) is not None:
        cap = " and ".join(
            part
            for part in (
                f"{c.cap_tokens:,} tokens" if c.cap_tokens is not None else "",
                f"${c.cap_usd:g}" if c.cap_usd is not None else "",
            )
            if part
        )
        figure = "no lift" if c.lift is None else f"{c.lift.delta:+.3f} {interval(c.lift.ci)}"
        lines.append(
            f"under an ex-ante cap of {cap} per rollout in both conditions: {skill.gate_metric} lift {figure}; "
            f"{c.capped_with} with-run(s) and {c.capped_control} control run(s) went over and score 0"
        )
    for look in skill.sequential:
        state = "decided" if look.decided else "continue"
        lines.append(
            f"sequential look {look.look} of {look.max_looks} (α {look.alpha:.4f}, a {100 * (1 - look.alpha):.3g}% "
            f"interval): {interval(look.ci)} → "
            f"{look.verdict}, {state}"
        )
    return lines


def triage_lines(skill: SkillTrialResult) -> list[str]:
    lines = []
    for case in skill.triage:
        kind = (
            "the with-condition failed to produce a score"
            if case.triage == "no_score"
            else "the skill steered the agent wrong"
        )
        with_mean = "no score" if case.with_mean is None else f"{case.with_mean:.2f}"
        lines.append(f"case {case.case} ({with_mean} vs {case.control_mean:.2f}): {kind}")
        lines.extend(f"  {item}" for item in case.evidence)
    return lines


def run_line(skill: SkillTrialResult) -> str:
    parts = [f"{plural(skill.rollouts, 'rollout')} finished"]
    if skill.not_run:
        parts.append(f"{skill.not_run} not run (budget stop)")
    if skill.infra_errors:
        parts.append(f"{skill.infra_errors} infrastructure error(s) (left out of every mean)")
    if skill.grader_errors:
        parts.append(f"{skill.grader_errors} with grading errors (rerun to regrade from the cache)")
    return ", ".join(parts)
