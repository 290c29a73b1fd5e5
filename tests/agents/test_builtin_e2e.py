"""The built-in harness end to end: real HTTP to a scripted model server, through the engine, scored.

The server plants a skill effect (it answers 42 only when the marker of the skill is in front of
it), so the with-arm succeeds and the without-arm fails exactly when the skill reached the agent.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from aces_ci.agents import HarnessSpec, baseline_guard, create_harness
from aces_ci.grading import EXPECTED_OUTPUT, ExpectedOutputGrader
from aces_ci.models import ModelSpec
from tests.engine.helpers import (
    anthropic_model,
    fast_clients,
    openai_model,
    planted_skill,
    rendered,
    request,
    run_once,
)
from tests.servers import ScriptedRequest, ScriptedServer, ToolUse

PROVIDERS: dict[str, Callable[[ScriptedServer], ModelSpec]] = {
    "anthropic": lambda server: anthropic_model(server.url),
    "openai": lambda server: openai_model(server.openai_url),
}


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
@pytest.mark.parametrize("disclosure", ["on-demand", "preload"])
async def test_planted_skill_effect_shows_in_the_with_arm_only(
    scripted_server: Callable[..., ScriptedServer], tmp_path: Path, provider: str, disclosure: str
) -> None:
    server = scripted_server(planted_skill)
    clients = fast_clients()
    spec = HarnessSpec(name="builtin", disclosure=disclosure, max_turns=5, timeout_s=30)  # type: ignore[arg-type]
    model = PROVIDERS[provider](server)
    target = rendered()
    requests = [request(arm, target=target, harness=spec, model=model) for arm in ("with", "without")]
    try:
        batch = await run_once(
            requests,
            create_harness(spec, clients=clients),
            grader=ExpectedOutputGrader(),
            guard=baseline_guard([target]),
            workspace_dir=tmp_path,
        )
    finally:
        await clients.aclose()
    with_arm, without_arm = batch.records
    assert (with_arm.result.final_answer, with_arm.value(EXPECTED_OUTPUT)) == ("42", 1.0)
    assert (without_arm.result.final_answer, without_arm.value(EXPECTED_OUTPUT)) == ("I do not know", 0.0)
    expected_via = "file_read" if disclosure == "on-demand" else "preloaded"
    assert [e.via for e in with_arm.result.skill_events] == [expected_via]
    assert without_arm.result.skill_events == ()
    assert server.errors == []
    assert not list(tmp_path.iterdir())  # workspaces removed


async def test_the_agent_runs_a_skill_script_it_read_about(
    scripted_server: Callable[..., ScriptedServer], tmp_path: Path
) -> None:
    target = rendered(
        "numbers",
        body="Run `python3 .agents/skills/numbers/scripts/answer.py` to get the answer.",
        files={"scripts/answer.py": "print('the answer is', 6 * 7)\n"},
    )

    def script(req: ScriptedRequest) -> ToolUse:
        if not req.tool_results:
            return ToolUse("run", {"command": "python3 .agents/skills/numbers/scripts/answer.py"})
        return ToolUse("final_answer", {"answer": req.tool_results[-1].splitlines()[-1]})

    server = scripted_server(script)
    clients = fast_clients()
    spec = HarnessSpec(name="builtin", max_turns=4, timeout_s=30)
    try:
        batch = await run_once(
            [request("with", target=target, harness=spec, model=openai_model(server.openai_url))],
            create_harness(spec, clients=clients),
            grader=ExpectedOutputGrader(),
        )
    finally:
        await clients.aclose()
    result = batch.records[0].result
    assert result.final_answer == "the answer is 42" and batch.records[0].value(EXPECTED_OUTPUT) == 1.0
    assert [(e.via, e.path) for e in result.skill_events] == [("script_run", "scripts/answer.py")]
