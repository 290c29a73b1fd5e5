"""Work a rollout leaves behind once its slot is free: removing its workspace, caching it, journaling it.

None of it needs the model, and most of it waits on the disk (an ``fdatasync`` or an ``rmdir``
can take milliseconds on a busy machine), so the engine starts it as tasks and lets the slot
take the next rollout. The batch awaits all of it before it returns, and a failure in any of it
is re-raised there rather than lost.

Only workspace removal is throttled (:data:`WORKSPACES_PER_SLOT`): a workspace occupies disk
until it is gone. Journal syncs need no limit, since each sync covers every record waiting for
it, so the journal can fall behind by at most one sync.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

WORKSPACES_PER_SLOT = 4
"""Workspaces each concurrency slot may leave awaiting removal before its next rollout waits.

On a disk busy enough that removing a workspace takes longer than a rollout, four keep a serial
batch from waiting on removals (two still did, measured with ``benchmarks/engine_overhead.py``
next to a writer syncing 32 MiB at a time); beyond that a disk that cannot keep up slows the
launches instead of piling up workspaces."""


class TrailingWork:
    """The trailing tasks of one batch: started at once, awaited together at the end."""

    def __init__(self, workspace_limit: int) -> None:
        self.workspace_limit = workspace_limit
        self._running: set[asyncio.Task[None]] = set()
        self._removing: set[asyncio.Task[None]] = set()
        self._failed: list[BaseException] = []

    def start(self, work: Coroutine[Any, Any, None], *, removes_workspace: bool = False) -> None:
        task = asyncio.create_task(work)
        self._running.add(task)  # the event loop keeps only a weak reference to a task
        if removes_workspace:
            self._removing.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        self._removing.discard(task)
        if not task.cancelled() and (failure := task.exception()) is not None:
            self._failed.append(failure)

    async def room(self) -> None:
        """Wait until fewer than ``workspace_limit`` workspaces await removal."""
        while len(self._removing) >= self.workspace_limit:
            await asyncio.wait(set(self._removing), return_when=asyncio.FIRST_COMPLETED)

    async def drain(self) -> None:
        """Wait for every trailing task, then re-raise the first that failed."""
        while self._running:
            await asyncio.wait(set(self._running))
        if self._failed:
            raise self._failed[0]
