"""The rollout engine: run a batch of rollouts on one harness, concurrently, resumably, within a budget.

Trials and SkillSV both come down to "run these rollouts and score them"; everything that makes
that affordable and trustworthy happens here, once:

* **order** — the two arms of a pair (same case, run and seed) are scheduled next to each other,
  so they meet the same API load;
* **concurrency** — at most ``concurrency`` rollouts run at a time;
* **cache** — a rollout whose key is in the :class:`RolloutCache` is not run again;
* **journal** — each finished rollout is appended and synced before it is reported finished; a
  restarted batch resumes;
* **budget** — caps on rollouts, dollars and wall time stop new launches cleanly and the batch
  reports exactly which rollouts were not run;
* **timeouts** — a harness that hangs is cut at its ``timeout_s`` (plus a short grace for a
  cooperative harness to return its partial trajectory) and the rollout ends as an infra error.

Every rollout ends ``completed`` (then scored) or ``infra_error`` with a label; retrying model
calls is the model client's job, not the engine's. A :class:`ConfigError` from a harness (no API
key, a provider the harness cannot use) is the user's to fix, and would fail every rollout alike,
so it stops the batch and propagates instead.

A rollout's concurrency slot is held while its harness runs and its result is scored. What
follows needs the disk, not the model (removing the workspace, writing the cache entry, syncing
the journal line), so it runs as trailing tasks, mostly on worker threads, while the slot takes
the next rollout; a slow disk then costs throughput only when it falls behind
(:data:`WORKSPACES_PER_SLOT`). A rollout counts as finished (progress line, batch record) only once
its journal line is on disk, and :func:`run_rollouts` returns only when all trailing work is done.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from ..agents import (
    Harness,
    HarnessOutcome,
    RolloutRequest,
    RolloutResult,
    TrajectoryBuilder,
    Workspace,
    plan_arm,
    stage_workspace,
)
from ..errors import AcesError, ConfigError, InfraError
from ..grading import Scorer
from ..models import Usage
from ..redact import environment_secrets, get_logger, redact_text
from ..skill import RenderedSkill
from ._batch import NotRun, RolloutBatch, RolloutRecord, RolloutSource
from ._budget import Budget, BudgetMeter, StopReason
from ._cache import RolloutCache
from ._journal import Journal, JournalAppender
from ._progress import NoProgress, Progress
from ._trailing import WORKSPACES_PER_SLOT, TrailingWork

_log = get_logger(__name__)

TIMEOUT_GRACE_S = 1.0
"""How long past ``timeout_s`` a harness may take to hand back its own timeout outcome before it is cut."""

BaselineOf = Callable[[RolloutRequest], RenderedSkill | None]
"""For a ``without``-arm request: the skill under test, which staging proves absent."""


def schedule(requests: Sequence[RolloutRequest], keys: Sequence[str]) -> list[int]:
    """Request indices in launch order: pairs (same case, run, seed) together, ``with`` first, first come first."""
    groups: dict[tuple[str, int, int], list[int]] = {}
    for index, request in enumerate(requests):
        groups.setdefault((request.case.id, request.run_index, request.seed), []).append(index)
    order: list[int] = []
    seen: set[str] = set()
    for members in groups.values():
        for index in sorted(members, key=lambda i: (requests[i].arm != "with", i)):
            if keys[index] not in seen:
                seen.add(keys[index])
                order.append(index)
    return order


def batch_run_id(keys: Sequence[str], harness: Harness, scorer: Scorer | None) -> str:
    """What identifies "the same batch" across restarts: its rollouts and how they are scored."""
    payload = {"keys": sorted(set(keys)), "harness": harness.name, "scorer": scorer.name if scorer else None}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:32]


def _infra_trajectory(harness: Harness, request: RolloutRequest, reason: str, message: str) -> dict[str, object]:
    """A valid, empty ATIF document for a rollout whose harness gave us nothing back."""
    builder = TrajectoryBuilder(
        agent_name=f"aces-ci-{harness.name}", agent_version=harness.version(), model_name=request.model.model
    )
    return builder.build(usage=Usage(), notes=message, extra={"end_reason": reason, "arm": request.arm})


class _Runner:
    """State of one :func:`run_rollouts` call."""

    def __init__(
        self,
        *,
        harness: Harness,
        scorer: Scorer | None,
        progress: Progress,
        cache: RolloutCache | None,
        baseline_of: BaselineOf | None,
        workspace_dir: Path | None,
        keep_workspaces: bool,
        workspace_limit: int,
    ) -> None:
        self.harness = harness
        self.scorer = scorer
        self.progress = progress
        self.cache = cache
        self.baseline_of = baseline_of
        self.workspace_dir = workspace_dir
        self.keep_workspaces = keep_workspaces
        self.secrets = environment_secrets()
        self.journal: JournalAppender | None = None
        self.trailing = TrailingWork(workspace_limit)
        self.done: dict[str, tuple[RolloutResult, RolloutSource, Path | None]] = {}

    def guard_for(self, request: RolloutRequest) -> RenderedSkill | None:
        return self.baseline_of(request) if self.baseline_of and request.arm == "without" else None

    async def score(self, request: RolloutRequest, result: RolloutResult) -> RolloutResult:
        if self.scorer is None or result.status != "completed":
            return dataclasses.replace(result, score=None)
        try:
            return dataclasses.replace(result, score=await self.scorer.score(request.case, result))
        except AcesError as exc:
            # A judge that cannot be reached is infrastructure; the rollout itself stays in the cache.
            return dataclasses.replace(result, status="infra_error", score=None, error=f"scoring failed: {exc}")

    def record(
        self,
        request: RolloutRequest,
        result: RolloutResult,
        source: RolloutSource,
        seconds: float,
        workspace: Path | None = None,
    ) -> None:
        """Report a finished rollout; one the journal does not hold yet is reported once its line is on disk."""
        finished = RolloutRecord(request, result, source, workspace)
        if source == "journal" or self.journal is None:
            self.report(finished, seconds)
        else:
            self.trailing.start(self._journal_then_report(self.journal, finished, seconds))

    async def _journal_then_report(self, journal: JournalAppender, finished: RolloutRecord, seconds: float) -> None:
        try:
            await journal.append(finished.result)
        except OSError as exc:
            _log.warning("rollout journal: cannot append to %s (%s); results stay in memory", journal.journal.path, exc)
        self.report(finished, seconds)

    def report(self, finished: RolloutRecord, seconds: float) -> None:
        result = finished.result
        self.done[result.key] = (result, finished.source, finished.workspace)
        if finished.source == "cache":
            outcome = "cached"
        elif finished.source == "journal":
            outcome = "resumed"
        elif result.status == "completed":
            outcome = "done"
        else:
            outcome = f"infra_error ({result.end_reason})"
        self.progress.advance(finished.request, outcome, seconds)

    def tidy(self, staging: AbstractContextManager[Workspace] | None, result: RolloutResult | None) -> None:
        """Remove the workspace (unless kept) and cache the result, on a worker thread: disk work off the loop."""
        if staging is None and (result is None or self.cache is None):
            return

        def work() -> None:
            if staging is not None:
                staging.__exit__(None, None, None)
            if result is not None and self.cache is not None:
                # Before scoring finishes: a judge outage must not keep a good rollout out of the cache.
                self.cache.put(result)

        self.trailing.start(asyncio.to_thread(work), removes_workspace=staging is not None)

    async def attempt(self, request: RolloutRequest, workspace: Workspace) -> tuple[HarnessOutcome | None, str, str]:
        """Run the harness once: its outcome, or None with the end reason and message of what went wrong."""
        try:
            async with asyncio.timeout(request.harness.timeout_s + TIMEOUT_GRACE_S) as scope:
                return await self.harness.run(request, workspace), "", ""
        except TimeoutError:
            if not scope.expired():
                return None, "harness_error", "the harness raised TimeoutError"
            return None, "timeout", f"the harness did not finish within its timeout of {request.harness.timeout_s:g}s"
        except ConfigError:
            raise  # a missing key or an unusable provider is not an outage: see the module doc
        except AcesError as exc:
            return None, "harness_error", f"{type(exc).__name__}: {exc}"
        except Exception as exc:  # a crashing harness must cost one rollout, not the batch
            _log.debug("harness %s crashed", self.harness.name, exc_info=True)
            return None, "harness_error", f"the harness crashed: {type(exc).__name__}: {exc}"

    async def run_one(self, request: RolloutRequest, key: str) -> RolloutResult:
        """Stage, run and score one rollout; its disk work and its report trail behind (see the module doc)."""
        started = time.monotonic()
        outcome: HarnessOutcome | None = None
        kept: Path | None = None
        staged: AbstractContextManager[Workspace] | None = None
        staging = stage_workspace(
            request, self.harness, self.workspace_dir, self.keep_workspaces, baseline_of=self.guard_for(request)
        )
        try:
            workspace = staging.__enter__()
        except InfraError as exc:  # the harness's own errors are caught by attempt(): this is staging
            reason, message = "staging_error", str(exc)
        else:
            staged = staging
            kept = workspace.root.parent if self.keep_workspaces else None
            try:
                outcome, reason, message = await self.attempt(request, workspace)
            except BaseException:  # cancelled at the wall-time cap: the workspace still goes
                self.tidy(staged, None)
                raise
        duration = time.monotonic() - started
        if outcome is None:
            message = redact_text(message, self.secrets)
            result = RolloutResult(
                key=key,
                status="infra_error",
                end_reason=reason,
                final_answer=None,
                trajectory=_infra_trajectory(self.harness, request, reason, message),
                usage=Usage(),
                duration_s=duration,
                error=message,
            )
        else:
            result = RolloutResult(
                key=key,
                status="infra_error" if outcome.infra_error else "completed",
                end_reason=outcome.end_reason,
                final_answer=None if outcome.final_answer is None else redact_text(outcome.final_answer, self.secrets),
                trajectory=outcome.trajectory,
                usage=outcome.usage,
                duration_s=duration,
                skill_events=outcome.skill_events,
                error=None if outcome.infra_error is None else redact_text(outcome.infra_error, self.secrets),
            )
        self.tidy(staged, result)
        scored = await self.score(request, result)
        self.record(request, scored, "run", duration, kept)
        return scored


async def run_rollouts(
    requests: Sequence[RolloutRequest],
    harness: Harness,
    *,
    scorer: Scorer | None = None,
    concurrency: int = 4,
    cache: RolloutCache | None = None,
    journal: Path | None = None,
    budget: Budget | None = None,
    progress: Progress | None = None,
    baseline_of: BaselineOf | None = None,
    workspace_dir: Path | None = None,
    keep_workspaces: bool = False,
) -> RolloutBatch:
    """Run ``requests`` on ``harness`` and return every result, scored, in request order.

    Identical requests (same cache key) run once and share the result. ``baseline_of`` gives,
    for each ``without``-arm request, the skill under test; every request's staging is checked
    before the first rollout starts (:class:`InputError` on a leaked baseline). Rollouts are
    resumed from ``journal`` and taken from ``cache`` before any is launched.
    """
    if concurrency < 1:
        raise ConfigError(f"concurrency must be at least 1, got {concurrency}", field="concurrency")
    budget = budget or Budget()
    progress = progress or NoProgress()
    runner = _Runner(
        harness=harness,
        scorer=scorer,
        progress=progress,
        cache=cache,
        baseline_of=baseline_of,
        workspace_dir=workspace_dir,
        keep_workspaces=keep_workspaces,
        workspace_limit=WORKSPACES_PER_SLOT * concurrency,
    )
    version = harness.version()
    keys = [request.cache_key(version) for request in requests]
    for request in requests:
        plan_arm(request, harness, runner.guard_for(request))
    order = schedule(requests, keys)
    run_id = batch_run_id(keys, harness, scorer)
    meter = BudgetMeter(budget)
    stopped: list[StopReason] = []
    progress.start(len(order))
    journal_file: Journal | None = None
    try:
        if journal is not None:
            journal_file = Journal(journal, run_id)
            resumed = journal_file.open()
            runner.journal = JournalAppender(journal_file)
            first_index = {key: index for index, key in reversed(list(enumerate(keys)))}
            for key, result in resumed.items():
                if key in first_index and result.status == "completed":
                    # Scored again, as cache hits are: the case's expected output may have changed since.
                    resumed_request = requests[first_index[key]]
                    runner.record(resumed_request, await runner.score(resumed_request, result), "journal", 0.0)
        pending: list[int] = []
        for index in order:
            key = keys[index]
            if key in runner.done:
                continue
            cached = cache.get(key) if cache is not None else None
            if cached is not None:
                runner.record(requests[index], await runner.score(requests[index], cached), "cache", 0.0)
            else:
                pending.append(index)
        await _launch(runner, [(requests[i], keys[i]) for i in pending], concurrency, meter, stopped)
    finally:
        try:
            await runner.trailing.drain()
        finally:
            if journal_file is not None:
                journal_file.close()
            progress.close()
    records = tuple(
        RolloutRecord(request, *runner.done[key])
        for request, key in zip(requests, keys, strict=True)
        if key in runner.done
    )
    missing = [(request, key) for request, key in zip(requests, keys, strict=True) if key not in runner.done]
    if not missing:
        return RolloutBatch(run_id=run_id, records=records)
    if not stopped:
        raise RuntimeError(f"{len(missing)} rollouts neither finished nor were stopped by a budget cap")
    return RolloutBatch(
        run_id=run_id,
        records=records,
        not_run=tuple(NotRun(request, key, stopped[0]) for request, key in missing),
        stopped_by=stopped[0],
    )


async def _launch(
    runner: _Runner,
    pending: Sequence[tuple[RolloutRequest, str]],
    concurrency: int,
    meter: BudgetMeter,
    stopped: list[StopReason],
) -> None:
    """Run ``pending`` (request, key) in order, at most ``concurrency`` at a time, until done or a cap is hit.

    The first cap reached is appended to ``stopped``; what was not launched is left out of ``runner.done``.
    """
    queue = iter(pending)

    async def worker() -> None:
        while not stopped:
            item = next(queue, None)
            if item is None:
                return
            await runner.trailing.room()
            if reason := meter.exhausted():
                stopped.append(reason)
                return
            meter.launch()
            request, key = item
            result = await runner.run_one(request, key)
            meter.spend(result.usage.cost_usd)

    workers = [asyncio.create_task(worker()) for _ in range(min(concurrency, len(pending)))]
    if not workers:
        return
    try:
        _, unfinished = await asyncio.wait(workers, timeout=meter.wall_left())
        if unfinished:
            stopped.append("max_wall")
            for task in unfinished:
                task.cancel()
        for task in workers:
            try:
                await task
            except asyncio.CancelledError:
                if not task.cancelled():
                    raise
    except BaseException:
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        raise
