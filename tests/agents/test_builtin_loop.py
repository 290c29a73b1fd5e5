"""The built-in agent loop, fed scripted model responses in process: prompts, endings, events, redaction."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aces_ci.agents import HarnessOutcome, HarnessSpec, RolloutRequest, baseline_guard, stage_workspace
from aces_ci.agents.builtin import NUDGE, BuiltinHarness, model_seed
from aces_ci.models import ModelAPIError, RetriesExhausted
from aces_ci.schemas import validator
from tests.engine.helpers import MARKER_BODY, ScriptedClient, calls, rendered, request, text


def spec(disclosure: str = "on-demand", **limits: float) -> HarnessSpec:
    return HarnessSpec(name="builtin", disclosure=disclosure, **limits)  # type: ignore[arg-type]


async def run(req: RolloutRequest, client: ScriptedClient, tmp_path: Path) -> HarnessOutcome:
    harness = BuiltinHarness(lambda _spec: client)
    with stage_workspace(req, harness, tmp_path, guard=baseline_guard([rendered()])) as workspace:
        return await harness.run(req, workspace)


def assert_valid_atif(trajectory: dict) -> None:
    errors = sorted(validator("atif").iter_errors(trajectory), key=str)
    assert not errors, errors
    assert [s["step_id"] for s in trajectory["steps"]] == list(range(1, len(trajectory["steps"]) + 1))


async def test_on_demand_prompt_lists_skills_without_their_bodies(tmp_path: Path) -> None:
    client = ScriptedClient([calls(("final_answer", {"answer": "ok"}))])
    await run(request("with", harness=spec("on-demand")), client, tmp_path)
    system = client.requests[0].system
    assert "- marker: Answers questions about the secret project number." in system
    assert "SKILL.md: .agents/skills/marker/SKILL.md" in system
    assert "ZEBRA-MARKER" not in system
    assert [t.name for t in client.requests[0].tools] == [
        "list_files",
        "read_file",
        "write_file",
        "run",
        "final_answer",
    ]


async def test_preload_prompt_carries_the_bodies(tmp_path: Path) -> None:
    client = ScriptedClient([text("42")])
    await run(request("with", harness=spec("preload")), client, tmp_path)
    system = client.requests[0].system
    assert "ZEBRA-MARKER" in system and '<skill name="marker" folder=".agents/skills/marker">' in system


@pytest.mark.parametrize("disclosure", ["on-demand", "preload"])
async def test_the_conditions_prompts_differ_only_by_the_skills_section(tmp_path: Path, disclosure: str) -> None:
    prompts = {}
    for arm in ("with", "without"):
        client = ScriptedClient([calls(("final_answer", {"answer": "x"}))])
        await run(request(arm, harness=spec(disclosure)), client, tmp_path)
        prompts[arm] = client.requests[0].system
    assert prompts["with"].startswith(prompts["without"] + "\n\n")
    assert "skill" not in prompts["without"].lower()


async def test_preload_text_reply_is_the_final_answer(tmp_path: Path) -> None:
    outcome = await run(request("with", harness=spec("preload")), ScriptedClient([text("  42  ")]), tmp_path)
    assert (outcome.end_reason, outcome.final_answer, outcome.infra_error) == ("final_answer", "42", None)
    assert [(e.step_id, e.skill, e.via) for e in outcome.skill_events] == [(1, "marker", "preloaded")]
    assert outcome.usage.model_calls == 1
    assert_valid_atif(outcome.trajectory)


async def test_on_demand_reads_the_skill_then_answers(tmp_path: Path) -> None:
    client = ScriptedClient(
        [
            calls(("read_file", {"path": ".agents/skills/marker/SKILL.md"})),
            calls(("final_answer", {"answer": "42"})),
        ]
    )
    outcome = await run(request("with"), client, tmp_path)
    assert outcome.final_answer == "42"
    assert [(e.step_id, e.via, e.path) for e in outcome.skill_events] == [(3, "file_read", "SKILL.md")]
    tool_message = client.requests[1].messages[-1]
    assert tool_message.role == "tool" and MARKER_BODY in tool_message.content
    steps = outcome.trajectory["steps"]
    assert [s["source"] for s in steps] == ["system", "user", "agent", "agent"]
    assert MARKER_BODY in steps[2]["observation"]["results"][0]["content"]
    assert steps[2]["metrics"] == {"prompt_tokens": 10, "completion_tokens": 10, "cached_tokens": 0, "cost_usd": 0.0}
    assert outcome.trajectory["extra"]["skill_events"] == [
        {"step_id": 3, "skill": "marker", "via": "file_read", "path": "SKILL.md"}
    ]
    assert_valid_atif(outcome.trajectory)


async def test_on_demand_text_reply_gets_a_nudge_not_an_ending(tmp_path: Path) -> None:
    client = ScriptedClient([text("I think 42"), calls(("final_answer", {"answer": "42"}))])
    outcome = await run(request("with"), client, tmp_path)
    assert outcome.final_answer == "42"
    assert client.requests[1].messages[-1].content == NUDGE
    assert outcome.trajectory["steps"][3] | {"timestamp": None} == {
        "step_id": 4,
        "source": "user",
        "message": NUDGE,
        "extra": {"nudge": True},
        "timestamp": None,
    }


async def test_tool_errors_go_back_to_the_model(tmp_path: Path) -> None:
    client = ScriptedClient(
        [
            calls(("read_file", {"path": "../../etc/passwd"}), ("final_answer", {})),
            calls(("final_answer", {"answer": "done"})),
        ]
    )
    outcome = await run(request("with"), client, tmp_path)
    results = [m for m in client.requests[1].messages if m.role == "tool"]
    assert [r.is_error for r in results] == [True, True]
    assert "'..' is not allowed" in results[0].content and "needs a string argument" in results[1].content
    assert outcome.final_answer == "done"


async def test_max_turns_ends_a_rollout_that_never_answers(tmp_path: Path) -> None:
    client = ScriptedClient(lambda _req: calls(("list_files", {"path": "."})))
    outcome = await run(request("with", harness=spec(max_turns=3)), client, tmp_path)
    assert (outcome.end_reason, outcome.final_answer, outcome.infra_error) == ("max_turns", None, None)
    assert len(client.requests) == 3


async def test_max_total_tokens_stops_the_rollout(tmp_path: Path) -> None:
    client = ScriptedClient(lambda _req: calls(("list_files", {}), tokens=400))
    outcome = await run(request("with", harness=spec(max_total_tokens=2000)), client, tmp_path)
    assert outcome.end_reason == "max_tokens" and outcome.infra_error is None
    assert len(client.requests) == 3  # 800 tokens a turn: stopped once the total passed 2000


async def test_exhausted_retries_and_model_errors_are_infra_errors(tmp_path: Path) -> None:
    exhausted = RetriesExhausted(ModelAPIError("HTTP 529", status=529, retryable=True), attempts=6, reason="max")
    outcome = await run(request("with"), ScriptedClient([exhausted]), tmp_path)
    assert outcome.end_reason == "retries_exhausted" and "gave up after 6 attempts" in (outcome.infra_error or "")
    outcome = await run(request("with"), ScriptedClient([ModelAPIError("HTTP 401: bad key", status=401)]), tmp_path)
    assert outcome.end_reason == "model_error" and outcome.infra_error == "HTTP 401: bad key"
    assert_valid_atif(outcome.trajectory)


async def test_a_hanging_model_ends_in_a_timeout_with_the_partial_trajectory(tmp_path: Path) -> None:
    outcome = await run(request("with", harness=spec(timeout_s=0.3)), ScriptedClient(hang=True), tmp_path)
    assert outcome.end_reason == "timeout" and "timeout of 0.3s" in (outcome.infra_error or "")
    assert [s["source"] for s in outcome.trajectory["steps"]] == ["system", "user"]
    assert outcome.trajectory["extra"]["end_reason"] == "timeout"


async def test_secrets_from_the_environment_never_reach_the_trajectory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "custom-endpoint-credential-Zq81"
    monkeypatch.setenv("MY_LLM_API_KEY", secret)
    client = ScriptedClient([calls(("final_answer", {"answer": f"the key is {secret}"}), say=f"key={secret}")])
    outcome = await run(request("with"), client, tmp_path)
    assert secret not in json.dumps(outcome.trajectory)


def test_every_condition_shares_the_model_seed_and_replicates_differ() -> None:
    with_arm, without_arm = request("with", replicate=1, seed=7), request("without", replicate=1, seed=7)
    assert model_seed(with_arm) == model_seed(without_arm) == model_seed(request("base", replicate=1, seed=7))
    assert model_seed(request("with", replicate=2, seed=7)) != model_seed(with_arm)
    assert model_seed(request("with", replicate=1, seed=8)) != model_seed(with_arm)


def test_version_names_the_loop_protocol() -> None:
    version = BuiltinHarness(lambda _s: ScriptedClient()).version()
    assert version.endswith("+loop1")
