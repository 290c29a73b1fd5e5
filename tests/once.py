"""Work a whole test run shares: done once, by whichever pytest-xdist worker asks first, then reused.

A session fixture runs once per xdist worker, so an install that takes minutes on the CI runner (the
Docker image's build step, the Action's install step) ran on each worker that drew one of its tests.
:func:`once_per_run` keeps its result in a folder of the run's shared temporary directory behind a file
lock: the first worker builds while the others wait on the lock, then every worker reads the same folder.
A build that failed is recorded there too, so the other workers fail with its message instead of building
again. A worker that waits is idle no longer than it used to spend building its own copy (slower, beside
the other's). ``--dist loadgroup`` would keep such tests on one worker, but with pytest 9.2 it silently
stops grouping (pytest-dev/pytest-xdist#1386), so the lock is what guarantees one build per run.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

DONE = ".done"
FAILED = ".failed"


def run_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temporary folder every worker of this run sees (each xdist worker's basetemp sits in it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once_per_run(root: Path, name: str, build: Callable[[Path], None]) -> Path:
    """``root/name`` after ``build(root/name)`` has run there once for the run; fails as that build failed."""
    folder = root / name
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if this process dies
        if not (folder / DONE).exists() and not (folder / FAILED).exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a worker killed mid-build left
            folder.mkdir(parents=True)
            try:
                build(folder)
            except (Exception, pytest.fail.Exception) as error:
                (folder / FAILED).write_text(f"{type(error).__name__}: {error}", encoding="utf-8")
                raise
            (folder / DONE).touch()
    if (folder / FAILED).exists():
        reason = (folder / FAILED).read_text(encoding="utf-8")
        pytest.fail(f"{name}, built once for this run, failed: {reason}", pytrace=False)
    return folder
