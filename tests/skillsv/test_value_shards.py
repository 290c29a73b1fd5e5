"""``aces-ci value --shard I/N`` in separate processes with separate caches, and ``aces-ci merge`` of their parts.

The planted skill is valued by the noisy planted oracle through the real command line; every shard is
its own process with its own cache directory, as matrix jobs are. The merged value JSON must be the
unsharded run's, field for field; a part of another valuation, a shard missing or given twice must be
refused naming the file; a shard killed and run again must pay only the scores it had not stored.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from aces_ci.cli import main
from aces_ci.schemas import validator
from tests.skillsv.helpers import PLANTED_BODY, write_skill

ORACLE = "python:tests.skillsv.planted_oracle:noisy"
REPO = Path(__file__).parents[2]


def _planted(tmp_path: Path, cases: int = 12) -> tuple[Path, Path]:
    skill = write_skill(tmp_path, PLANTED_BODY, {"scripts/tool.sh": "#!/bin/sh\necho TOTALS\n"})
    evals = tmp_path / "cases.json"
    evals.write_text(json.dumps({"evals": [{"id": f"c{i}", "prompt": f"question {i}"} for i in range(cases)]}))
    return skill, evals


def _env(log: Path | None = None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if log is not None:
        env["PLANTED_ORACLE_LOG"] = str(log)
    return env


def _command(skill: Path, evals: Path, cache: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "aces_ci.cli", "value", str(skill), "--evals", str(evals), "--oracle", ORACLE,
            "-K", "8", "--cache-dir", str(cache), *extra]  # fmt: skip


def _run(command: list[str], log: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, check=False, env=_env(log), capture_output=True, text=True, timeout=600)


def _shards(tmp_path: Path, skill: Path, evals: Path, count: int, *extra: str) -> list[Path]:
    """Every shard of ``count`` run as its own process with its own cache; their part files."""
    parts = []
    for index in range(1, count + 1):
        part = tmp_path / f"n{count}" / f"part-{index}.json"
        done = _run(_command(skill, evals, tmp_path / f"n{count}" / f"cache-{index}", "--shard", f"{index}/{count}",
                             "--json", str(part), *extra))  # fmt: skip
        assert done.returncode == 0, done.stderr
        parts.append(part)
    return parts


def _merge(tmp_path: Path, parts: list[Path], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["merge", *map(str, parts), "--json", str(tmp_path / "merged.json")])
    return code, capsys.readouterr().err


def _json(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_merged_shards_give_the_unsharded_valuation_field_for_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = _planted(tmp_path)
    whole = tmp_path / "whole.json"
    done = _run(_command(skill, evals, tmp_path / "whole-cache", "--json", str(whole)))
    assert done.returncode == 0, done.stderr
    unsharded = _json(whole)
    assert unsharded["measured"] and unsharded["chains"]["completed"] == 8
    for count in (1, 2, 4):
        parts = _shards(tmp_path, skill, evals, count)
        for part in parts:
            errors = [e.message for e in validator("skillsv-value-part").iter_errors(_json(part))]
            assert errors == []
        paid = [sum(a["rollouts"] for r in _json(p)["records"] for a in r["attempts"]) for p in parts]
        # every score of the design is paid by exactly one shard, and the shards share the work evenly
        assert sum(paid) == unsharded["rollouts"]["spent"]
        assert max(paid) - min(paid) <= max(paid) // 4, paid
        code, err = _merge(tmp_path, parts, capsys)
        assert code == 0, err
        merged = _json(tmp_path / "merged.json")
        assert merged == unsharded, count  # the value report carries no timings: every field must agree


def test_an_exact_valuation_shards_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    skill, evals = _planted(tmp_path, cases=3)
    whole = tmp_path / "whole.json"
    done = _run(_command(skill, evals, tmp_path / "whole-cache", "--exact", "--json", str(whole)))
    assert done.returncode == 0, done.stderr
    code, err = _merge(tmp_path, _shards(tmp_path, skill, evals, 3, "--exact"), capsys)
    assert code == 0, err
    assert _json(tmp_path / "merged.json") == _json(whole)


def _edited(part: Path, target: Path, edit: Any) -> Path:
    data = _json(part)
    edit(data)
    target.write_text(json.dumps(data))
    return target


def test_a_missing_duplicated_or_foreign_part_is_refused_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = _planted(tmp_path)
    one, two = _shards(tmp_path, skill, evals, 2)

    code, err = _merge(tmp_path, [one], capsys)
    assert code == 2 and "shards missing: 2/2" in err and str(one) in err
    code, err = _merge(tmp_path, [one, one, two], capsys)
    assert code == 2 and "shard 1/2 given twice" in err

    # another seed: a real shard of another valuation
    seeded = tmp_path / "seed-1.json"
    done = _run(_command(skill, evals, tmp_path / "seed-cache", "--seed", "1", "--shard", "2/2", "--json", str(seeded)))
    assert done.returncode == 0, done.stderr
    code, err = _merge(tmp_path, [one, seeded], capsys)
    assert code == 2 and str(seeded) in err and "'seed' differs" in err

    # another model, another skill: the same part claiming another identity
    def model(data: dict[str, Any]) -> None:
        data["identity"]["model"] = "anthropic/another-model"

    def skill_digest(data: dict[str, Any]) -> None:
        data["identity"]["skill_digest"] = "0" * 64

    for name, edit, field in (("model", model, "'model' differs"), ("skill", skill_digest, "'skill_digest' differs")):
        foreign = _edited(two, tmp_path / f"{name}.json", edit)
        code, err = _merge(tmp_path, [one, foreign], capsys)
        assert code == 2 and str(foreign) in err and field in err, err

    # a part that lost a score it owes, or holds one of the other shard's, names itself
    def drop(data: dict[str, Any]) -> None:
        data["records"].pop()

    short = _edited(two, tmp_path / "short.json", drop)
    code, err = _merge(tmp_path, [one, short], capsys)
    assert code == 2 and str(short) in err and "lacks 1 of its" in err

    stolen = _json(one)["records"][0]

    def steal(data: dict[str, Any]) -> None:
        data["records"].append(stolen)

    thief = _edited(two, tmp_path / "thief.json", steal)
    code, err = _merge(tmp_path, [one, thief], capsys)
    assert code == 2 and str(thief) in err and f"is also in {one}" in err

    def give_up(data: dict[str, Any]) -> None:
        data["records"].pop(0)

    robbed = _edited(one, tmp_path / "robbed.json", give_up)
    code, err = _merge(tmp_path, [robbed, thief], capsys)
    assert code == 2 and str(thief) in err and "belongs to shard 1/2, not 2/2" in err

    # the skill changed in the checkout after the shards ran: the merge cannot replay it
    (skill / "SKILL.md").write_text((skill / "SKILL.md").read_text() + "\nOne more line.\n")
    code, err = _merge(tmp_path, [one, two], capsys)
    assert code == 2 and "not the one the shards valued" in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--tolerance", "0.05"], "truncation (--tolerance)"),
        (["--holdout", "0.5"], "the pruning test (--holdout)"),
        (["--budget-usd", "5"], "--budget-usd"),
    ],
)
def test_settings_whose_scores_depend_on_scores_are_refused_before_anything_is_paid(
    tmp_path: Path, extra: list[str], message: str
) -> None:
    skill, evals = _planted(tmp_path)
    log = tmp_path / "calls.log"
    done = _run(_command(skill, evals, tmp_path / "cache", "--shard", "1/2", "--json", str(tmp_path / "p.json"),
                         *extra), log)  # fmt: skip
    assert done.returncode == 2 and message in done.stderr and "--shard" in done.stderr
    assert not log.exists()


def test_adaptive_allocation_is_refused_with_a_shard(tmp_path: Path) -> None:
    skill, evals = _planted(tmp_path)
    (tmp_path / "aces.yml").write_text("value:\n  adaptive: true\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    done = _run(_command(skill, evals, tmp_path / "cache", "--max-rollouts", "600", "--shard", "1/2",
                         "--json", str(tmp_path / "p.json"), "--config", str(tmp_path / "aces.yml")))  # fmt: skip
    assert done.returncode == 2 and "value.adaptive" in done.stderr, done.stderr


def test_a_shard_writes_its_part_to_json_only(tmp_path: Path) -> None:
    skill, evals = _planted(tmp_path)
    done = _run(_command(skill, evals, tmp_path / "cache", "--shard", "1/2"))
    assert done.returncode == 2 and "--json FILE" in done.stderr


def test_a_shard_whose_oracle_failed_keeps_its_scores_and_the_merge_stops_where_it_did(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = _planted(tmp_path)
    one, _ = _shards(tmp_path, skill, evals, 2)
    failed = tmp_path / "failed-2.json"
    command = _command(skill, evals, tmp_path / "failed-cache", "--shard", "2/2", "--json", str(failed))
    env = {**_env(tmp_path / "calls.log"), "PLANTED_ORACLE_FAIL_AFTER": "100"}
    done = subprocess.run(command, check=False, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 3, done.stderr
    part = _json(failed)
    assert part["stopped_by"] == "oracle_error" and "lost its database connection" in part["error"]
    assert 0 < len(part["records"]) < part["owned"]
    code, _ = _merge(tmp_path, [one, failed], capsys)
    merged = _json(tmp_path / "merged.json")
    assert code == 3 and merged["stopped_by"] == "oracle_error" and "lost its database connection" in merged["error"]


def test_a_killed_shard_run_again_pays_only_the_scores_it_had_not_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = _planted(tmp_path)
    one, two = _shards(tmp_path, skill, evals, 2)
    owned = _json(two)["owned"]
    log = tmp_path / "calls.log"
    cache = tmp_path / "killed-cache"
    part = tmp_path / "resumed-2.json"
    process = subprocess.Popen(_command(skill, evals, cache, "--shard", "2/2", "--json", str(part)), env=_env(log),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + 300  # a guard against a hang only: the kill point is counted in scores
    while (not log.exists() or len(log.read_text().splitlines()) < owned // 2) and time.monotonic() < deadline:
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    assert not part.exists()
    paid_before = len(log.read_text().splitlines())
    assert 0 < paid_before < owned
    stored = [line for line in (cache / "skillsv" / "scores.jsonl").read_text().splitlines() if line.endswith("}")]
    log.unlink()
    done = _run(_command(skill, evals, cache, "--shard", "2/2", "--json", str(part)), log)
    assert done.returncode == 0, done.stderr
    # the run again paid exactly the scores the killed one had not stored, none twice
    assert len(log.read_text().splitlines()) == owned - len(stored)
    resumed = _json(part)
    assert sum(a["rollouts"] for r in resumed["records"] for a in r["attempts"]) == owned - len(stored)
    code, err = _merge(tmp_path, [one, part], capsys)
    assert code == 0, err
    _merge(tmp_path, [one, two], capsys)
    merged_fresh = _json(tmp_path / "merged.json")
    main(["merge", str(one), str(part), "--json", str(tmp_path / "merged-resumed.json")])
    merged_resumed = _json(tmp_path / "merged-resumed.json")
    assert merged_resumed["units"] == merged_fresh["units"]
    # what the resumed shard took from its store is counted as served, not paid again
    assert merged_resumed["rollouts"]["served_from_cache"] == len(stored)
