"""Skill execution: did the agent load the skill the case expects, run the script it expects, in order?

Read from the rollout's skill events (and the tool calls behind them), deterministically.

**Positive case** (``should_trigger`` true): the mean of the subchecks that apply.

* ``activation``: the skill under test was loaded (Skill tool, a read of its SKILL.md by a read
  tool *or* a shell viewer such as ``cat``, or preloaded by the harness) → 1.0; only one of the
  case's ``acceptable_skills`` was loaded → 0.75 (ACES scores an acceptable alternate lower); none
  → 0.
* ``script`` (only when the case names an ``expected_script``): it ran and at least one run
  succeeded → 1.0; it ran but every run failed → 0.5; it never ran → 0.
* ``order`` (only when a script of the skill ran): the skill was loaded before its first script
  ran → 1.0, else 0 (running a skill's script without reading its instructions is luck).

**Negative case** (``should_trigger`` false): loading the skill under test, or running one of its
scripts, is the failure → 0.0; staying away → 1.0. A harness that *preloads* every skill did not
let the agent choose, so a preload alone is not a load here.

**Not applicable**: an unlabelled case (``should_trigger`` missing: nothing says what should
happen), and any condition in which the skill under test is not staged (the without-skill
baseline): whether an absent skill was loaded measures nothing, so this metric's lift exists only
where both sides stage a version of the skill (``--against REF``).

Decisions against SkillEvaluator's reading, deliberately: an unlabelled case is not a free 1.0; a
load through ``cat SKILL.md`` (the only way Codex loads a skill) is not capped below a Read; a
case without ``expected_script`` does not get a free script subcheck (the mean is over subchecks
that apply); and "error recovery" is left out, because keyword-matching error text is guesswork
and failed calls already cost the agent in skill efficiency.
"""

from __future__ import annotations

from ._trace import Occurrence, Trace
from ._types import Check, MetricResult, RolloutFacts, graded, ungraded

METRIC = "skill_execution"
ALTERNATE_CREDIT = 0.75
FAILED_SCRIPT_CREDIT = 0.5


def _steps(found: list[Occurrence]) -> tuple[int, ...]:
    return tuple(dict.fromkeys(o.step_id for o in found if o.step_id > 0))


def _negative(grading: RolloutFacts, trace: Trace) -> MetricResult:
    loads = trace.loads(agent_only=True)
    runs = trace.script_runs()
    if not loads and not runs:
        check = Check("stays away", True, f"the agent neither loaded {grading.skill} nor ran its scripts")
        return graded(METRIC, 1.0, "negative case: the skill was rightly left alone", (check,))
    touched = [*loads, *runs]
    detail = "; ".join(o.shown for o in touched[:3])
    check = Check("stays away", False, detail, steps=_steps(touched))
    return graded(
        METRIC, 0.0, f"negative case: the agent used {grading.skill}, which this prompt should not trigger", (check,)
    )


def _activation(grading: RolloutFacts, trace: Trace) -> Check:
    loads = trace.loads()
    if loads:
        return Check("activation", True, loads[0].shown, 1.0, steps=_steps(loads[:1]))
    for alternate in grading.case.acceptable_skills:
        other = trace.loads(alternate)
        if other:
            detail = f"loaded the acceptable skill {alternate} instead ({other[0].shown})"
            return Check("activation", True, detail, ALTERNATE_CREDIT, steps=_steps(other[:1]))
    return Check("activation", False, f"{grading.skill} was never loaded", 0.0)


def _script(script: str, trace: Trace) -> Check:
    runs = trace.runs_of(script)
    if not runs:
        return Check("script", False, f"{script} never ran", 0.0)
    ok = [o for o in runs if o.action is None or not o.action.failed]
    if ok:
        return Check("script", True, ok[0].shown, 1.0, steps=_steps(ok[:1]))
    return Check(
        "script",
        False,
        f"{script} ran but failed every time ({runs[0].shown})",
        FAILED_SCRIPT_CREDIT,
        steps=_steps(runs),
    )


def _order(trace: Trace, script_runs: list[Occurrence]) -> Check | None:
    if not script_runs:
        return None
    loads = trace.loads()
    first_run = script_runs[0]
    if loads and loads[0].position < first_run.position:
        return Check("order", True, f"loaded before the first script run ({first_run.shown})", 1.0)
    return Check(
        "order", False, f"a script ran before the skill was loaded ({first_run.shown})", 0.0, steps=_steps([first_run])
    )


def grade_skill_execution(grading: RolloutFacts) -> MetricResult:
    """The skill-execution grade of one rollout, by the rules of the module docstring."""
    case = grading.case
    if not grading.skill_staged:
        return ungraded(METRIC, "not_applicable", f"{grading.skill} is not staged in this condition")
    if case.should_trigger is None:
        return ungraded(METRIC, "not_applicable", "the case does not say whether the skill should trigger")
    trace = Trace(grading)
    if case.should_trigger is False:
        return _negative(grading, trace)
    checks = [_activation(grading, trace)]
    script_runs = trace.script_runs()
    if case.expected_script:
        checks.append(_script(case.expected_script, trace))
        script_runs = sorted(
            {o.position: o for o in [*script_runs, *trace.runs_of(case.expected_script)]}.values(),
            key=lambda o: o.position,
        )
    order = _order(trace, script_runs)
    if order is not None:
        checks.append(order)
    scores = [c.score or 0.0 for c in checks]
    value = sum(scores) / len(scores)
    summary = ", ".join(f"{c.name} {c.score:g}" for c in checks)
    return graded(METRIC, value, f"mean of {summary}", tuple(checks))
