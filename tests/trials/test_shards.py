"""A trial split over a workflow matrix: shards as separate processes with their own caches, merged into one result.

The planted trial (3 skills, 12 cases, 3 runs, a scripted server whose answers depend on the skill
being in context and on the sampling seed) runs once unsharded and then in 1, 2 and 4 shards; the
merge must give the unsharded JSON field for field, timings aside, and refuse a missing, duplicated,
foreign or unknown part with exit 2 naming the file.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from aces_ci.cli import build_parser, main
from aces_ci.schemas import validator
from tests.engine.helpers import write_skill
from tests.servers import Reply, ScriptedRequest, ScriptedServer, Text
from tests.trials.helpers import cases_json, planted_accuracy, repo_with_skill, run_flags

Server = Callable[..., ScriptedServer]
ROOT = Path(__file__).resolve().parents[2]

SKILLS = ("alpha", "beta", "gamma")
CASES = 12
RUNS = 3
TIMINGS = frozenset({"generated_at", "wall_s"})
"""Keys whose values are measured time (with every ``latency…`` key): the only fields a merge may not reproduce."""


def _without_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if k not in TIMINGS and "latency" not in k}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def planted_repo(root: Path) -> list[Path]:
    first = repo_with_skill(root, SKILLS[0], cases=CASES)
    others = [write_skill(root / "skills", name, evals=cases_json(name, CASES)) for name in SKILLS[1:]]
    return [first, *others]


def trial_argv(skills: list[Path], server: ScriptedServer, cache: Path, *extra: str, seed: str = "7") -> list[str]:
    flags = run_flags(server, cache.parent, "--runs", str(RUNS), "--seed", seed, "--quiet")
    at = flags.index("--cache-dir")
    flags[at + 1] = str(cache)
    return ["trial", *map(str, skills), *flags, *extra]


def run_shards(argvs: list[list[str]]) -> list[subprocess.CompletedProcess[str]]:
    """Every shard as its own process, all at once, as a workflow matrix runs them."""
    env = {**os.environ, "CI": "true"}
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "aces_ci.cli", *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for argv in argvs
    ]
    done = []
    for process, argv in zip(processes, argvs, strict=True):
        out, err = process.communicate(timeout=600)
        done.append(subprocess.CompletedProcess(argv, process.returncode, out, err))
    return done


def shard_parts(skills: list[Path], server: ScriptedServer, tmp_path: Path, count: int, seed: str = "7") -> list[Path]:
    parts = [tmp_path / f"parts-{count}-{seed}" / f"part-{i}.json" for i in range(1, count + 1)]
    argvs = [
        trial_argv(
            skills,
            server,
            tmp_path / f"cache-{count}-{seed}-{i}",
            "--shard",
            f"{i}/{count}",
            "--part",
            str(part),
            seed=seed,
        )
        for i, part in enumerate(parts, start=1)
    ]
    for done in run_shards(argvs):
        assert done.returncode == 0, done.stderr
    return parts


def test_one_two_and_four_shards_merge_into_the_unsharded_result_and_bad_parts_are_refused(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(planted_accuracy(0.8, 0.4))
    skills = planted_repo(tmp_path / "repo")
    whole = tmp_path / "whole.json"
    assert main([*trial_argv(skills, server, tmp_path / "cache-whole"), "--json", str(whole)]) == 0
    expected = json.loads(whole.read_text())
    rollouts = len(SKILLS) * CASES * RUNS * 2
    assert server.calls == rollouts
    assert expected["spent"]["rollouts_run"] == rollouts

    four: list[Path] = []
    for count in (1, 2, 4):
        before = server.calls
        parts = shard_parts(skills, server, tmp_path, count)
        assert server.calls - before == rollouts, "the shards together pay for the design once, each rollout once"
        for part in parts:
            data = json.loads(part.read_text())
            assert [e.message for e in validator("trial-part").iter_errors(data)] == []
            assert {r["result"]["key"] for r in data["records"]}, "every shard holds some of the 36 (skill, case) units"
        merged = tmp_path / f"merged-{count}.json"
        assert main(["merge", *map(str, parts), "--json", str(merged)]) == 0
        result = json.loads(merged.read_text())
        assert _without_timings(result) == _without_timings(expected)
        assert result["spent"] == expected["spent"]
        four = parts

    capsys.readouterr()
    assert main(["merge", *map(str, four[:3])]) == 2, "a missing shard"
    assert "shards missing: 4/4" in capsys.readouterr().err

    assert main(["merge", *map(str, four), str(four[1])]) == 2, "a duplicated shard"
    err = capsys.readouterr().err
    assert "given twice" in err and str(four[1]) in err

    foreign = shard_parts(skills, server, tmp_path, 4, seed="8")[2]  # shard 3/4 of another trial (another seed)
    assert main(["merge", *map(str, four[:2]), str(foreign), str(four[3])]) == 2, "a foreign shard"
    err = capsys.readouterr().err
    assert str(foreign) in err and "parts must come from one trial" in err

    damaged = tmp_path / "damaged.json"
    damaged.write_text(four[0].read_text().replace('"schema_version": 1', '"schema_version": 99'))
    assert main(["merge", str(damaged), *map(str, four[1:])]) == 2
    assert str(damaged) in capsys.readouterr().err


def test_a_killed_shard_rerun_with_its_imported_cache_pays_only_its_unfinished_rollouts(
    scripted_server: Server, tmp_path: Path
) -> None:
    finished_before_kill = 7
    release = threading.Event()
    answer = planted_accuracy(0.8, 0.4)

    def script(req: ScriptedRequest) -> Reply:
        if req.index >= finished_before_kill:  # the 8th call hangs until the shard is dead
            release.wait(timeout=600)
        return answer(req)

    server = scripted_server(script)
    skills = planted_repo(tmp_path / "repo")[:2]
    journal, part = tmp_path / "shard.journal", tmp_path / "part.json"
    shard = ["--shard", "1/2", "--part", str(part), "--concurrency", "1"]
    argv = trial_argv(skills, server, tmp_path / "cache-killed", *shard, "--journal", str(journal))
    process = subprocess.Popen([sys.executable, "-m", "aces_ci.cli", *argv], env={**os.environ, "CI": "true"})
    try:
        deadline = time.monotonic() + 600  # a hang guard only: the test waits for counts, not for time
        while server.calls <= finished_before_kill or _lines(journal) < finished_before_kill:
            assert process.poll() is None and time.monotonic() < deadline, "the shard ended before it was killed"
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
    finally:
        release.set()
        if process.poll() is None:
            process.kill()
    assert not part.exists()

    archive = tmp_path / "shard-1.jsonl.gz"
    export = ["cache", "export", "--cache-dir", str(tmp_path / "cache-killed"), "--journal", str(journal)]
    assert main([*export, "--out", str(archive)]) == 0
    fresh = tmp_path / "cache-restored"
    assert main(["cache", "import", str(archive), "--cache-dir", str(fresh)]) == 0
    assert main(["cache", "import", str(archive), "--cache-dir", str(fresh)]) == 0, "importing twice is a union"

    before = server.calls
    rerun = trial_argv(skills, server, fresh, *shard)
    (done,) = run_shards([rerun])
    assert done.returncode == 0, done.stderr
    data = json.loads(part.read_text())
    total = len(data["records"])
    assert server.calls - before == total - finished_before_kill
    assert (data["spent"]["rollouts_run"], data["spent"]["rollouts_reused"]) == (
        total - finished_before_kill,
        finished_before_kill,
    )


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_an_exported_cache_holds_no_secret_and_a_damaged_archive_is_an_input_error(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token = "gh" + "p_" + "Zq8xKd93LmZp0qW7rT5vB2nC4yH6jF1gA9sD"
    server = scripted_server(lambda req: Text(f"42, and the deploy token is {token}"))
    skill = repo_with_skill(tmp_path / "repo", "alpha", cases=2)
    argv = trial_argv([skill], server, tmp_path / "cache", "--runs", "1")
    assert main(argv) == 0
    archive = tmp_path / "cache.jsonl.gz"
    assert main(["cache", "export", "--cache-dir", str(tmp_path / "cache"), "--out", str(archive)]) == 0
    text = gzip.decompress(archive.read_bytes()).decode()
    assert len(text.splitlines()) == 4 and token not in text and "[REDACTED:github-token]" in text

    damaged = tmp_path / "damaged.jsonl.gz"
    damaged.write_bytes(archive.read_bytes()[:40])
    capsys.readouterr()
    assert main(["cache", "import", str(damaged), "--cache-dir", str(tmp_path / "other")]) == 2
    assert str(damaged) in capsys.readouterr().err


def test_the_release_matrix_workflow_commands_parse_and_agree_on_shard_cache_and_journal() -> None:
    """Every aces-ci command of the example parses, and the shard, its cache export and import name the same files."""
    workflow = yaml.safe_load((ROOT / "examples" / "workflows" / "skill-release-matrix.yml").read_text())
    shards = workflow["jobs"]["shard"]["strategy"]["matrix"]["shard"]
    assert shards == list(range(1, int(workflow["env"]["SHARDS"]) + 1))
    env = {"MODEL": workflow["env"]["MODEL"], "SHARDS": workflow["env"]["SHARDS"], "SHARD": "2"}
    parsed = {}
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            line = step.get("run", "").split("then ")[-1].split(";")[0]  # `if …; then aces-ci …; fi`
            if "aces-ci " not in line:
                continue
            words = [re.sub(r"\$(\w+)", lambda m: env[m.group(1)], word) for word in shlex.split(line)]
            args = build_parser().parse_args(words[words.index("aces-ci") + 1 :])
            parsed[args.verb if args.verb != "cache" else f"cache {args.action}"] = args
    assert set(parsed) == {"trial", "merge", "cache import", "cache export"}
    trial = parsed["trial"]
    assert str(trial.shard) == "2/4" and trial.part == Path("part-2.json") and not trial.sequential
    assert trial.journal == parsed["cache export"].journal, "the export carries what a killed shard finished"
    assert trial.cache_dir == parsed["cache export"].cache_dir == parsed["cache import"].cache_dir
    assert parsed["merge"].results == [Path("part-*.json")] and parsed["merge"].junit is not None
