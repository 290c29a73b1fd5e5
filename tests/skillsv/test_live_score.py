"""Which metrics a coalition's score of a case is the mean of, decided from the case before any rollout."""

from __future__ import annotations

import pytest

from aces_ci.evals import EvalCase
from aces_ci.skillsv import COMPOSITE_METRICS, scored_over

REFERENCE = EvalCase("ref", "How many days?", expected_output="45")
OUTCOME_RULE = EvalCase("file", "Write it", assertions=('file out.txt contains "45"',))
JUDGED = EvalCase("judged", "How many days?", expected_output="45", match="judge")
ABOUT_THE_SKILL = EvalCase("skill", "Use it", expected_output="45", assertions=("loads the skill", "runs the script"))
FREE_TEXT = EvalCase("free", "Explain", expected_output="45", assertions=("Mentions the refund window",))
MIXED = EvalCase("mixed", "Read", expected_output="45", assertions=("loads the skill", "reads notes.md"))


@pytest.mark.parametrize(
    ("case", "judged", "metrics"),
    [
        # without a judge, goal accuracy by comparison with expected_output is a judge's: left out
        (REFERENCE, False, ("accuracy", "security")),
        (REFERENCE, True, ("accuracy", "goal_accuracy", "security")),
        (OUTCOME_RULE, False, ("goal_accuracy", "security")),
        (JUDGED, False, ("security",)),
        (JUDGED, True, ("accuracy", "goal_accuracy", "security")),
        # every check is about the skill: the bare agent has no behaviour grade, so no coalition counts it
        (ABOUT_THE_SKILL, True, ("accuracy", "goal_accuracy", "security")),
        (MIXED, False, ("accuracy", "behavior_check", "security")),
        (FREE_TEXT, False, ("accuracy", "security")),
        (FREE_TEXT, True, COMPOSITE_METRICS),
    ],
)
def test_the_composite_is_over_what_every_coalition_of_the_case_is_graded_on(
    case: EvalCase, judged: bool, metrics: tuple[str, ...]
) -> None:
    assert scored_over(case, "composite", judged=judged).metrics == metrics


def test_outcome_and_single_metrics_say_why_a_case_has_none() -> None:
    open_case = EvalCase("open", "Any advice?")
    assert scored_over(REFERENCE, "outcome", judged=False).metrics == ("accuracy",)
    refused = scored_over(open_case, "outcome", judged=True)
    assert refused.metrics == ()
    assert refused.left_out == {
        "accuracy": "it has no expected_output",
        "goal_accuracy": "it has no outcome assertion and no expected_output",
    }
    assert scored_over(JUDGED, "accuracy", judged=False).left_out["accuracy"].startswith("it is graded by a judge")
    assert scored_over(ABOUT_THE_SKILL, "behavior_check", judged=True).metrics == ()
    assert "skill_efficiency" in scored_over(REFERENCE, "skill_efficiency", judged=True).left_out
    # the product's own grader answers for the metrics it names, whatever the case holds
    assert scored_over(open_case, "accuracy", judged=False, owned=("accuracy",)).metrics == ("accuracy",)
    assert scored_over(open_case, "tone", judged=False).metrics == ("tone",)
