"""The partition of a sharded trial, and what a shard and a merge refuse before anything is paid for."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from aces_ci.cli import main
from aces_ci.commands.merge import TRIAL_PART_FORMAT
from aces_ci.errors import InputError
from aces_ci.scan import Shard
from aces_ci.trials import PART_FORMAT, Spent, TrialPart, check_parts, partition, unit_of
from tests.engine.helpers import case, rendered, request
from tests.trials.helpers import repo_with_skill


def _design() -> list:
    """Three skills of very different sizes, 5 cases each, 2 runs, both arms: 60 requests in 15 units."""
    skills = [rendered(f"skill-{i}", body="word " * (200 * (i + 1) ** 2)) for i in range(3)]
    return [
        request(condition, target=skill, eval_case=case(f"c{c}", prompt=f"Question {c}" + "?" * c), replicate=r)
        for skill in skills
        for c in range(5)
        for r in range(2)
        for condition in ("with", "without")
    ]


@pytest.mark.parametrize("count", [1, 2, 4, 7])
def test_every_case_lands_whole_in_exactly_one_shard_the_same_in_any_order(count: int) -> None:
    requests = _design()
    shards = partition(requests, count)
    assert len(shards) == count
    units = {unit_of(r) for r in requests}
    assert sorted(u for shard in shards for u in shard) == sorted(units), "each unit once, none lost"
    shuffled = list(requests)
    random.Random(count).shuffle(shuffled)
    assert partition(shuffled, count) == shards, "the same partition on every machine, whatever the order"


def test_the_shards_are_balanced_by_the_staged_skill_tokens_not_by_the_number_of_cases() -> None:
    requests = _design()
    cost: dict = {}
    for r in requests:
        staged = sum(len(d) for skill in r.skills.skills for d in skill.files.values())
        cost[unit_of(r)] = cost.get(unit_of(r), 0) + staged
    shards = partition(requests, 3)
    loads = [sum(cost[u] for u in shard) for shard in shards]
    assert max(loads) - min(loads) <= max(cost.values()), "greedy balance: within one unit of each other"
    by_count = [sorted(cost)[i::3] for i in range(3)]  # round-robin by name, what a count-only split would do
    assert max(loads) < max(sum(cost[u] for u in shard) for shard in by_count)
    assert len({len(shard) for shard in shards}) > 1, "the big skill's units are spread, the small ones pile up"


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--shard", "1/2", "--part", "p.json", "--sequential"], "--sequential cannot be sharded"),
        (["--shard", "1/2"], "--shard I/N and --part FILE go together"),
        (["--shard", "1/2", "--part", "p.json", "--json", "t.json"], "--json is not for a shard"),
        (["--shard", "3/2", "--part", "p.json"], "shard must be i/n"),
    ],
)
def test_a_shard_refuses_what_it_cannot_do_before_any_rollout(
    flags: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = repo_with_skill(tmp_path / "repo", cases=2)
    argv = ["trial", str(skill), "--provider", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"]
    assert main([*argv, "--cache-dir", str(tmp_path / "cache"), *flags]) == 2
    assert says in capsys.readouterr().err
    assert not (tmp_path / "p.json").exists()


def test_a_merge_of_a_part_with_a_scan_result_or_a_broken_part_names_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    part = tmp_path / "part-1.json"
    part.write_text(json.dumps({"format": "aces-ci-trial-part", "schema_version": 1, "shard": {"index": 1}}))
    assert main(["merge", str(part)]) == 2
    err = capsys.readouterr().err
    assert f"{part}: not a readable trial part" in err
    scan = tmp_path / "scan.json"
    scan.write_text(json.dumps({"tool_version": "0.1.0", "skills": []}))
    assert main(["merge", str(scan), str(part)]) == 2, "a scan result among trial parts"
    assert f"{scan}: not a readable trial part: not an aces-ci trial part" in capsys.readouterr().err


def test_the_merge_recognises_a_part_by_the_format_the_trials_write() -> None:
    assert TRIAL_PART_FORMAT.decode() == PART_FORMAT


def _part(index: int, count: int = 2, **changes: object) -> TrialPart:
    fields: dict = {
        "shard": Shard(index, count),
        "identity": {"model": "m", "design": "d" * 64},
        "invocation": ("skills/a", "--shard", f"{index}/{count}", "--part", "p.json"),
        "grader": ("aces-metrics", ("accuracy",)),
        "units": ((f"skill-{index}", "c1"),),
        "records": (),
        "spent": Spent(0, 0, 0, 0, None),
    }
    fields.update(changes)
    return TrialPart(**fields)


@pytest.mark.parametrize(
    ("second", "says"),
    [
        (_part(2, grader=("byog", ("accuracy", "score"))), "parts must come from one trial"),
        (_part(2, identity={"model": "other", "design": "d" * 64}), "'model' differs"),
        (_part(2, not_run=3, stopped_by="max_usd"), "stopped (max_usd) with 3 rollout(s) of its units not run"),
        (_part(2, units=(("skill-1", "c1"),)), "skill skill-1 case c1 is also in"),
        (_part(2, count=3), "does not belong to a split into 2"),
    ],
)
def test_check_parts_refuses_a_shard_of_another_trial_or_an_unfinished_one(second: TrialPart, says: str) -> None:
    with pytest.raises(InputError) as raised:
        check_parts([(Path("part-1.json"), _part(1)), (Path("part-2.json"), second)])
    assert says in str(raised.value) and "part-2.json" in str(raised.value)
