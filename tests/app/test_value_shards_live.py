"""``aces-ci value --shard`` on the live agent: shard processes against a scripted model server, then ``merge``.

Each shard is its own process with its own cache (score store, rollout cache, journal), as matrix jobs
are; the model is the planted Acme game of :mod:`tests.skillsv.acme`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from aces_ci.cli import main
from tests.engine.helpers import kill_once_journaled, settled_calls
from tests.servers import ScriptedServer
from tests.skillsv.acme import acme_skill, planted_model, value_args

COMMON = ("-K", "8", "--window", "6", "--concurrency", "2")


@pytest.fixture
def server(scripted_server: Callable[..., ScriptedServer], monkeypatch: pytest.MonkeyPatch) -> ScriptedServer:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    return scripted_server(planted_model)


def _value(skill: Path, server: ScriptedServer, where: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "aces_ci.cli", *value_args(skill, server, where, *COMMON, *extra)]


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "CI": "true", "TMPDIR": str(tmp_path)}


def _json(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _scores(part: dict[str, Any]) -> dict[tuple[str, tuple[str, ...], str], float]:
    return {(r["operator"], tuple(r["members"]), r["case"]): r["attempts"][-1]["score"] for r in part["records"]}


def test_live_shards_merge_into_the_unsharded_valuation_and_pay_each_rollout_once(
    server: ScriptedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = acme_skill(tmp_path, cases=12)
    env = _env(tmp_path)
    whole = tmp_path / "whole.json"
    subprocess.run([*_value(skill, server, tmp_path / "whole"), "--json", str(whole)], check=True, env=env,
                   capture_output=True, timeout=300)  # fmt: skip
    unsharded_calls = server.calls
    parts = []
    for index in (1, 2):
        part = tmp_path / f"part-{index}.json"
        command = [*_value(skill, server, tmp_path / f"shard-{index}"), "--shard", f"{index}/2", "--json", str(part)]
        done = subprocess.run(command, check=False, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        parts.append(part)
    assert server.calls - unsharded_calls == unsharded_calls  # the shards together called the model as often
    assert main(["merge", *map(str, parts), "--json", str(tmp_path / "merged.json")]) == 0, capsys.readouterr().err
    merged, unsharded = _json(tmp_path / "merged.json"), _json(whole)
    assert merged["oracle"].startswith("live:openai/scripted-model:builtin:accuracy:")
    assert merged == unsharded


def test_a_killed_live_shard_run_again_pays_only_its_unfinished_rollouts(
    server: ScriptedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = acme_skill(tmp_path, cases=12)
    env = _env(tmp_path)
    # shard 2/2 once, uninterrupted, elsewhere: how many rollouts its share needs
    reference = tmp_path / "reference.json"
    subprocess.run([*_value(skill, server, tmp_path / "ref"), "--shard", "2/2", "--json", str(reference)], check=True,
                   env=env, capture_output=True, timeout=300)  # fmt: skip
    total = server.calls
    command = [*_value(skill, server, tmp_path / "killed"), "--shard", "2/2", "--json", str(tmp_path / "part-2.json")]
    journal = tmp_path / "killed" / "cache" / "skillsv" / "journal.jsonl"
    first = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finished = kill_once_journaled(first, journal, total // 2)
    paid_before_kill = settled_calls(server) - total
    assert total // 2 <= len(finished) < total
    second = subprocess.run(command, check=False, env=env, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr
    assert server.calls - total - paid_before_kill == total - len(finished)  # only what the kill lost is re-run
    resumed = _json(tmp_path / "part-2.json")
    assert resumed["sessions"]["earlier"] == len(finished)
    assert _scores(resumed) == _scores(_json(reference))  # the same scores, whichever session paid them
    one = tmp_path / "part-1.json"
    subprocess.run([*_value(skill, server, tmp_path / "one"), "--shard", "1/2", "--json", str(one)], check=True,
                   env=env, capture_output=True, timeout=300)  # fmt: skip
    assert main(["merge", str(one), str(reference), "--json", str(tmp_path / "a.json")]) == 0
    assert main(["merge", str(one), str(tmp_path / "part-2.json"), "--json", str(tmp_path / "b.json")]) == 0
    a, b = _json(tmp_path / "a.json"), _json(tmp_path / "b.json")
    assert a["units"] == b["units"]
    assert b["rollouts"]["earlier_sessions"] == len(finished)
    capsys.readouterr()
