"""The rollout engine: opened once per command, asked for batches of rollouts as often as the command needs.

Trials and SkillSV both come down to "run these rollouts and grade them", many times over in one
command (a trial's sequential rounds, SkillSV's one batch per prefix of a coalition chain).
Everything that makes that affordable and trustworthy lives here, once per command:

* **lifetime** — ``async with RolloutEngine(harness, …) as engine`` opens the journal (read once)
  and starts the budget's clock; :meth:`RolloutEngine.run` may then be called any number of times,
  one call at a time, sharing one budget meter, one journal, one progress display;
* **reuse** — a rollout whose key already completed (earlier in this command, in the journal by
  any batch of any earlier command, or in the :class:`RolloutCache`) is not run again;
  requests with the same key within one call run once and share the outcome;
* **order** — distinct rollouts launch in the order of the caller's :data:`Schedule`;
* **concurrency** — at most ``concurrency`` rollouts run at a time;
* **journal** — each finished rollout is appended and synced before it is reported finished, so
  a killed command resumes;
* **budget** — caps on rollouts, dollars and wall time stop new launches cleanly and each call
  reports exactly which rollouts were not run;
* **circuit breaker** — after ``breaker_after`` consecutive infrastructure errors no call launches
  another rollout (:mod:`aces_ci.engine._breaker`): a dead API costs a few rollouts, not the batch;
* **staging guard** — the caller's :data:`StagingGuard` sees every request's plan before the
  first rollout of a call starts (a leaked baseline is refused before any money is spent);
* **grading** — results are stored ungraded; each call grades its records with the grader it is
  given (:func:`grade_rollout`): a grader error never discards a paid rollout and never re-runs
  the agent, and regrading a cached batch with another grader makes no agent call.

A rollout's concurrency slot is held while its harness runs and while it is graded. What follows
needs the disk, not the model (removing the workspace, writing the cache entry, syncing the
journal line), so it runs as trailing tasks, mostly on worker threads, while the slot takes the
next rollout (:data:`WORKSPACES_PER_SLOT` keeps a slow disk from piling up workspaces). A rollout
counts as finished (progress line, batch record) only once its journal line is on disk, and
:meth:`RolloutEngine.run` returns only when all its trailing work is done.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from types import TracebackType
from typing import Self

from ..agents import (
    ArtifactLimits,
    Harness,
    RolloutRequest,
    RolloutResult,
    StagingGuard,
    Workspace,
    plan_checked,
)
from ..errors import ConfigError
from ..grading import Grader, Grades, GradingInput, grade_rollout
from ..redact import environment_secrets, get_logger
from ._batch import NotRun, RolloutBatch, RolloutRecord, RolloutSource
from ._breaker import DEFAULT_BREAKER_AFTER, CircuitBreaker
from ._budget import Budget, BudgetMeter, StopReason
from ._cache import RolloutStore
from ._journal import Journal, JournalAppender
from ._progress import NoProgress, Progress
from ._rollout import RolloutRunner, Tidy
from ._schedule import Schedule, checked_order, in_order
from ._trailing import WORKSPACES_PER_SLOT, TrailingWork

_log = get_logger(__name__)


def default_batch_id(keys: Sequence[str]) -> str:
    """A call's label when the caller gives none: the same set of rollouts, the same label."""
    return hashlib.sha256("\n".join(sorted(set(keys))).encode()).hexdigest()[:16]


class _Call:
    """State of one :meth:`RolloutEngine.run` call."""

    def __init__(self, requests: Sequence[RolloutRequest], keys: list[str], batch: str, grader: Grader | None) -> None:
        self.requests = requests
        self.keys = keys
        self.batch = batch
        self.grader = grader
        self.done: dict[str, tuple[RolloutResult, RolloutSource, Path | None]] = {}
        self.grades: dict[RolloutRequest, Grades] = {}
        self.stopped: list[StopReason] = []
        self.requests_of: dict[str, list[RolloutRequest]] = {}
        for request, key in zip(requests, keys, strict=True):
            members = self.requests_of.setdefault(key, [])
            if request not in members:
                members.append(request)


