"""The rollout engine against real HTTP model servers: cache, concurrency, budget, faults, journal, secrets."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from aces_ci.agents import HarnessOutcome, HarnessSpec, RolloutRequest, Workspace, baseline_guard, create_harness
from aces_ci.agents.builtin import BuiltinHarness
from aces_ci.config import Price
from aces_ci.engine import TIMEOUT_GRACE_S, Budget, CircuitBreaker, RolloutBatch, RolloutCache, paired_schedule
from aces_ci.errors import ConfigError, InfraError
from aces_ci.grading import EXPECTED_OUTPUT, ExpectedOutputGrader, Grader, Grades, GradingInput
from aces_ci.models import ModelSpec, PriceTable
from aces_ci.schemas import validator
from tests.engine.helpers import (
    ScriptedClient,
    case,
    fast_clients,
    openai_model,
    planted_skill,
    rendered,
    request,
    run_once,
)
from tests.servers import Drop, Fault, Hang, ScriptedRequest, ScriptedServer, SlowStream, Text, Tokens

PRELOAD = HarnessSpec(name="builtin", disclosure="preload", max_turns=3, timeout_s=30)
TARGET = rendered()
PAIRS = paired_schedule(("with", "without"))


def paired(model: ModelSpec, cases: int, runs: int = 1, spec: HarnessSpec = PRELOAD) -> list[RolloutRequest]:
    return [
        request(
            arm,
            target=TARGET,
            harness=spec,
            model=model,
            replicate=run,
            eval_case=case(f"case-{i}", prompt=f"Question {i}: what is the secret project number?"),
        )
        for i in range(cases)
        for run in range(runs)
        for arm in ("with", "without")
    ]


async def execute(
    requests: Sequence[RolloutRequest],
    *,
    prices: PriceTable | None = None,
    timeout_s: float = 5.0,
    grader: Grader | None = None,
    **options: object,
) -> RolloutBatch:
    clients = fast_clients(timeout_s=timeout_s, prices=prices)
    try:
        return await run_once(
            requests,
            create_harness(PRELOAD, clients=clients),
            grader=grader or ExpectedOutputGrader(),
            guard=baseline_guard([TARGET]),
            schedule=PAIRS,
            **options,
        )
    finally:
        await clients.aclose()


def scores(batch: RolloutBatch) -> list[float | None]:
    return [record.value(EXPECTED_OUTPUT) for record in batch.records]


Server = Callable[..., ScriptedServer]


async def test_an_unchanged_rerun_is_served_from_the_cache_with_no_model_call(
    scripted_server: Server, tmp_path: Path
) -> None:
    server = scripted_server(planted_skill)
    requests = paired(openai_model(server.openai_url), cases=2)
    cache = RolloutCache(tmp_path / "cache")
    first = await execute(requests, cache=cache)
    calls_after_first = server.calls
    second = await execute(requests, cache=cache)
    assert calls_after_first == 4 and server.calls == calls_after_first
    assert [r.source for r in first.records] == ["run"] * 4
    assert [r.source for r in second.records] == ["cache"] * 4
    assert scores(second) == scores(first) == [1.0, 0.0] * 2
    assert second.usage.model_calls == 0 and first.usage.model_calls == 4
    # git never sees the paid rollouts: the cache directory ignores itself
    assert (tmp_path / "cache" / ".gitignore").read_text().splitlines()[-1] == "*"


async def test_a_changed_skill_misses_the_cache_but_the_baseline_hits(scripted_server: Server, tmp_path: Path) -> None:
    server = scripted_server(planted_skill)
    model = openai_model(server.openai_url)
    cache = RolloutCache(tmp_path / "cache")
    await execute(paired(model, cases=1), cache=cache)
    edited = rendered(body="Edited body: the marker of this skill is ZEBRA-MARKER. Reply 42 to number questions.")
    changed = [
        request(
            arm,
            target=edited,
            harness=PRELOAD,
            model=model,
            eval_case=case("case-0", prompt="Question 0: what is the secret project number?"),
        )
        for arm in ("with", "without")
    ]
    clients = fast_clients()
    try:
        batch = await run_once(
            changed, create_harness(PRELOAD, clients=clients), cache=cache, guard=baseline_guard([edited])
        )
    finally:
        await clients.aclose()
    assert [r.source for r in batch.records] == ["run", "cache"]


async def test_concurrency_is_capped_and_pairs_run_side_by_side(scripted_server: Server) -> None:
    server = scripted_server(lambda req: SlowStream(Text("42"), delay_s=0.15))
    batch = await execute(paired(openai_model(server.openai_url), cases=4), concurrency=2)
    assert server.max_concurrent == 2
    started = [req.last_user_text.split(":")[0] for req in server.requests]
    assert started == [
        "Question 0",
        "Question 0",
        "Question 1",
        "Question 1",
        "Question 2",
        "Question 2",
        "Question 3",
        "Question 3",
    ]
    assert all(r.result.status == "completed" for r in batch.records)


def test_the_paired_schedule_puts_the_conditions_of_a_pair_next_to_each_other_with_first() -> None:
    requests = [
        request("without", eval_case=case("a")),
        request("with", eval_case=case("b")),
        request("with", eval_case=case("a")),
        request("without", eval_case=case("b")),
        request("with", eval_case=case("a"), replicate=1),
        request("base", eval_case=case("a")),
    ]
    assert PAIRS(requests) == [2, 0, 5, 1, 3, 4]


async def test_identical_requests_run_once_and_share_the_result(scripted_server: Server) -> None:
    server = scripted_server(planted_skill)
    one = paired(openai_model(server.openai_url), cases=1)[0]
    batch = await execute([one, one, one])
    assert server.calls == 1 and len(batch.records) == 3
    assert len({id(r.result) for r in batch.records}) == 1


async def test_max_rollouts_stops_launching_and_names_what_was_not_run(scripted_server: Server) -> None:
    server = scripted_server(planted_skill)
    requests = paired(openai_model(server.openai_url), cases=3)
    batch = await execute(requests, concurrency=1, budget=Budget(max_rollouts=4))
    assert server.calls == 4 and len(batch.records) == 4
    assert batch.stopped_by == "max_rollouts" and not batch.all_completed
    assert [(n.request.case.id, n.request.condition, n.reason) for n in batch.not_run] == [
        ("case-2", "with", "max_rollouts"),
        ("case-2", "without", "max_rollouts"),
    ]


async def test_the_dollar_cap_counts_finished_rollouts(scripted_server: Server) -> None:
    server = scripted_server(lambda req: Text("42", usage=Tokens(input=1000, output=1000)))
    model = ModelSpec(provider="openai", model="priced-model", base_url=server.openai_url)
    prices = PriceTable({"priced-model": Price(input=10.0, output=10.0)})  # $0.02 a rollout
    batch = await execute(paired(model, cases=3), concurrency=1, prices=prices, budget=Budget(max_usd=0.05))
    assert server.calls == 3
    assert batch.usage.cost_usd == pytest.approx(0.06)
    assert batch.stopped_by == "budget_usd" and len(batch.not_run) == 3


async def test_the_wall_clock_cap_cancels_running_rollouts(scripted_server: Server, tmp_path: Path) -> None:
    # case-0 answers at once (~50 ms a rollout when idle) and must finish inside the cap even on a busy
    # machine; the other cases hang until the cap cancels them.
    server = scripted_server(lambda req: Text("42") if "Question 0" in req.last_user_text else Hang())
    requests = paired(openai_model(server.openai_url), cases=3)
    batch = await execute(requests, concurrency=2, budget=Budget(max_wall_s=3.0), timeout_s=30, workspace_dir=tmp_path)
    assert [(r.request.case.id, r.result.status) for r in batch.records] == [("case-0", "completed")] * 2
    assert batch.stopped_by == "max_wall"
    assert [(n.request.case.id, n.request.condition) for n in batch.not_run] == [
        ("case-1", "with"),
        ("case-1", "without"),
        ("case-2", "with"),
        ("case-2", "without"),
    ]
    assert not list(tmp_path.iterdir())  # cancelled rollouts cleaned up their workspaces


class HangingHarness(BuiltinHarness):
    """Ignores its own timeout: only the engine can stop it."""

    async def run(self, request: RolloutRequest, workspace: Workspace) -> HarnessOutcome:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


class CrashingHarness(BuiltinHarness):
    async def run(self, request: RolloutRequest, workspace: Workspace) -> HarnessOutcome:
        raise KeyError("session file missing")


async def test_a_hanging_harness_is_cut_at_its_timeout() -> None:
    spec = HarnessSpec(name="builtin", timeout_s=0.2)
    batch = await run_once(
        [request("with", harness=spec)], HangingHarness(lambda _s: ScriptedClient()), grader=ExpectedOutputGrader()
    )
    record = batch.records[0]
    result = record.result
    assert (result.status, result.end_reason) == ("infra_error", "timeout")
    assert result.duration_s < spec.timeout_s + TIMEOUT_GRACE_S + 5
    assert "timeout of 0.2s" in (result.error or "")
    grade = record.grades.get(EXPECTED_OUTPUT) if record.grades else None
    assert grade is not None and (grade.status, grade.value) == ("could_not_grade", None)
    assert not list(validator("atif").iter_errors(result.trajectory))


async def test_a_crashing_harness_costs_one_rollout_not_the_batch() -> None:
    requests = [request("with", eval_case=case("a")), request("with", eval_case=case("b"))]
    batch = await run_once(requests, CrashingHarness(lambda _s: ScriptedClient()))
    assert [r.result.end_reason for r in batch.records] == ["harness_error"] * 2
    assert "KeyError" in (batch.records[0].result.error or "")


async def test_a_missing_api_key_stops_the_batch_as_a_config_error_not_an_infra_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    model = ModelSpec(provider="anthropic", model="claude-haiku-4-5")
    requests = [request("with", harness=PRELOAD, model=model, eval_case=case(f"c{i}")) for i in range(3)]
    workspaces = tmp_path / "workspaces"
    workspaces.mkdir()
    clients = fast_clients()
    try:
        with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
            await run_once(requests, create_harness(PRELOAD, clients=clients), workspace_dir=workspaces)
    finally:
        await clients.aclose()
    assert list(workspaces.iterdir()) == []


async def test_under_faults_every_rollout_ends_scored_or_labelled(scripted_server: Server) -> None:
    def script(req: ScriptedRequest) -> object:
        question = req.last_user_text
        if "Question 3" in question:
            return Drop()
        if "Question 4" in question:
            return Hang()
        if "Question 5" in question:
            return Fault(401, message="invalid key")
        return Text("42")

    server = scripted_server(script, fault_rate=0.3, fault_seed=7, fault_statuses=(429, 500))
    spec = HarnessSpec(name="builtin", disclosure="preload", max_turns=3, timeout_s=4)
    requests = paired(openai_model(server.openai_url), cases=10, spec=spec)
    # Three cases fail on every run by design, often in a row: the breaker is off, every rollout must end.
    batch = await execute(requests, concurrency=4, timeout_s=0.5, breaker_after=len(requests) + 1)
    assert len(batch.records) == len(requests) and not batch.not_run
    for record in batch.records:
        result = record.result
        grade = record.grades.get(EXPECTED_OUTPUT) if record.grades else None
        assert grade is not None
        if result.status == "completed":
            assert grade.status == "graded" and grade.value is not None
        else:
            assert result.end_reason in ("retries_exhausted", "model_error", "timeout") and result.error
            assert grade.status == "could_not_grade" and grade.value is None
        assert result.duration_s < spec.timeout_s + TIMEOUT_GRACE_S + 1
    by_case = {r.request.case.id: r.result for r in batch.records}
    assert by_case["case-3"].end_reason == by_case["case-4"].end_reason == "retries_exhausted"
    assert by_case["case-5"].end_reason == "model_error"
    # How many of the 14 good rollouts complete depends on the machine against the 0.5 s call timeout
    # (a busy runner answers some "42"s too late, and those end labelled, as checked above): not a count.
    good = [r for r in batch.records if r.request.case.id not in ("case-3", "case-4", "case-5")]
    assert any(r.result.status == "completed" for r in good)
    assert all(r.result.end_reason != "model_error" for r in good), "a retryable fault never becomes an auth error"
    assert server.injected_faults > 0


async def test_a_resumed_journal_reruns_only_infra_errors(scripted_server: Server, tmp_path: Path) -> None:
    broken = {"on": True}

    def script(req: ScriptedRequest) -> object:
        if broken["on"] and "Question 1" in req.last_user_text:
            return Fault(503, message="down")
        return Text("42")

    server = scripted_server(script)
    journal = tmp_path / "run.jsonl"
    requests = paired(openai_model(server.openai_url), cases=3)
    first = await execute(requests, journal=journal)
    assert [r.result.status for r in first.records].count("infra_error") == 2
    calls = server.calls
    broken["on"] = False
    second = await execute(requests, journal=journal)
    assert server.calls - calls == 2  # the two infra errors, nothing else
    assert [r.source for r in second.records] == ["journal", "journal", "run", "run", "journal", "journal"]
    assert second.all_completed
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    assert len(lines) == 8 and all(line["batch"] == first.batch_id for line in lines)
    assert sorted((line["rollout"]["case"], line["rollout"]["condition"]) for line in lines[-2:]) == [
        ("case-1", "with"),
        ("case-1", "without"),
    ]


async def test_a_dead_api_trips_the_breaker_and_a_rerun_resumes_what_completed(
    scripted_server: Server, tmp_path: Path
) -> None:
    """Every call answering 500 after the first two cases: the batch stops after five consecutive infra errors
    instead of paying a full retry cycle for every remaining rollout; once the API answers, a rerun runs only
    what is missing."""
    alive = {"cases": 2}

    def script(req: ScriptedRequest) -> object:
        known = any(f"Question {i}:" in req.last_user_text for i in range(alive["cases"]))
        return Text("42") if known else Fault(500, message="the API is down")

    server = scripted_server(script)
    journal = tmp_path / "run.jsonl"
    requests = paired(openai_model(server.openai_url), cases=10)
    first = await execute(requests, journal=journal, concurrency=1)

    assert first.stopped_by == "circuit_breaker"
    assert [r.result.status for r in first.records] == ["completed"] * 4 + ["infra_error"] * 5
    assert len(first.not_run) == 11 and {n.reason for n in first.not_run} == {"circuit_breaker"}
    assert first.breaker is not None and "after 5 consecutive rollouts ended as infrastructure errors" in first.breaker
    assert "retries_exhausted" in first.breaker and "the API is down" in first.breaker
    # One retry cycle (3 attempts under the fast policy), then one attempt per rollout: not 3 x 16.
    assert server.calls == 4 + 3 + 4

    alive["cases"] = 10
    calls = server.calls
    second = await execute(requests, journal=journal, concurrency=1)
    assert second.all_completed and second.stopped_by is None
    assert [r.source for r in second.records][:4] == ["journal"] * 4
    assert server.calls - calls == 16, "the four completed rollouts are not paid again"


async def test_a_hanging_api_costs_a_few_timeouts_not_one_per_rollout(scripted_server: Server) -> None:
    server = scripted_server(lambda _req: Hang())
    spec = HarnessSpec(name="builtin", disclosure="preload", max_turns=3, timeout_s=0.5)
    requests = paired(openai_model(server.openai_url), cases=6, spec=spec)
    batch = await execute(requests, concurrency=1, breaker_after=3)
    assert [r.result.end_reason for r in batch.records] == ["timeout"] * 3
    assert batch.stopped_by == "circuit_breaker" and len(batch.not_run) == 9
    assert batch.breaker is not None and "3 consecutive" in batch.breaker and "timeout" in batch.breaker
    assert server.calls <= 3, "no call after the breaker tripped"


def test_a_breaker_that_never_trips_is_refused() -> None:
    with pytest.raises(ConfigError, match="at least 1 error"):
        CircuitBreaker(0)


async def test_resumed_rollouts_are_scored_against_the_current_expected_output(
    scripted_server: Server, tmp_path: Path
) -> None:
    server = scripted_server(lambda _req: Text("42"))
    journal = tmp_path / "run.jsonl"
    model = openai_model(server.openai_url)

    def requests_expecting(expected: str) -> list[RolloutRequest]:
        return [request("with", target=TARGET, harness=PRELOAD, model=model, eval_case=case(expected=expected))]

    typo = await execute(requests_expecting("41"), journal=journal)
    assert scores(typo) == [0.0]
    fixed = await execute(requests_expecting("42"), journal=journal)
    assert fixed.records[0].source == "journal" and server.calls == 1
    assert scores(fixed) == [1.0]


async def test_no_api_key_reaches_trajectory_journal_or_cache(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-proj-unit-test-key-abcdefghijklmnopqrstuvwxyz012345"
    monkeypatch.setenv("OPENAI_API_KEY", key)

    def echo_key(req: ScriptedRequest) -> Text:
        return Text(f"42, and my credentials are {req.header('authorization')}")

    server = scripted_server(echo_key)
    batch = await execute(
        paired(openai_model(server.openai_url), cases=1),
        cache=RolloutCache(tmp_path / "cache"),
        journal=tmp_path / "journal.jsonl",
    )
    assert key in server.requests[0].header("authorization")  # the key did go to the server
    written = [p.read_text() for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) == 4  # two cache entries, the journal and the cache folder's .gitignore
    for text in [
        *written,
        *(json.dumps(r.result.trajectory) for r in batch.records),
        *(r.result.final_answer or "" for r in batch.records),
    ]:
        assert key not in text
    assert scores(batch)[0] == 1.0


class UnreachableJudge:
    name = "judge"
    metrics: tuple[str, ...] = ("judged",)

    async def grade(self, rollout: GradingInput) -> Grades:
        raise InfraError("judge API down")


async def test_a_judge_outage_keeps_the_paid_rollout_and_a_later_grader_grades_it_from_the_cache(
    scripted_server: Server, tmp_path: Path
) -> None:
    server = scripted_server(planted_skill)
    requests = paired(openai_model(server.openai_url), cases=1)[:1]
    cache = RolloutCache(tmp_path)
    judged = await execute(requests, cache=cache, grader=UnreachableJudge())
    record = judged.records[0]
    assert record.result.status == "completed" and judged.all_completed
    grade = record.grades.get("judged") if record.grades else None
    assert grade is not None and (grade.status, grade.value) == ("grader_error", None)
    assert grade.reason == "InfraError: judge API down" and judged.grader_errors == (record,)
    regraded = await execute(requests, cache=cache)
    assert regraded.records[0].source == "cache" and scores(regraded) == [1.0]
    assert server.calls == 1
