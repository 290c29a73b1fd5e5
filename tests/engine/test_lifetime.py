"""One engine for a whole command: A/A controls, many calls sharing one budget, one journal, one display."""

from __future__ import annotations

import dataclasses
import io
import json
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from aces_ci.agents import HarnessSpec, RolloutRequest, baseline_guard, create_harness
from aces_ci.engine import Budget, LineProgress, RolloutEngine
from aces_ci.errors import InputError
from aces_ci.grading import EXPECTED_OUTPUT, ExpectedOutputGrader, Grades, GradingInput, MetricGrade
from aces_ci.models import Usage
from tests.engine.helpers import case, fast_clients, openai_model, planted_skill, rendered, request
from tests.servers import ScriptedServer

Server = Callable[..., ScriptedServer]
PRELOAD = HarnessSpec(name="builtin", disclosure="preload", max_turns=3, timeout_s=30)
TARGET = rendered()


@asynccontextmanager
async def engine_for(server: ScriptedServer, **options: object) -> AsyncIterator[RolloutEngine]:
    clients = fast_clients()
    try:
        engine = RolloutEngine(
            create_harness(PRELOAD, clients=clients),
            guard=baseline_guard([TARGET]),
            **options,  # type: ignore[arg-type]
        )
        async with engine:
            yield engine
    finally:
        await clients.aclose()


def asks(
    server: ScriptedServer, names: Sequence[str], condition: str = "with", replicate: int = 0
) -> list[RolloutRequest]:
    model = openai_model(server.openai_url)
    return [
        request(condition, target=TARGET, harness=PRELOAD, model=model, replicate=replicate, eval_case=case(name))
        for name in names
    ]


async def test_an_aa_pair_runs_two_rollouts_under_two_labels_or_two_replicates(scripted_server: Server) -> None:
    server = scripted_server(planted_skill)
    one = asks(server, ["q"])[0]
    same_content_other_label = dataclasses.replace(one, condition="with-again")
    next_replicate = asks(server, ["q"], replicate=1)[0]
    assert one.skills == same_content_other_label.skills == next_replicate.skills
    async with engine_for(server) as engine:
        batch = await engine.run([one, same_content_other_label, next_replicate], grader=ExpectedOutputGrader())
    assert server.calls == 3 and len({r.result.key for r in batch.records}) == 3
    assert [r.value(EXPECTED_OUTPUT) for r in batch.records] == [1.0, 1.0, 1.0]
    assert [r.source for r in batch.records] == ["run"] * 3


async def test_a_cap_set_when_the_engine_opens_stops_its_third_call(scripted_server: Server) -> None:
    server = scripted_server(planted_skill)
    async with engine_for(server, budget=Budget(max_rollouts=4), concurrency=1) as engine:
        first = await engine.run(asks(server, ["a", "b"]))
        second = await engine.run(asks(server, ["c", "d"]))
        assert engine.stopped_by == "max_rollouts"
        third = await engine.run(asks(server, ["a", "e", "f"]))
    assert first.all_completed and second.all_completed and server.calls == 4
    assert [(r.request.case.id, r.source) for r in third.records] == [("a", "session")]  # already paid: free
    assert [(n.request.case.id, n.reason) for n in third.not_run] == [("e", "max_rollouts"), ("f", "max_rollouts")]
    assert third.stopped_by == "max_rollouts"


async def test_a_graders_cost_counts_towards_the_dollar_cap(scripted_server: Server) -> None:
    class PricedJudge:
        name = "judge"
        metrics: tuple[str, ...] = ("judged",)

        async def grade(self, rollout: GradingInput) -> Grades:
            return Grades(self.name, (MetricGrade.graded("judged", 1.0),), Usage(cost_usd=0.02, model_calls=1))

    server = scripted_server(planted_skill)
    async with engine_for(server, budget=Budget(max_usd=0.03), concurrency=1) as engine:
        batch = await engine.run(asks(server, ["a", "b", "c"]), grader=PricedJudge())
    assert server.calls == 2 and [n.request.case.id for n in batch.not_run] == ["c"]
    assert batch.grading_usage.cost_usd == pytest.approx(0.04) and batch.usage.cost_usd == 0.0


