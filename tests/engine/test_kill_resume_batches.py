"""Kill a command half-way through the second of its three engine batches, restart it, count what it pays for.

The journal is the engine's, not a batch's: the restart resumes the first batch whole and the
second in part from it, and runs only what no earlier process finished.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.engine.helpers import complete_records, kill_once_journaled, planted_skill, settled_calls
from tests.engine.three_batches import BATCHES, PER_BATCH
from tests.servers import ScriptedServer

TOTAL = BATCHES * PER_BATCH


def test_a_command_killed_between_batches_resumes_every_batch_from_one_journal(
    scripted_server: Callable[..., ScriptedServer], tmp_path: Path
) -> None:
    server = scripted_server(planted_skill)
    journal = tmp_path / "journal.jsonl"
    command = [sys.executable, "-m", "tests.engine.three_batches", server.openai_url, str(journal)]
    env = {**os.environ, "TMPDIR": str(tmp_path), "OPENAI_API_KEY": ""}
    root = Path(__file__).resolve().parents[2]

    first = subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finished = kill_once_journaled(first, journal, PER_BATCH + PER_BATCH // 2)
    paid_before_kill = settled_calls(server)
    assert PER_BATCH < len(finished) < 2 * PER_BATCH, "the kill did not land in the second batch"
    assert {record["batch"] for record in finished[:PER_BATCH]} == {"round-0"}

    second = subprocess.run(command, cwd=root, check=False, env=env, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr
    assert server.calls - paid_before_kill == TOTAL - len(finished)
    reports = [json.loads(line) for line in second.stdout.splitlines()]
    resumed_in_second = len(finished) - PER_BATCH
    assert [report["sources"] for report in reports] == [
        {"journal": PER_BATCH},
        {"journal": resumed_in_second, "run": PER_BATCH - resumed_in_second},
        {"run": PER_BATCH},
    ]
    assert all(report["scores"] == {"1.0": PER_BATCH // 2, "0.0": PER_BATCH // 2} for report in reports)
    assert len({record["key"] for record in complete_records(journal)}) == TOTAL
