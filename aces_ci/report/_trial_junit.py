"""The trial as JUnit XML: one testcase per skill × gated metric, the figures behind the verdict as properties.

A CI test-report tool then shows "lift.composite of skills/x failed" as a failed test with the
lift, its interval, n, runs, both means and the smallest detectable lift beside it, then every
other metric's figures as ``<metric>.<figure>`` properties (only the gated metric decides the
testcase: a failing test named after a metric the gate does not read would be a false alarm). A ``fail``
verdict is a failure; ``underpowered`` passes with its message in ``system-out`` (or fails, when
aces.yml sets ``gate.underpowered: fail``); ``pass`` and ``neutral`` pass. The suite is the gate
suite's layout (:func:`append_gate_suite`), so it validates against the same JUnit schema.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._gate_junit import JunitCriterion, append_gate_suite
from ._trial_lines import settle_line

if TYPE_CHECKING:  # the models are only read here; importing them would load the live tier into a scan
    from ..trials import SkillTrialResult, TrialResult


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"


def _metric_properties(skill: SkillTrialResult) -> list[tuple[str, str]]:
    """Every metric's figures, ``<metric>.<figure>``: the per-metric table, so a test-report tool shows all of it.

    A metric without a lift says why in ``<metric>.not_applicable``, never a 0.
    """
    properties: list[tuple[str, str]] = []
    for metric, lift in skill.lift.items():
        if lift is None:
            properties.append((f"{metric}.not_applicable", skill.not_applicable.get(metric, "no lift")))
            continue
        properties += [
            (f"{metric}.delta", _number(lift.delta)),
            (f"{metric}.ci_low", _number(lift.ci[0])),
            (f"{metric}.ci_high", _number(lift.ci[1])),
            (f"{metric}.n_cases", str(lift.n_cases)),
            (f"{metric}.runs_per_arm", str(lift.runs_per_arm)),
            (f"{metric}.with_mean", _number(lift.with_mean)),
            (f"{metric}.without_mean", _number(lift.without_mean)),
            (f"{metric}.mde", _number(lift.mde)),
        ]
    return properties


def _criterion(skill: SkillTrialResult, result: TrialResult) -> JunitCriterion:
    lift = skill.lift.get(skill.gate_metric)
    properties: list[tuple[str, str]] = [("metric", skill.gate_metric), ("verdict", skill.verdict)]
    if lift is not None:
        properties += [
            ("delta", _number(lift.delta)),
            ("ci_low", _number(lift.ci[0])),
            ("ci_high", _number(lift.ci[1])),
            ("confidence", f"{result.confidence:g}"),
            ("n_cases", str(lift.n_cases)),
            ("runs_per_arm", str(lift.runs_per_arm)),
            ("with_mean", _number(lift.with_mean)),
            ("without_mean", _number(lift.without_mean)),
            ("mde", _number(lift.mde)),
            ("small_n", str(lift.small_n).lower()),
        ]
    properties += [("pass_band", f"{result.bands.pass_band:g}"), ("fail_band", f"{result.bands.fail_band:g}")]
    properties += _metric_properties(skill)
    if skill.settle is not None and skill.settle.cases_needed is not None:
        properties.append(("cases_needed", str(skill.settle.cases_needed)))
    if skill.discordance is not None:
        d = skill.discordance
        properties += [("gains", str(d.gains)), ("regressions", str(d.regressions)), ("ties", str(d.ties))]
    figures = "" if lift is None else f" lift {lift.delta:+.3f} [{lift.ci[0]:+.3f}, {lift.ci[1]:+.3f}]"
    settle = "" if (line := settle_line(skill)) is None else f"; {line}"
    return JunitCriterion(
        name=f"lift.{skill.gate_metric}",
        subject=skill.skill,
        status=result.bands.status(skill.verdict),
        message=f"{skill.gate_metric}{figures}: {skill.verdict_reason}{settle}",
        properties=tuple(properties),
        file=skill.skill_md,
        line=1,
        failure_type="NegativeSkillLift" if skill.verdict == "fail" else "SkillLift",
    )


def render_trial_junit(result: TrialResult) -> str:
    """The JUnit document of the trial (one suite, one testcase per skill × gated metric)."""
    criteria = [_criterion(skill, result) for skill in result.skills]
    return append_gate_suite(None, criteria, generated_at=result.generated_at)