async def test_one_journal_serves_every_call_and_resumes_by_key_whatever_batch_wrote_it(
    scripted_server: Server, tmp_path: Path
) -> None:
    server = scripted_server(planted_skill)
    journal = tmp_path / "journal.jsonl"
    async with engine_for(server, journal=journal) as engine:
        await engine.run(asks(server, ["a", "b"]), batch="round-1")
        reused = await engine.run(asks(server, ["b", "c"]), batch="round-2")
    assert [r.source for r in reused.records] == ["session", "run"] and server.calls == 3
    async with engine_for(server, journal=journal) as engine:
        resumed = await engine.run(asks(server, ["c", "a", "d"]), batch="round-3")
    assert [r.source for r in resumed.records] == ["journal", "journal", "run"] and server.calls == 4
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    assert sorted((line["batch"], line["rollout"]["case"]) for line in lines) == [
        ("round-1", "a"),
        ("round-1", "b"),
        ("round-2", "c"),
        ("round-3", "d"),
    ]


async def test_one_progress_display_counts_on_across_calls(scripted_server: Server) -> None:
    server = scripted_server(planted_skill)
    stream = io.StringIO()
    async with engine_for(server, progress=LineProgress(stream), concurrency=1) as engine:
        await engine.run(asks(server, ["a", "b"]))
        await engine.run(asks(server, ["b", "c"]))
    lines = stream.getvalue().splitlines()
    assert [line.split(" condition")[0] for line in lines] == [
        "[1/2] 50%: 1 done (latest: case=a",
        "[2/2] 100%: 2 done (latest: case=b",
        "[3/4] 75%: 2 done, 1 reused (latest: case=b",
        "[4/4] 100%: 3 done, 1 reused (latest: case=c",
        "rollouts: 4 of 4 finished (3 done, 1 reused)",
    ]
    assert lines[2].endswith("reused 0.0s)")


async def test_a_ci_log_of_a_budget_stopped_batch_is_short_and_says_what_stopped_it(scripted_server: Server) -> None:
    server = scripted_server(planted_skill)
    stream = io.StringIO()
    names = [f"q{i}" for i in range(240)]
    async with engine_for(server, progress=LineProgress(stream), budget=Budget(max_rollouts=180)) as engine:
        batch = await engine.run(asks(server, names))
    assert batch.stopped_by == "max_rollouts" and len(batch.records) == 180 and server.calls == 180
    lines = stream.getvalue().splitlines()
    assert len(lines) <= 11 + 2, "one line per tenth of the expected rollouts, the stop, the summary"
    assert lines[-2:] == [
        "[180/240] stopped by the rollout budget (--max-rollouts): 60 rollouts not run",
        "rollouts: 180 of 240 finished (180 done); 60 not run",
    ]


async def test_the_guard_refuses_a_leaked_baseline_before_any_rollout_of_the_call_runs(scripted_server: Server) -> None:
    server = scripted_server(planted_skill)
    leaked = request(
        "without",
        target=TARGET,
        harness=PRELOAD,
        model=openai_model(server.openai_url),
        fixtures={"copy.md": TARGET.files["SKILL.md"]},
    )
    async with engine_for(server) as engine:
        with pytest.raises(InputError, match=r"SKILL\.md inside this file"):
            await engine.run([*asks(server, ["a", "b"]), leaked])
    assert server.calls == 0


async def test_an_engine_runs_only_while_open_and_opens_once(scripted_server: Server) -> None:
    server = scripted_server(planted_skill)
    engine = RolloutEngine(create_harness(PRELOAD, clients=fast_clients()))
    with pytest.raises(RuntimeError, match="async with"):
        await engine.run(asks(server, ["a"]))
    async with engine:
        pass
    with pytest.raises(RuntimeError, match="async with"):
        await engine.run(asks(server, ["a"]))
    with pytest.raises(RuntimeError, match="opened once"):
        await engine.__aenter__()
    assert server.calls == 0


async def test_a_schedule_that_loses_a_request_is_refused(scripted_server: Server) -> None:
    server = scripted_server(planted_skill)
    async with engine_for(server, schedule=lambda requests: [0]) as engine:
        with pytest.raises(ValueError, match="every request index exactly once"):
            await engine.run(asks(server, ["a", "b"]))
    assert server.calls == 0
