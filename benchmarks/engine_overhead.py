"""Rollout engine overhead and concurrency speed-up, against a scripted model server on 127.0.0.1.

**Overhead.** The server answers at once. The same number of model calls is made twice, serially:
once straight through the model client (the very request the agent loop sends: same system prompt,
same tools), once as rollouts through the whole engine (cache key, staging guard, workspace
staging, artifact capture and removal, the built-in agent loop, ATIF building and redaction,
skill-event detection, grading; optionally the cache and the synced journal). The difference divided by the
number of rollouts is what the engine adds to each rollout, model time excluded. Target: < 5 ms.
Disk work that trails a rollout (workspace removal, cache write, journal sync) runs on worker
threads, but the batch returns only when it is done, so the wall-clock figure includes it. The CPU
overhead (process time, every thread, the in-process server's too, minus the raw calls' own)
is printed beside it: on a machine shared with other work it moves far less than wall time.

With ``--busy-disk`` another process writes and syncs 32 MiB at a time in the temp directory
during the overhead runs, as a CI runner's other jobs do: ``fsync`` and ``rmdir`` then take
milliseconds instead of a fraction of one.

**Parts** (``--parts``) times the pieces alone, best of many calls: redacting one finished
trajectory, staging and removing one workspace, capturing its artifacts, a request's cache key
and staging guard, grading one rollout, and appending one journal line with its sync.

**Speed-up.** The server waits a fixed delay before each answer, like a real model. The same
batch runs at several concurrency limits; the speed-up over concurrency 1 should grow nearly
linearly until the limit.

Each rollout makes exactly one model call (preload disclosure, a plain-text answer). Figures are
the best of ``--repeat`` runs. The ratios, not the absolute times, are what compare across machines.

Usage::

    .venv/bin/python benchmarks/engine_overhead.py [--rollouts 400] [--delay 0.1] [--batch 32] [--repeat 3]
        [--parts] [--busy-disk]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path

# The scripted server lives with the tests; this script runs from a checkout, so put its root on the path.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aces_ci.agents import (
    HarnessSpec,
    ModelClients,
    RolloutRequest,
    SkillSet,
    baseline_guard,
    capture_artifacts,
    create_harness,
    plan_checked,
    stage_workspace,
)
from aces_ci.agents.builtin import TOOL_SPECS, StagedSkill, system_prompt
from aces_ci.engine import Journal, RolloutCache, RolloutEngine
from aces_ci.grading import ExpectedOutputGrader, GradingInput, grade_rollout
from aces_ci.models import ConcurrencyLimiter, Message, ModelRequest, ModelSpec, RetryPolicy
from aces_ci.redact import redact_obj
from aces_ci.skill import skill_card
from tests.engine.helpers import case, rendered
from tests.servers import ScriptedServer, SlowStream, Text

SPEC = HarnessSpec(name="builtin", disclosure="preload", max_turns=2, timeout_s=60)
NO_RETRY = RetryPolicy(max_attempts=1)


def _requests(model: ModelSpec, count: int, offset: int = 0) -> list[RolloutRequest]:
    target = rendered()
    skills = SkillSet(skills=(target,), target=target.name)
    return [
        RolloutRequest(
            case=case("bench"), skills=skills, condition="with", harness=SPEC, model=model, replicate=offset + i
        )
        for i in range(count)
    ]


async def _best_of(repeat: int, work: Callable[[int], Awaitable[object]]) -> tuple[float, float]:
    """Best wall-clock and best CPU seconds (this process, all threads) of ``repeat`` runs of ``work``."""
    best, best_cpu = float("inf"), float("inf")
    for attempt in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        await work(attempt)
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - start_cpu)
    return best, best_cpu


def _loop_request(model: ModelSpec) -> ModelRequest:
    """The model request the built-in loop sends for one of these rollouts, so the baseline pays the same."""
    target = rendered()
    staged = [StagedSkill(skill_card(target), f".agents/skills/{target.name}")]
    return ModelRequest(
        system=system_prompt(SPEC.disclosure, staged),
        messages=(Message("user", case("bench").prompt),),
        tools=TOOL_SPECS,
        max_tokens=model.max_tokens,
        temperature=model.temperature,
        seed=1,
    )


async def _raw_calls(clients: ModelClients, model: ModelSpec, count: int) -> None:
    client = clients.get(model)
    request = _loop_request(model)
    for _ in range(count):
        await client.generate(request)


async def _engine(
    clients: ModelClients, model: ModelSpec, requests: Sequence[RolloutRequest], concurrency: int, store: Path | None
) -> None:
    cache = RolloutCache(store / "cache") if store is not None else None
    journal = store / "journal.jsonl" if store is not None else None
    engine = RolloutEngine(
        create_harness(SPEC, clients=clients),
        concurrency=concurrency,
        cache=cache,
        journal=journal,
        guard=baseline_guard([rendered()]),
    )
    async with engine:
        batch = await engine.run(requests, grader=ExpectedOutputGrader())
    if not batch.all_completed or any(r.source != "run" for r in batch.records):
        raise RuntimeError("benchmark rollouts must all run and complete")


_DISK_WRITER = """
import os, sys
block = bytes(1 << 20)
while True:
    fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    for _ in range(32):
        os.write(fd, block)
    os.fsync(fd)
    os.close(fd)
