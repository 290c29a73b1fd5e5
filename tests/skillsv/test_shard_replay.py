"""The split and the replay in-process: a failed score retried, or left out, replays as the unsharded run saw it."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from aces_ci.skillsv import (
    CoalitionRequest,
    Outcome,
    RecordedOracle,
    ScoreKey,
    Task,
    ValueSettings,
    compile_skill,
    plan_valuation,
    score_key,
    score_shard,
    shard_design,
    valuate,
    value_json,
)
from tests.skillsv.helpers import PLANTED_BODY, write_skill


class Flaky:
    """A deterministic planted score; ``once`` fails on its first ask, ``always`` on every ask."""

    identity = "flaky"

    def __init__(self, once: set[ScoreKey], always: set[ScoreKey]) -> None:
        self.once, self.always, self.asked = once, always, dict[ScoreKey, int]()

    def evaluate(self, requests: Sequence[CoalitionRequest]) -> list[Outcome]:
        out = []
        for request in requests:
            key = score_key(request)
            self.asked[key] = self.asked.get(key, 0) + 1
            if key in self.always or (key in self.once and self.asked[key] == 1):
                out.append(Outcome(None, rollouts=1, error="the rollout timed out"))
                continue
            text = f"{request.operator}{sorted(request.members)}{request.task.id}".encode()
            out.append(Outcome(hashlib.sha256(text).digest()[0] / 255, rollouts=1, cost_usd=0.01))
        return out


def test_retried_and_failed_scores_replay_as_the_unsharded_run_saw_them(tmp_path: Path) -> None:
    game = compile_skill(write_skill(tmp_path, PLANTED_BODY, {"scripts/tool.sh": "#!/bin/sh\necho TOTALS\n"}))
    tasks = [Task(f"c{i}") for i in range(10)]
    settings = ValueSettings()
    plan = plan_valuation(game, tasks, settings)
    design = shard_design(game, tasks, settings, plan, 3)
    assert sorted({design.owner[score_key(r)] for r in design.requests}) == [1, 2, 3]
    # an intermediate prefix of some chain fails once (retried: scored), another fails for good (chain left out)
    middles = [r for r in design.requests if 1 < len(r.members) < len(game.players) - 1]
    once, always = {score_key(middles[3])}, {score_key(middles[-5])}

    unsharded = valuate(game, tasks, Flaky(once, always), settings, plan)
    assert unsharded.valuation.left_out >= 1

    records = {}
    for index in (1, 2, 3):
        scored = score_shard(Flaky(once, always), design.owned(index))
        assert scored.stopped_by is None
        records.update({record.key: record for record in scored.records})
    assert {len(records[key].attempts) for key in once | always} == {2}

    def missing(key: ScoreKey) -> Outcome:
        raise AssertionError(f"not recorded: {key}")

    replayed = valuate(game, tasks, RecordedOracle("flaky", records, missing), settings, plan)
    assert value_json(replayed) == value_json(unsharded)
