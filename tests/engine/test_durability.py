"""The journal's promise under the engine's trailing work: nothing is reported finished before it is on disk.

Syncs happen on a worker thread and in groups; these tests hold syncs back or make them fail to
show that a rollout is reported only once its line is synced, that waiting records share the
next sync, and that a failing disk or display loses no result and leaves no workspace behind.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from aces_ci.agents import HarnessSpec, RolloutRequest, RolloutResult, baseline_guard, create_harness
from aces_ci.engine import Budget, Journal, JournalAppender, RolloutBatch, RolloutCache, _journal
from aces_ci.engine._trailing import TrailingWork
from aces_ci.grading import EXPECTED_OUTPUT, ExpectedOutputGrader
from aces_ci.models import ModelSpec, Usage
from tests.engine.helpers import case, fast_clients, openai_model, planted_skill, rendered, request, run_once
from tests.servers import Hang, ScriptedServer, Text

Server = Callable[..., ScriptedServer]
KEYS = [f"{i:02x}" + "0" * 62 for i in range(8)]
PRELOAD = HarnessSpec(name="builtin", disclosure="preload", max_turns=3, timeout_s=30)
TARGET = rendered()


def paired(model: ModelSpec, cases: int) -> list[RolloutRequest]:
    """Both arms of ``cases`` questions the planted skill answers (42 with it, "I do not know" without)."""
    return [
        request(arm, target=TARGET, harness=PRELOAD, model=model, eval_case=case(f"case-{i}", prompt=f"Question {i}?"))
        for i in range(cases)
        for arm in ("with", "without")
    ]


def result(key: str) -> RolloutResult:
    return RolloutResult(key, "completed", "final_answer", "42", {"steps": []}, Usage(), 0.1)


async def execute(requests: list[RolloutRequest], **options: object) -> RolloutBatch:
    clients = fast_clients()
    try:
        return await run_once(
            requests,
            create_harness(PRELOAD, clients=clients),
            grader=ExpectedOutputGrader(),
            guard=baseline_guard([TARGET]),
            **options,
        )
    finally:
        await clients.aclose()


class SyncLog:
    """Stands in for the journal's sync: does the real one, then notes how many bytes are now safe."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, fail: bool = False) -> None:
        self.safe_sizes: list[int] = []
        self.fail = fail
        self._real = _journal._sync_data
        monkeypatch.setattr(_journal, "_sync_data", self)

    def __call__(self, fd: int) -> None:
        if self.fail:
            raise OSError(5, "Input/output error")
        self._real(fd)
        self.safe_sizes.append(os.fstat(fd).st_size)


class JournalWitness:
    """A progress display that checks, at each report, that the rollout's line is already synced."""

    def __init__(self, journal: Path, syncs: SyncLog, version: str) -> None:
        self.journal, self.syncs, self.version = journal, syncs, version
        self.reported: list[str] = []
        self.unsynced: list[str] = []

    def expect(self, count: int) -> None:
        """Counts are not checked here."""

    def advance(self, request: RolloutRequest, outcome: str, seconds: float) -> None:
        self.reported.append(outcome)
        safe = self.journal.read_bytes()[: self.syncs.safe_sizes[-1]] if self.syncs.safe_sizes else b""
        if f'"key":"{request.cache_key(self.version)}"'.encode() not in safe:
            self.unsynced.append(f"{request.case.id}/{request.condition} reported {outcome} before its line was synced")

    def stopped(self, reason: str, not_run: int) -> None:
        """Stops are not checked here."""

    def close(self) -> None:
        """Nothing to close."""


