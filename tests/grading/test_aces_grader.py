"""The six ACES metrics on the engine's seam: one grader, graded by the engine after each rollout."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from aces_ci.agents import HarnessSpec, create_harness
from aces_ci.engine import RolloutEngine
from aces_ci.evals import EvalCase
from aces_ci.grading import METRICS, AcesMetricsGrader
from tests.engine.helpers import fast_clients, openai_model, planted_skill, request
from tests.servers import ScriptedServer

Server = Callable[..., ScriptedServer]
SPEC = HarnessSpec(name="builtin", disclosure="on-demand", max_turns=4, timeout_s=30)
CASE = EvalCase(
    id="number",
    prompt="What is the secret project number?",
    expected_output="42",
    expected_skill="marker",
    should_trigger=True,
)


async def test_the_engine_grades_each_condition_on_the_metrics_that_apply(
    scripted_server: Server, tmp_path: Path
) -> None:
    server = scripted_server(planted_skill)
    model = openai_model(server.openai_url)
    pair = [request(c, harness=SPEC, model=model, eval_case=CASE) for c in ("with", "without")]
    grader = AcesMetricsGrader()
    assert grader.metrics == tuple(m for m in METRICS if m != "skill_efficiency")
    clients = fast_clients()
    try:
        async with RolloutEngine(create_harness(SPEC, clients=clients), workspace_dir=tmp_path) as engine:
            batch = await engine.run(pair, grader=grader)
    finally:
        await clients.aclose()
    with_skill, without = batch.records
    assert with_skill.value("accuracy") == 1.0 and without.value("accuracy") == 0.0
    assert with_skill.value("skill_execution") == 1.0
    assert without.grades is not None
    execution = without.grades.get("skill_execution")
    assert execution is not None and execution.status == "not_applicable"  # the skill was not staged there
    assert with_skill.value("security") == 1.0
    goal = with_skill.grades.get("goal_accuracy") if with_skill.grades else None
    assert goal is not None and goal.status != "graded" and goal.reason  # no assertions and no judge: a reason, not 0
