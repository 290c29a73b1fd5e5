"""The rollout engine: scheduling, concurrency, budget caps, a content-addressed cache, a crash-safe journal.

One engine serves trials and SkillSV alike: both hand it :class:`~aces_ci.agents.RolloutRequest`
objects and read back a :class:`RolloutBatch`.
"""

from ._batch import NotRun, RolloutBatch, RolloutRecord, RolloutSource
from ._budget import Budget, BudgetMeter, StopReason
from ._cache import RolloutCache
from ._engine import TIMEOUT_GRACE_S, BaselineOf, batch_run_id, run_rollouts, schedule
from ._journal import Journal, JournalAppender
from ._progress import BarProgress, LineProgress, NoProgress, Progress, auto_progress
from ._serialize import result_from_dict, result_to_dict

__all__ = [
    "TIMEOUT_GRACE_S",
    "BarProgress",
    "BaselineOf",
    "Budget",
    "BudgetMeter",
    "Journal",
    "JournalAppender",
    "LineProgress",
    "NoProgress",
    "NotRun",
    "Progress",
    "RolloutBatch",
    "RolloutCache",
    "RolloutRecord",
    "RolloutSource",
    "StopReason",
    "auto_progress",
    "batch_run_id",
    "result_from_dict",
    "result_to_dict",
    "run_rollouts",
    "schedule",
]
