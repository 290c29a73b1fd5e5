"""Wall time of a trial in one process against the same trial in N shards running at once (issue 22).

The planted trial of ``tests/trials/test_shards.py`` (``--skills`` skills × ``--cases`` cases ×
``--runs`` runs × 2 arms) against the scripted OpenAI-compatible server of ``tests/servers``, which
waits ``--delay`` seconds before every reply: a stand-in for a model API whose latency, not our CPU,
sets the pace. Every process runs at the same ``--concurrency``; nothing is cached. One process runs
the whole trial; then ``--shards`` processes (``aces-ci trial --shard i/N --part``) start together, as
the jobs of a workflow matrix do, and ``aces-ci merge`` replays the trial over their parts. The
benchmark checks that the merged verdicts equal the single process's and prints both wall times and
their ratio, measured in this one run.

Usage::

    .venv/bin/python benchmarks/shard_speedup.py [--shards 4] [--delay 0.25] [--concurrency 4]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.engine.helpers import write_skill
from tests.servers import Reply, ScriptedRequest, ScriptedServer, model_flags
from tests.trials.helpers import cases_json, planted_accuracy


def _cli(argv: list[str]) -> list[str]:
    return [sys.executable, "-m", "aces_ci.cli", *argv]


def _run_all(commands: list[list[str]]) -> float:
    """Start every command at once and wait for all; the wall time from the first start to the last exit."""
    env = {**os.environ, "CI": "true"}
    started = time.perf_counter()
    processes = [subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL) for command in commands]
    codes = [process.wait() for process in processes]
    elapsed = time.perf_counter() - started
    if any(code != 0 for code in codes):
        raise SystemExit(f"a process failed: exit codes {codes}")
    return elapsed


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--skills", type=int, default=3)
    parser.add_argument("--cases", type=int, default=12)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--delay", type=float, default=0.25, help="seconds the server waits before each reply")
    parser.add_argument("--concurrency", type=int, default=4, help="rollouts in flight per process")
    args = parser.parse_args()
    answer = planted_accuracy(0.8, 0.4)

    def slow(request: ScriptedRequest) -> Reply:
        time.sleep(args.delay)
        return answer(request)

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "repo" / ".git").mkdir(parents=True)
        names = [f"skill-{i}" for i in range(args.skills)]
        skills = [str(write_skill(root / "repo" / "skills", n, evals=cases_json(n, args.cases))) for n in names]
        server = ScriptedServer(slow).start()
        try:
            common = [
                *model_flags(server),
                "--disclosure",
                "preload",
                "--no-cache",
                "--runs",
                str(args.runs),
                "--concurrency",
                str(args.concurrency),
                "--quiet",
            ]
            one = _run_all([_cli(["trial", *skills, *common, "--json", str(root / "one.json")])])
            parts = [root / f"part-{i}.json" for i in range(1, args.shards + 1)]
            sharded = _run_all(
                [
                    _cli(["trial", *skills, *common, "--shard", f"{i}/{args.shards}", "--part", str(part)])
                    for i, part in enumerate(parts, start=1)
                ]
            )
            merge = _run_all([_cli(["merge", *map(str, parts), "--json", str(root / "merged.json")])])
            calls = server.calls
        finally:
            server.stop()
        whole = json.loads((root / "one.json").read_text())
        merged = json.loads((root / "merged.json").read_text())
    if [s["lift"] for s in whole["skills"]] != [s["lift"] for s in merged["skills"]]:
        raise SystemExit("the merged lifts differ from the single process's")
    rollouts = args.skills * args.cases * args.runs * 2
    print(
        f"{args.skills} skills x {args.cases} cases x {args.runs} runs x 2 arms = {rollouts} rollouts per trial "
        f"({calls} server calls in all), {args.delay:g} s per call, concurrency {args.concurrency} per process"
    )
    print(f"one process:            {one:6.1f} s")
    print(f"{args.shards} shards at once:      {sharded:6.1f} s  (merge {merge:.1f} s)")
    print(f"speed-up, shards only:  x{one / sharded:.2f}")
    print(f"speed-up, with merge:   x{one / (sharded + merge):.2f}")


if __name__ == "__main__":
    main_benchmark()
