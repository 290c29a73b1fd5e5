"""Grade one rollout against its case: the six ACES metrics, judges, graders the product owns (BYOG).

Every metric is a function over plain inputs (:class:`RolloutFacts`: the case, the final answer,
the ATIF trajectory, skill events, the files the agent wrote) returning a :class:`MetricResult`:
a value in [0, 1], or a status (``not_applicable``, ``could_not_grade``, ``grader_error``) with
its reason, never a 0 standing in for "unknown". :func:`grade_metrics` runs them all.

=====================  ==============================================  ============================
metric                 question                                        decided by
=====================  ==============================================  ============================
``accuracy``           is the final answer right?                      the case's ``match`` mode
``goal_accuracy``      was the end state (files, answer) reached?      outcome assertions, or judge
``skill_execution``    was the expected skill loaded, script run?      skill events
``behavior_check``     did it behave as each expected behaviour says?  process rules, or judge
``skill_efficiency``   tokens, turns against the paired control        bounded ratios (time: evidence only)
``security``           secrets, exfiltration, destructive commands?    tool calls, SEC patterns
=====================  ==============================================  ============================

:class:`Grader` is the engine's seam: :func:`grade_rollout` is how the engine calls one,
:class:`ExpectedOutputGrader` is the minimal grader the ``rollout`` verb prints, :class:`GraderSuite` runs
several as one, and :class:`AcesMetricsGrader` puts the six metrics on the seam.
"""

from ..evals import normalise
from ._accuracy import grade_accuracy
from ._aces_grader import AcesMetricsGrader, rollout_facts
from ._actions import Action, ActionKind, actions_of, agent_messages
from ._assertions import (
    AnswerAssertion,
    Assertion,
    Atom,
    FileAssertion,
    FreeText,
    OutcomeAssertion,
    ProcessAssertion,
    classify,
)
from ._behavior import grade_behavior_check
from ._byog import grader_input, run_byog
from ._efficiency import grade_skill_efficiency
from ._execution import grade_skill_execution
from ._expected_output import EXPECTED_OUTPUT, ExpectedOutputGrader
from ._goal import grade_goal_accuracy
from ._grade import RolloutGrades, composite, grade_metrics, outcome, shared_metrics
from ._grader import Grader, GradingInput, grade_rollout
from ._grades import GRADE_STATUSES, Grades, GradeStatus, MetricGrade
from ._judge import JUDGE_CACHE_DIR, JUDGE_PROTOCOL, Judge, JudgeAnswer, JudgeCache, JudgeUnavailable, parse_reply
from ._security import grade_security
from ._suite import GraderSuite
from ._types import (
    FREE,
    METRICS,
    OUTCOME_METRICS,
    Artifacts,
    Check,
    Cost,
    Method,
    MetricName,
    MetricResult,
    RolloutFacts,
    RolloutFigures,
    Severity,
    graded,
    ungraded,
)

__all__ = [
    "EXPECTED_OUTPUT",
    "FREE",
    "GRADE_STATUSES",
    "JUDGE_CACHE_DIR",
    "JUDGE_PROTOCOL",
    "METRICS",
    "OUTCOME_METRICS",
    "AcesMetricsGrader",
    "Action",
    "ActionKind",
    "AnswerAssertion",
    "Artifacts",
    "Assertion",
    "Atom",
    "Check",
    "Cost",
    "ExpectedOutputGrader",
    "FileAssertion",
    "FreeText",
    "GradeStatus",
    "Grader",
    "GraderSuite",
    "Grades",
    "GradingInput",
    "Judge",
    "JudgeAnswer",
    "JudgeCache",
    "JudgeUnavailable",
    "Method",
    "MetricGrade",
    "MetricName",
    "MetricResult",
    "OutcomeAssertion",
    "ProcessAssertion",
    "RolloutFacts",
    "RolloutFigures",
    "RolloutGrades",
    "Severity",
    "actions_of",
    "agent_messages",
    "classify",
    "composite",
    "grade_accuracy",
    "grade_behavior_check",
    "grade_goal_accuracy",
    "grade_metrics",
    "grade_rollout",
    "grade_security",
    "grade_skill_efficiency",
    "grade_skill_execution",
    "graded",
    "grader_input",
    "normalise",
    "outcome",
    "parse_reply",
    "rollout_facts",
    "run_byog",
    "shared_metrics",
    "ungraded",
]
