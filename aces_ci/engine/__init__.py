"""The rollout engine: scheduling, concurrency, budget caps, a content-addressed cache, a crash-safe journal.

One engine serves trials and SkillSV alike: a command opens one :class:`RolloutEngine`, hands it
:class:`~aces_ci.agents.RolloutRequest` batches as often as it needs, and reads back graded
:class:`RolloutBatch` objects.
"""

from ._batch import NotRun, RolloutBatch, RolloutRecord, RolloutSource
from ._breaker import DEFAULT_BREAKER_AFTER, CircuitBreaker
from ._budget import Budget, BudgetCap, BudgetMeter, StopReason
from ._cache import CACHE_VERSION, RolloutCache, RolloutStore
from ._engine import RolloutEngine, default_batch_id
from ._journal import JOURNAL_VERSION, Journal, JournalAppender
from ._progress import BarProgress, LineProgress, NoProgress, Progress, auto_progress
from ._rollout import TIMEOUT_GRACE_S
from ._schedule import Schedule, in_order, paired_schedule
from ._serialize import result_from_dict, result_to_dict
from ._transfer import Imported, export_rollouts, import_rollouts

__all__ = [
    "CACHE_VERSION",
    "DEFAULT_BREAKER_AFTER",
    "JOURNAL_VERSION",
    "TIMEOUT_GRACE_S",
    "BarProgress",
    "Budget",
    "BudgetCap",
    "BudgetMeter",
    "CircuitBreaker",
    "Imported",
    "Journal",
    "JournalAppender",
    "LineProgress",
    "NoProgress",
    "NotRun",
    "Progress",
    "RolloutBatch",
    "RolloutCache",
    "RolloutEngine",
    "RolloutRecord",
    "RolloutSource",
    "RolloutStore",
    "Schedule",
    "StopReason",
    "auto_progress",
    "default_batch_id",
    "export_rollouts",
    "import_rollouts",
    "in_order",
    "paired_schedule",
    "result_from_dict",
    "result_to_dict",
]