"""
"""Another program keeping the disk busy: 32 MiB written and synced, over and over."""


@contextlib.contextmanager
def _busy_disk(active: bool) -> Iterator[None]:
    """While active, run :data:`_DISK_WRITER` in the temp directory, where workspaces and the journal live."""
    if not active:
        yield
        return
    with tempfile.TemporaryDirectory() as tmp:
        writer = subprocess.Popen([sys.executable, "-c", _DISK_WRITER, str(Path(tmp) / "ballast")])
        try:
            time.sleep(1)  # let the writer fill the disk's queue first
            yield
        finally:
            writer.kill()
            writer.wait()


async def overhead(rollouts: int, repeat: int, busy_disk: bool = False) -> None:
    with ScriptedServer(lambda _req: Text("42")) as server, _busy_disk(busy_disk):
        model = ModelSpec(provider="openai", model="scripted-model", base_url=server.openai_url)
        clients = ModelClients(retry=NO_RETRY)
        try:
            await _raw_calls(clients, model, 20)  # warm up: SDK import, connection pool
            raw = await _best_of(repeat, lambda _a: _raw_calls(clients, model, rollouts))
            bare = await _best_of(
                repeat, lambda a: _engine(clients, model, _requests(model, rollouts, a * rollouts), 1, None)
            )
            with tempfile.TemporaryDirectory() as tmp:
                stored = await _best_of(
                    repeat,
                    lambda a: _engine(
                        clients, model, _requests(model, rollouts, (repeat + a) * rollouts), 1, Path(tmp) / str(a)
                    ),
                )
        finally:
            await clients.aclose()
    disk = ", disk kept busy by another writer" if busy_disk else ""
    print(f"overhead, {rollouts} rollouts, serial, instant server{disk} (best of {repeat}):")
    print(f"  raw model calls        {raw[0]:7.3f} s  {1000 * raw[0] / rollouts:6.2f} ms/call  cpu {raw[1]:7.3f} s")
    for label, (seconds, cpu) in (("engine", bare), ("engine+cache+journal", stored)):
        extra = 1000 * (seconds - raw[0]) / rollouts
        extra_cpu = 1000 * (cpu - raw[1]) / rollouts
        print(
            f"  {label:<22} {seconds:7.3f} s  {1000 * seconds / rollouts:6.2f} ms/rollout  overhead {extra:5.2f} ms"
            f"  cpu overhead {extra_cpu:5.2f} ms"
        )


async def speedup(batch: int, delay: float, limits: Sequence[int], repeat: int) -> None:
    with ScriptedServer(lambda _req: SlowStream(Text("42"), delay_s=delay)) as server:
        model = ModelSpec(provider="openai", model="scripted-model", base_url=server.openai_url)
        clients = ModelClients(retry=NO_RETRY, limiter=ConcurrencyLimiter(max(limits)))
        try:
            await _raw_calls(clients, model, 2)
            timings: dict[int, float] = {}
            for index, limit in enumerate(limits):

                def at_limit(attempt: int, limit: int = limit, index: int = index) -> Awaitable[None]:
                    fresh = _requests(model, batch, (index * repeat + attempt) * batch)  # no cache hits
                    return _engine(clients, model, fresh, limit, None)

                timings[limit] = (await _best_of(repeat, at_limit))[0]
        finally:
            await clients.aclose()
    serial = timings[limits[0]]
    print(f"speed-up, {batch} rollouts, server delay {delay * 1000:.0f} ms (best of {repeat}):")
    for limit, seconds in timings.items():
        print(f"  concurrency {limit:>3}  {seconds:7.3f} s  speed-up {serial / seconds:5.2f}x  (ideal {limit}x)")


async def parts(repeat: int) -> None:
    """Each piece alone: what a rollout pays for redaction, its workspace, its capture, grading, its journal line."""
    with ScriptedServer(lambda _req: Text("42")) as server:
        model = ModelSpec(provider="openai", model="scripted-model", base_url=server.openai_url)
        clients = ModelClients(retry=NO_RETRY)
        harness = create_harness(SPEC, clients=clients)
        try:
            async with RolloutEngine(harness) as engine:
                batch = await engine.run(_requests(model, 1))
        finally:
            await clients.aclose()
    result = batch.records[0].result
    request = batch.records[0].request
    trajectory = result.trajectory

    def stage() -> None:
        with stage_workspace(request, harness):
            pass

    grader = ExpectedOutputGrader()
    graded = GradingInput(request, result)
    guard = baseline_guard([rendered()])
    grading = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(1000):
            await grade_rollout(grader, graded)
        grading = min(grading, (time.perf_counter() - start) / 1000)

    with tempfile.TemporaryDirectory() as tmp, stage_workspace(request, harness, Path(tmp)) as workspace:
        journal = Journal(Path(tmp) / "journal.jsonl")
        journal.open()
        pieces: dict[str, tuple[Callable[[], object], int]] = {
            f"redact a finished trajectory ({len(json.dumps(trajectory)) / 1024:.1f} KB)": (
                lambda: redact_obj(trajectory),
                500,
            ),
            "stage and remove a workspace": (stage, 100),
            "capture a workspace's artifacts": (lambda: capture_artifacts(workspace.root, workspace.staged), 500),
            "cache key and staging guard of a request": (
                lambda: (request.cache_key("id"), plan_checked(request, harness, guard)),
                500,
            ),
            "append and sync a journal line": (lambda: journal.append(result), 100),
        }
        print(f"parts, each alone (best of {repeat} runs):")
        for label, (work, number) in pieces.items():
            best = min(timeit.repeat(work, number=number, repeat=repeat)) / number
            print(f"  {label:<42} {1000 * best:6.3f} ms")
        print(f"  {'grade a rollout (expected_output)':<42} {1000 * grading:6.3f} ms")
        journal.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rollouts", type=int, default=400, help="rollouts in the overhead measurement")
    parser.add_argument("--batch", type=int, default=32, help="rollouts in the speed-up measurement")
    parser.add_argument("--delay", type=float, default=0.1, help="server delay per call, seconds")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--parts", action="store_true", help="also time the pieces of a rollout alone")
    parser.add_argument(
        "--busy-disk", action="store_true", help="measure the overhead while another process writes and syncs"
    )
    args = parser.parse_args(argv)
    if args.parts:
        asyncio.run(parts(args.repeat))
    asyncio.run(overhead(args.rollouts, args.repeat, args.busy_disk))
    asyncio.run(speedup(args.batch, args.delay, args.concurrency, args.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
