"""What the live oracle's score of a case is: one metric, or ``composite`` / ``outcome`` of one rollout.

A valuation compares coalitions with one another — the bare agent ρ_del(∅), the trigger alone,
every prefix of every order — so a case's score must be *one function of the coalition*: the
same metrics, graded the same way, whatever was staged. That decides what the two means are here,
and why they differ from a trial's:

* A trial's **composite** is taken over the metrics a with/without *pair* shares, including skill
  efficiency, which compares the pair's two rollouts. A coalition's rollout has no pair: there is
  no control it is cheaper or faster than, and choosing one (the bare agent? the full skill?)
  would fold another coalition's cost into every score. Skill efficiency is therefore not part of
  a coalition's score, and cannot be chosen as ``--metric``.
* Skill execution is ``not_applicable`` on the bare agent (no skill is staged), and it measures
  the use of the skill, not what the agent achieved: averaging it into V(S) for S ≠ ∅ but not
  into V(∅) would put it into the trigger value by construction (the trap
  :func:`~aces_ci.grading.shared_metrics` avoids for trials). It is left out of the composite and
  cannot be chosen as ``--metric``.
* So a coalition's **composite** of a case is the equal-weight mean of the *rollout-level*
  metrics among accuracy, goal accuracy, behaviour check and security that can be graded on that
  case **on every coalition**, decided from the case (and whether a judge is configured) before
  any rollout is paid for. Security always applies, so the composite always exists. A metric the
  case cannot be graded on (no reference, a check only a judge decides and no judge) is left out
  for *every* coalition, never only for some.
* **Outcome** is the same mean over accuracy and goal accuracy: what the agent achieved. A case
  graded on neither cannot give an outcome, and is refused.

Behaviour checks about the skill itself (loading it, running its script) are left out of the bare
agent's behaviour grade by the grading seam, as in a trial's baseline; a case whose checks are
*all* of that kind has no behaviour grade on ∅, so behaviour check is not among its metrics.

The product's own grader (BYOG) answers for the metrics it names; whether it grades a case is its
own business, so those metrics are taken as gradable. At run time every metric of a case's set
must have a value on every rollout; a grade missing where the case said it would exist stops the
valuation as an oracle error (nothing unscored is cached), never a silent change of the mean.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from ..evals import EvalCase
from ..grading import METRICS, OUTCOME_METRICS, AnswerAssertion, FileAssertion, FreeText, ProcessAssertion, classify

MEANS = ("composite", "outcome")
"""The scores that are means of several metrics."""
COMPOSITE_METRICS = ("accuracy", "goal_accuracy", "behavior_check", "security")
"""The rollout-level metrics a coalition's composite is the mean of, where a case can be graded on them."""
NOT_A_COALITION_SCORE = {
    "skill_efficiency": "skill efficiency compares a rollout with its paired control, and a coalition's rollout "
    "has none",
    "skill_execution": "skill execution is not graded on the bare agent (no skill is staged there), so V(∅) "
    "would have no value",
}
"""Metrics of the grading seam that cannot be a coalition's score, and why."""
DEFINITIONS = {
    "composite": "composite: the equal-weight mean, per rollout, of accuracy, goal_accuracy, behavior_check and "
    "security where the case can be graded on them on every coalition (decided from the case before any rollout); "
    "skill_execution and skill_efficiency are left out (not graded on the bare agent; pair-level)",
    "outcome": "outcome: the mean, per rollout, of accuracy and goal_accuracy where the case can be graded on them",
}
"""What a mean score is, as the report states it."""


@dataclass(frozen=True)
class ScoredOver:
    """The metrics a case's score is the mean of, and why any metric asked for is left out."""

    metrics: tuple[str, ...]
    left_out: Mapping[str, str] = field(default_factory=dict)
    """Metric → why the case cannot be graded on it on every coalition."""


def score_definition(metric: str) -> str:
    """The report's sentence for the score ``metric``."""
    return DEFINITIONS.get(metric, f"{metric}: the metric's value per rollout")


def _bare_leaves_out(assertion: ProcessAssertion, case: EvalCase) -> bool:
    """Whether the grading seam leaves this check out on the bare agent (it is about the unstaged skill)."""
    atoms = [assertion.atom] + ([assertion.before] if assertion.before is not None else [])
    script = (case.expected_script or "").lstrip("./")
    for atom in atoms:
        if atom.kind == "load" or (atom.kind == "run" and atom.path is None):
            return True
        if script and atom.path is not None and (atom.path == script or atom.path.endswith("/" + script)):
            return True
    return False


def _why_not(metric: str, case: EvalCase, judged: bool) -> str | None:
    """Why ``case`` cannot be graded on ``metric`` on every coalition; None when it can."""
    if metric in NOT_A_COALITION_SCORE:
        return NOT_A_COALITION_SCORE[metric]
    expected = (case.expected_output or "").strip()
    assertions = [classify(text) for text in case.assertions]
    if metric == "accuracy":
        if not expected:
            return "it has no expected_output"
        if case.match == "judge" and not judged:
            return "it is graded by a judge (match: judge) and none is configured"
        return None
    if metric == "goal_accuracy":
        if any(isinstance(a, FileAssertion | AnswerAssertion) for a in assertions):
            return None
        if not expected:
            return "it has no outcome assertion and no expected_output"
        return None if judged else "only a judge compares its end state with expected_output, and none is configured"
    if metric == "behavior_check":
        kept = [a for a in assertions if isinstance(a, FreeText | ProcessAssertion)]
        if not kept:
            return "it states no behaviour to check"
        if any(isinstance(a, FreeText) for a in kept) and not judged:
            return "some of its behaviours need a judge, and none is configured"
        if all(isinstance(a, ProcessAssertion) and _bare_leaves_out(a, case) for a in kept):
            return "every behaviour it checks is about the skill itself, which the bare agent does not have"
        return None
    return None


def scored_over(case: EvalCase, metric: str, *, judged: bool, owned: Collection[str] = ()) -> ScoredOver:
    """The metrics ``case``'s score on ``metric`` is the mean of (one for a single metric; none: refuse it).

    ``judged``: a judge is configured; ``owned``: the metrics the product's own grader answers for.
    """
    wanted = {"composite": COMPOSITE_METRICS, "outcome": OUTCOME_METRICS}.get(metric, (metric,))
    metrics: list[str] = []
    left_out: dict[str, str] = {}
    for name in wanted:
        reason = None if name in owned or name not in METRICS else _why_not(name, case, judged)
        if reason is None:
            metrics.append(name)
        else:
            left_out[name] = reason
    return ScoredOver(tuple(metrics), left_out)
