"""Scanning skills in worker processes: skills are independent, so the work splits by skill.

Python runs one thread of Python code at a time, and a scan is Python code (Markdown parsing,
regular expressions, YAML), so parallel scanning needs processes. Skills are sent in batches of
:data:`BATCH` as discovery finds them (the walk of the repository overlaps the first scans), and
the results come back in discovery order whatever finishes first, so the report never depends on
scheduling.

A worker process costs something to start: when there are fewer than two batches of skills the
work is done in the calling process instead (:func:`plan_workers`). On Linux, workers are forked from the scanning
process (modules and rules are already loaded: a worker is ready in milliseconds), but only while
this process runs a single thread, because forking a multi-threaded process can copy a lock in a
held state. Elsewhere, and whenever other threads run, workers are spawned fresh.
"""

from __future__ import annotations

import itertools
import sys
import threading
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import TYPE_CHECKING, TypeVar

from ..errors import InfraError

if TYPE_CHECKING:
    from concurrent.futures import Future
    from multiprocessing.context import BaseContext

T = TypeVar("T")
R = TypeVar("R")

BATCH = 16
"""Skills per message to a worker: enough to keep messages few, few enough to balance uneven skills."""


def _start_method() -> BaseContext:
    import multiprocessing  # here: a scan that needs no worker (one skill, a warm cache) never loads it

    if sys.platform == "linux" and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _batches(items: Iterator[T]) -> Iterator[list[T]]:
    while batch := list(itertools.islice(items, BATCH)):
        yield batch


def plan_workers(items: Iterable[T], jobs: int) -> tuple[int, Iterator[T]]:
    """How many worker processes ``items`` deserve with ``jobs`` allowed (1: work in this process), and the items.

    Only the first ``jobs`` batches are looked at, so a long discovery is not waited for.
    """
    pending = iter(items)
    head = list(itertools.islice(pending, jobs * BATCH)) if jobs > 1 else []
    workers = min(jobs, -(-len(head) // BATCH))
    return (workers if workers >= 2 else 1), itertools.chain(head, pending)


def run_in_workers(
    work: Callable[[list[T]], list[R]],
    items: Iterable[T],
    workers: int,
    initializer: Callable[..., object],
    initargs: tuple[object, ...],
) -> Generator[R, None, None]:
    """``work`` over batches of ``items`` in ``workers`` processes, each set up by ``initializer(*initargs)``.

    Yields the results in the order of ``items``, each as soon as it and all before it are done, so
    the caller can use them while later batches are still being worked on. A worker that dies
    (killed, out of memory) is an :class:`~aces_ci.errors.InfraError`: the machine failed, not the skill.
    """
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    executor = ProcessPoolExecutor(
        max_workers=workers, mp_context=_start_method(), initializer=initializer, initargs=initargs
    )
    try:
        futures: list[Future[list[R]]] = [executor.submit(work, batch) for batch in _batches(iter(items))]
        for future in futures:
            yield from future.result()
    except BrokenProcessPool:
        raise InfraError(
            "a scan worker process stopped unexpectedly (killed, or out of memory?); "
            "rerun with --jobs 1 to scan in one process"
        ) from None
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
