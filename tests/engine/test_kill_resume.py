"""Kill a 200-rollout batch half-way with SIGKILL, restart it, and count what the restart pays for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.engine.helpers import complete_records, kill_once_journaled, planted_skill, settled_calls, write_skill
from tests.servers import ScriptedServer, model_flags

CASES, RUNS = 10, 10
TOTAL = CASES * RUNS * 2


def test_a_killed_batch_resumes_without_paying_twice(
    scripted_server: Callable[..., ScriptedServer], tmp_path: Path
) -> None:
    evals = {
        "skill_name": "marker",
        "evals": [
            {"id": f"q{i}", "prompt": f"Question {i}: the secret project number?", "expected_output": "42"}
            for i in range(CASES)
        ],
    }
    skill_dir = write_skill(tmp_path / "skills", "marker", evals=json.dumps(evals))
    server = scripted_server(planted_skill)
    journal = tmp_path / "journal.jsonl"
    command = [
        sys.executable,
        "-m",
        "aces_ci.cli",
        "rollout",
        str(skill_dir),
        "--all-cases",
        "--arm",
        "both",
        "--runs",
        str(RUNS),
        *model_flags(server),
        "--disclosure",
        "preload",
        "--journal",
        str(journal),
        "--no-cache",
        "--concurrency",
        "4",
    ]
    env = {**os.environ, "CI": "true", "TMPDIR": str(tmp_path), "OPENAI_API_KEY": ""}

    first = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finished = kill_once_journaled(first, journal, TOTAL // 2)
    paid_before_kill = settled_calls(server)
    assert TOTAL // 2 <= len(finished) < TOTAL
    assert paid_before_kill >= len(finished)  # rollouts in flight at the kill were paid but not journaled

    second = subprocess.run(command, check=False, env=env, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr
    assert server.calls - paid_before_kill == TOTAL - len(finished)
    keys = {record["key"] for record in complete_records(journal)}
    assert len(keys) == TOTAL
    assert "arm with: 100/100 scored rollouts succeeded" in second.stdout
    assert "arm without: 0/100 scored rollouts succeeded" in second.stdout
    assert second.stdout.count("resumed") == len(finished)