class RolloutEngine:
    """Runs rollouts on one harness for the lifetime of one command; use as ``async with``.

    ``schedule`` orders each call's launches (default: request order; paired trials use
    :func:`paired_schedule`); ``guard`` checks each request's staging plan (paired trials use
    :func:`~aces_ci.agents.baseline_guard`). ``budget`` spans every call; ``journal`` is read once
    when the engine opens. ``artifact_limits`` bound what is captured of each workspace.
    ``breaker_after`` consecutive infrastructure errors stop every later launch (:class:`CircuitBreaker`).
    """

    def __init__(
        self,
        harness: Harness,
        *,
        concurrency: int = 4,
        cache: RolloutStore | None = None,
        journal: Path | None = None,
        budget: Budget | None = None,
        progress: Progress | None = None,
        schedule: Schedule = in_order,
        guard: StagingGuard | None = None,
        workspace_dir: Path | None = None,
        keep_workspaces: bool = False,
        artifact_limits: ArtifactLimits | None = None,
        breaker_after: int = DEFAULT_BREAKER_AFTER,
    ) -> None:
        if concurrency < 1:
            raise ConfigError(f"concurrency must be at least 1, got {concurrency}", field="concurrency")
        self.harness = harness
        self.concurrency = concurrency
        self.cache = cache
        self.journal_path = journal
        self.budget = budget or Budget()
        self.progress = progress or NoProgress()
        self.schedule = schedule
        self.guard = guard
        self.runner = RolloutRunner(
            harness,
            guard=guard,
            workspace_dir=workspace_dir,
            keep_workspaces=keep_workspaces,
            artifact_limits=artifact_limits or ArtifactLimits(),
            secrets=environment_secrets(),
        )
        self.meter = BudgetMeter(self.budget)
        self.breaker = CircuitBreaker(breaker_after)
        self._trailing = TrailingWork(WORKSPACES_PER_SLOT * concurrency)
        self._journal: Journal | None = None
        self._appender: JournalAppender | None = None
        self._known: dict[str, tuple[RolloutResult, RolloutSource]] = {}
        """Completed rollouts this engine can reuse: from the journal at open, and from every call since."""
        self._identity = ""
        self._lock = asyncio.Lock()
        self._state = "new"

    # -- lifetime ------------------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        if self._state != "new":
            raise RuntimeError("a rollout engine is opened once")
        self._identity = self.harness.cache_identity()
        self.meter = BudgetMeter(self.budget)
        if self.journal_path is not None:
            journal = Journal(self.journal_path)
            records = journal.open()
            self._journal, self._appender = journal, JournalAppender(journal)
            self._known = {key: (result, "journal") for key, result in records.items() if result.status == "completed"}
        self._state = "open"
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._state = "closed"
        try:
            await self._trailing.drain()
        finally:
            if self._journal is not None:
                self._journal.close()
            self.progress.close()

    def journaled(self, label_prefix: str) -> int:
        """Rollouts the journal held at open under batch labels starting with ``label_prefix``: what earlier
        sessions paid for (a rollout run twice, after an infrastructure error, counts twice)."""
        if self._journal is None:
            return 0
        return sum(count for label, count in self._journal.batches.items() if label.startswith(label_prefix))

    @property
    def stopped_by(self) -> StopReason | None:
        """The budget cap this engine has reached, or its tripped circuit breaker: no call launches another
        rollout after it."""
        return "circuit_breaker" if self.breaker.tripped else self.meter.exhausted()

    # -- one call ------------------------------------------------------------------------------

    async def run(
        self, requests: Sequence[RolloutRequest], *, grader: Grader | None = None, batch: str | None = None
    ) -> RolloutBatch:
        """Run (or reuse) every request's rollout, grade each record with ``grader``, in request order.

        Every request's staging is checked by the guard before the first rollout starts
        (:class:`~aces_ci.errors.InputError` on a refusal). ``batch`` labels the journal lines this
        call writes (default: a digest of its keys). Calls on one engine run one after another.
        """
        async with self._lock:
            if self._state != "open":
                raise RuntimeError("open the engine with `async with RolloutEngine(...)` before running rollouts")
            keys = self._keys(requests)
            call = _Call(requests, keys, batch or default_batch_id(keys), grader)
            firsts: list[int] = []  # the first request of each distinct rollout, in launch order
            seen: set[str] = set()
            for index in checked_order(self.schedule, requests):
                if keys[index] not in seen:
                    seen.add(keys[index])
                    firsts.append(index)
            self.progress.expect(len(firsts))
            try:
                pending = self._reuse(call, firsts)
                await self._launch(call, pending)
                await self._grade_the_rest(call)
            finally:
                await self._trailing.drain()
            done = self._batch(call)
            if done.stopped_by is not None:
                self.progress.stopped(done.stopped_by, len({missing.key for missing in done.not_run}))
            return done

    def _keys(self, requests: Sequence[RolloutRequest]) -> list[str]:
        """Each request's key, every distinct request's plan checked by the guard first."""
        key_of: dict[RolloutRequest, str] = {}
        for request in requests:
            if request not in key_of:
                plan_checked(request, self.harness, self.guard)
                key_of[request] = request.cache_key(self._identity)
        return [key_of[request] for request in requests]

    def _reuse(self, call: _Call, firsts: list[int]) -> list[int]:
        """Report every rollout already completed (session, journal, cache); the indices left to run."""
        pending: list[int] = []
        for index in firsts:
            key = call.keys[index]
            known = self._known.get(key)
            if known is not None:
                self._finish(call, index, known[0], known[1])
                continue
            cached = self.cache.get(key) if self.cache is not None else None
            if cached is not None:
                self._finish(call, index, cached, "cache")
            else:
                pending.append(index)
        return pending

    def _finish(
        self, call: _Call, index: int, result: RolloutResult, source: RolloutSource, workspace: Path | None = None
    ) -> None:
        """Record a rollout of this call; one the journal lacks is reported once its line is on disk."""
        key = call.keys[index]
        request = call.requests[index]
        call.done[key] = (result, source, workspace)
        if result.status == "completed" and source in ("run", "cache"):
            self._known[key] = (result, "session")
        outcome = {"cache": "cached", "journal": "resumed", "session": "reused"}.get(source)
        if outcome is None:
            outcome = "done" if result.status == "completed" else f"infra_error ({result.end_reason})"
        seconds = result.duration_s if source == "run" else 0.0
        if source in ("journal", "session") or self._appender is None:
            self.progress.advance(request, outcome, seconds)
        else:
            report = self._journal_then_report(
                self._appender, request, result, batch=call.batch, outcome=outcome, seconds=seconds
            )
            self._trailing.start(report)

    async def _journal_then_report(
        self,
        appender: JournalAppender,
        request: RolloutRequest,
        result: RolloutResult,
        *,
        batch: str,
        outcome: str,
        seconds: float,
    ) -> None:
        try:
            await appender.append(result, rollout=request.identity(), batch=batch)
        except OSError as exc:
            path = appender.journal.path
            _log.warning("rollout journal: cannot append to %s (%s); results stay in memory", path, exc)
        self.progress.advance(request, outcome, seconds)

    def _tidy(self, request: RolloutRequest) -> Tidy:
        def tidy(staging: AbstractContextManager[Workspace] | None, result: RolloutResult | None) -> None:
            """Remove the workspace (unless kept) and cache the result, on a worker thread."""
            cache = self.cache
            if staging is None and (result is None or cache is None):
                return

            def work() -> None:
                if staging is not None:
                    staging.__exit__(None, None, None)
                if result is not None and cache is not None:
                    cache.put(result, request.identity())

            self._trailing.start(asyncio.to_thread(work), removes_workspace=staging is not None)

        return tidy

    async def _grade(self, call: _Call, key: str) -> None:
        """Grade every distinct request of ``key`` not graded yet; judges' costs count towards the budget."""
        if call.grader is None:
            return
        result = call.done[key][0]
        for request in call.requests_of[key]:
            if request not in call.grades:
                grades = await grade_rollout(call.grader, GradingInput(request, result))
                call.grades[request] = grades
                self.meter.spend(grades.usage.cost_usd)

    async def _grade_the_rest(self, call: _Call) -> None:
        """Grade what was reused, or cut off by the wall-time cap while grading, ``concurrency`` at a time."""
        if call.grader is None:
            return
        waiting = [key for key in call.done if any(r not in call.grades for r in call.requests_of[key])]
        slots = asyncio.Semaphore(self.concurrency)

        async def one(key: str) -> None:
            async with slots:
                await self._grade(call, key)

        await asyncio.gather(*(one(key) for key in waiting))

    async def _run_one(self, call: _Call, index: int) -> None:
        request, key = call.requests[index], call.keys[index]
        self.meter.launch()
        result, kept = await self.runner.run(request, key, self._tidy(request))
        self.meter.spend(result.usage.cost_usd)
        self.breaker.record(result)
        self._finish(call, index, result, "run", kept)
        await self._grade(call, key)

    async def _launch(self, call: _Call, pending: Sequence[int]) -> None:
        """Run ``pending`` in order, at most ``concurrency`` at a time, until done or a cap is hit.

        The first cap reached (or the tripped breaker) is appended to ``call.stopped``; what was not launched
        stays out of ``call.done``.
        """
        queue = iter(pending)

        async def worker() -> None:
            while not call.stopped:
                index = next(queue, None)
                if index is None:
                    return
                await self._trailing.room()
                if reason := self.stopped_by:
                    call.stopped.append(reason)
                    return
                await self._run_one(call, index)

        workers = [asyncio.create_task(worker()) for _ in range(min(self.concurrency, len(pending)))]
        if not workers:
            return
        try:
            _, unfinished = await asyncio.wait(workers, timeout=self.meter.wall_left())
            if unfinished:
                call.stopped.append("max_wall")
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

    def _batch(self, call: _Call) -> RolloutBatch:
        records: list[RolloutRecord] = []
        missing: list[NotRun] = []
        reason = call.stopped[0] if call.stopped else None
        for request, key in zip(call.requests, call.keys, strict=True):
            if key in call.done:
                result, source, workspace = call.done[key]
                grades = call.grades.get(request) if call.grader is not None else None
                records.append(RolloutRecord(request, result, source, grades, workspace))
            elif reason is None:
                raise RuntimeError(f"rollout {key} neither finished nor was stopped by a budget cap or the breaker")
            else:
                missing.append(NotRun(request, key, reason))
        stopped = reason if missing else None
        breaker = self.breaker.describe() if stopped == "circuit_breaker" else None
        return RolloutBatch(call.batch, tuple(records), tuple(missing), stopped, breaker)
