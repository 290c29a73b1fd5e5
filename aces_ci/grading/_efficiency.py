"""Skill efficiency: what this rollout spent (tokens, turns) against its paired control.

For each resource r, the score is the bounded ratio

    s_r = min(1, control_r / this_r)         (1 when this_r = 0)

so 1.0 means "no more than the control spent" and 0.5 "twice as much". The grade is the mean of
the two ratios (tokens: prompt, cached included, plus completion; turns: model calls, or agent
steps when a harness reports none). The same rule grades both rollouts of a pair against each
other, so in a with/without pair one side is 1.0 and the other is the ratio, and the lift
``with − without`` is positive when the skill made the agent cheaper and negative when it made it
dearer, with the same magnitude either way.

**Wall time is evidence, not score.** It is recorded as a check beside the two ratios, but it does
not enter the grade: on a shared CI runner a rollout's seconds measure the runner's load as much as
the skill, so a gate on a composite that held them would flip with the machine (seen here: a
scripted harmful skill whose every case scored the same failed the composite gate only because
the seconds gave its cases a spread). Tokens and turns follow from what the model said, which the
cache replays exactly. Cached prompt tokens count in full because what the cache saved depends on what ran
before, not on the skill.

**The control failed.** When there are no control figures, or the control ended as an
infrastructure error, the grade is ``could_not_grade``: its cost says nothing about the task. A
control that *completed* without an answer (it ran out of turns, or gave up) is compared as it
is, and its end reason is in the evidence: a cheap control that gave up makes a skill that did
the work look expensive, which is why efficiency is read beside accuracy, never alone (ACES
finds runs that trade efficiency for correctness).
"""

from __future__ import annotations

from ._types import Check, MetricResult, RolloutFacts, RolloutFigures, graded, ungraded

METRIC = "skill_efficiency"


def _ratio(mine: float, control: float) -> float:
    if mine <= 0:
        return 1.0
    return min(1.0, max(0.0, control) / mine)


def grade_skill_efficiency(grading: RolloutFacts, control: RolloutFigures | None) -> MetricResult:
    """This rollout's efficiency against ``control`` (the paired rollout of the other condition)."""
    if control is None:
        return ungraded(METRIC, "could_not_grade", "no paired control rollout to compare with")
    if control.status != "completed":
        return ungraded(METRIC, "could_not_grade", f"the paired control did not complete ({control.end_reason})")
    mine = grading.figures
    parts = (
        ("tokens", float(mine.tokens), float(control.tokens)),
        ("turns", float(mine.turns), float(control.turns)),
    )
    scored = [
        Check(name, spent <= base, f"{spent:g} against the control's {base:g}", round(_ratio(spent, base), 6))
        for name, spent, base in parts
    ]
    seconds = Check(
        "time",
        mine.duration_s <= control.duration_s,
        f"{mine.duration_s:g} s against the control's {control.duration_s:g} s (evidence only: not scored)",
    )
    value = sum(c.score or 0.0 for c in scored) / len(scored)
    note = "" if control.end_reason == "final_answer" else f"; the control ended by {control.end_reason}"
    reason = "mean of bounded ratios control/this for " + ", ".join(f"{c.name} {c.score:.2f}" for c in scored) + note
    return graded(METRIC, value, reason, (*scored, seconds))
