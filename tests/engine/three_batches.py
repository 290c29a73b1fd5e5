"""A command that runs three batches on one engine with one journal: what test_kill_resume_batches kills.

Usage: ``python -m tests.engine.three_batches SERVER_URL JOURNAL``. Each batch is both conditions
of :data:`CASES` cases; after each batch one JSON line goes to stdout: the batch label and how
many of its rollouts were run now, resumed from the journal or reused from this session.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter
from pathlib import Path

from aces_ci.agents import HarnessSpec, baseline_guard, create_harness
from aces_ci.engine import RolloutEngine, paired_schedule
from aces_ci.grading import EXPECTED_OUTPUT, ExpectedOutputGrader
from tests.engine.helpers import case, fast_clients, openai_model, rendered, request

CASES = 20
BATCHES = 3
PER_BATCH = 2 * CASES
SPEC = HarnessSpec(name="builtin", disclosure="preload", max_turns=3, timeout_s=60)


async def main(server_url: str, journal: Path) -> None:
    target = rendered()
    clients = fast_clients(timeout_s=30)
    try:
        engine = RolloutEngine(
            create_harness(SPEC, clients=clients),
            concurrency=4,
            journal=journal,
            schedule=paired_schedule(("with", "without")),
            guard=baseline_guard([target]),
        )
        async with engine:
            for number in range(BATCHES):
                requests = [
                    request(
                        condition,
                        target=target,
                        harness=SPEC,
                        model=openai_model(server_url),
                        eval_case=case(f"b{number}-q{i}", prompt=f"Batch {number} question {i}: the number?"),
                    )
                    for i in range(CASES)
                    for condition in ("with", "without")
                ]
                batch = await engine.run(requests, grader=ExpectedOutputGrader(), batch=f"round-{number}")
                sources = Counter(record.source for record in batch.records)
                scores = Counter(str(record.value(EXPECTED_OUTPUT)) for record in batch.records)
                print(json.dumps({"batch": batch.batch_id, "sources": sources, "scores": scores}), flush=True)
    finally:
        await clients.aclose()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], Path(sys.argv[2])))