async def test_rollouts_are_reported_finished_only_once_their_journal_line_is_synced(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = scripted_server(planted_skill)
    requests = paired(openai_model(server.openai_url), cases=6)
    syncs = SyncLog(monkeypatch)
    cache = RolloutCache(tmp_path / "cache")
    version = create_harness(PRELOAD, clients=fast_clients()).cache_identity()

    ran = JournalWitness(tmp_path / "first.jsonl", syncs, version)
    first = await execute(requests, concurrency=4, cache=cache, journal=ran.journal, progress=ran)
    cached = JournalWitness(tmp_path / "second.jsonl", syncs, version)
    second = await execute(requests, concurrency=4, cache=cache, journal=cached.journal, progress=cached)

    assert ran.reported == ["done"] * 12 and cached.reported == ["cached"] * 12
    assert ran.unsynced == cached.unsynced == []
    assert first.all_completed and [r.source for r in second.records] == ["cache"] * 12
    assert len(ran.journal.read_text().splitlines()) == len(cached.journal.read_text().splitlines()) == 12


async def test_records_waiting_for_a_sync_share_the_next_one_and_each_waits_for_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entered: list[int] = []
    gate = threading.Semaphore(0)
    real_sync = _journal._sync_data

    def held_sync(fd: int) -> None:
        entered.append(os.fstat(fd).st_size)
        gate.acquire()
        real_sync(fd)

    monkeypatch.setattr(_journal, "_sync_data", held_sync)
    journal = Journal(tmp_path / "journal.jsonl")
    journal.open()
    appender = JournalAppender(journal)
    keys = KEYS[:6]

    async def syncs_entered(count: int) -> None:
        while len(entered) < count:
            await asyncio.sleep(0.001)

    first = asyncio.create_task(appender.append(result(keys[0])))
    try:
        await asyncio.wait_for(syncs_entered(1), 30)
        rest = [asyncio.create_task(appender.append(result(key))) for key in keys[1:]]
        await asyncio.sleep(0)
        assert not first.done() and not any(task.done() for task in rest)  # the first sync is still running

        gate.release()
        await asyncio.wait_for(syncs_entered(2), 30)
        await asyncio.sleep(0)
        assert first.done() and not any(task.done() for task in rest)  # the other five wait for the second sync

        gate.release()
        await asyncio.wait_for(asyncio.gather(first, *rest), 30)
    finally:
        for _ in keys:  # never leave a worker thread blocked, whatever failed
            gate.release()
        journal.close()
    assert len(entered) == 2  # six records, two syncs
    assert set(Journal(tmp_path / "journal.jsonl").open()) == set(keys)


async def test_a_journal_the_disk_refuses_warns_and_keeps_every_result(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    server = scripted_server(planted_skill)
    SyncLog(monkeypatch, fail=True)
    with caplog.at_level(logging.WARNING):
        batch = await execute(
            paired(openai_model(server.openai_url), cases=2), concurrency=2, journal=tmp_path / "journal.jsonl"
        )
    assert batch.all_completed and len(batch.records) == 4
    assert [r.value(EXPECTED_OUTPUT) for r in batch.records] == [1.0, 0.0, 1.0, 0.0]
    assert "cannot append" in caplog.text and "Input/output error" in caplog.text


def test_a_new_journal_syncs_every_directory_that_gained_an_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[Path] = []
    monkeypatch.setattr(_journal, "_sync_directory", synced.append)
    path = tmp_path / "runs" / "nightly" / "journal.jsonl"
    with Journal(path):
        pass
    assert synced == [tmp_path, tmp_path / "runs", tmp_path / "runs" / "nightly"]
    synced.clear()
    with Journal(path):
        pass
    assert synced == []  # reopening creates nothing


def test_writing_to_a_closed_journal_is_an_os_error(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.jsonl")
    journal.open()
    journal.close()
    with pytest.raises(OSError, match="closed"):
        journal.write(journal.encode(result(KEYS[0])))
    with pytest.raises(OSError, match="closed"):
        journal.sync()


class FillingDisk:
    """The ``os`` module as the journal sees it, on a disk that fills up half-way through a write."""

    def __init__(self, truncate_fails: bool = False) -> None:
        self.truncate_fails = truncate_fails

    def __getattr__(self, name: str) -> object:
        return getattr(os, name)

    def write(self, fd: int, data: bytes) -> int:
        os.write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    def ftruncate(self, fd: int, length: int) -> None:
        if self.truncate_fails:
            raise OSError(errno.EIO, "Input/output error")
        os.ftruncate(fd, length)


def test_a_write_cut_short_by_a_full_disk_leaves_no_torn_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal(path)
    journal.open()
    journal.append(result(KEYS[0]))
    with monkeypatch.context() as patch:
        patch.setattr(_journal, "os", FillingDisk())
        with pytest.raises(OSError, match="No space left"):
            journal.append(result(KEYS[1]))
    journal.append(result(KEYS[2]))  # space was freed
    journal.close()
    with caplog.at_level(logging.WARNING):
        assert set(Journal(path).open()) == {KEYS[0], KEYS[2]}
    assert caplog.text == ""


def test_a_torn_write_that_cannot_be_cut_off_stops_the_journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal(path)
    journal.open()
    journal.append(result(KEYS[0]))
    with monkeypatch.context() as patch:
        patch.setattr(_journal, "os", FillingDisk(truncate_fails=True))
        with pytest.raises(OSError, match="No space left"):
            journal.append(result(KEYS[1]))
    with pytest.raises(OSError, match="stopped taking records"):
        journal.append(result(KEYS[2]))  # it would land behind the torn line and be lost to the next run
    journal.close()
    assert set(Journal(path).open()) == {KEYS[0]}


async def test_a_crashing_progress_display_fails_the_batch_after_its_results_are_safe(
    scripted_server: Server, tmp_path: Path
) -> None:
    class BrokenDisplay:
        def expect(self, count: int) -> None:
            """Nothing to show."""

        def advance(self, request: RolloutRequest, outcome: str, seconds: float) -> None:
            raise BrokenPipeError("the terminal went away")

        def stopped(self, reason: str, not_run: int) -> None:
            """Nothing to show."""

        def close(self) -> None:
            """Nothing to close."""

    server = scripted_server(planted_skill)
    journal = tmp_path / "journal.jsonl"
    workspaces = tmp_path / "workspaces"
    workspaces.mkdir()
    with pytest.raises(BrokenPipeError):
        await execute(
            paired(openai_model(server.openai_url), cases=2),
            concurrency=2,
            journal=journal,
            progress=BrokenDisplay(),
            workspace_dir=workspaces,
        )
    assert len(journal.read_text().splitlines()) == 4
    assert not list(workspaces.iterdir())


async def test_rollouts_finished_before_the_wall_cap_are_journaled(scripted_server: Server, tmp_path: Path) -> None:
    server = scripted_server(lambda req: Text("42") if "Question 0" in req.last_user_text else Hang())
    journal = tmp_path / "journal.jsonl"
    batch = await execute(
        paired(openai_model(server.openai_url), cases=2),
        concurrency=2,
        budget=Budget(max_wall_s=0.5),
        journal=journal,
        workspace_dir=tmp_path,
    )
    assert batch.stopped_by == "max_wall"
    assert [r.request.case.id for r in batch.records] == ["case-0"] * 2
    assert set(Journal(journal).open()) == {r.result.key for r in batch.records}
    assert [p.name for p in tmp_path.iterdir()] == ["journal.jsonl"]  # every workspace removed


async def test_only_workspace_removals_make_new_rollouts_wait_and_the_first_failure_is_reported() -> None:
    trailing = TrailingWork(workspace_limit=2)
    removals = [asyncio.Event(), asyncio.Event()]
    sync = asyncio.Event()

    async def waits(event: asyncio.Event) -> None:
        await event.wait()

    async def fails() -> None:
        raise OSError("disk full")

    trailing.start(waits(sync))  # a journal sync still running does not count
    trailing.start(waits(removals[0]), removes_workspace=True)
    await asyncio.wait_for(trailing.room(), 5)
    trailing.start(waits(removals[1]), removes_workspace=True)
    room = asyncio.create_task(trailing.room())
    await asyncio.sleep(0.01)
    assert not room.done()
    removals[0].set()
    await asyncio.wait_for(room, 5)
    trailing.start(fails())
    removals[1].set()
    sync.set()
    with pytest.raises(OSError, match="disk full"):
        await trailing.drain()
