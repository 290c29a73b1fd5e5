"""``aces_ci.app.trial``: what ``aces-ci trial`` and ``aces-ci ci`` both call, driven with a resolved config."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from aces_ci import app
from aces_ci.config import RunFlags, TrialFlags, find_project, resolve_trial
from tests.servers import Reply, ScriptedRequest, ScriptedServer, Text
from tests.trials.helpers import planted_accuracy, repo_with_skill

Server = Callable[..., ScriptedServer]


def _judge(req: ScriptedRequest) -> Reply:
    """A judge that finds the answer right exactly when it holds 42."""
    right = "<final_answer>\n42" in req.last_user_text
    if '"goal"' in req.system_text:
        return Text(json.dumps({"goal": "achieved" if right else "not", "reason": "end state"}))
    if '"results"' in req.system_text:
        return Text(json.dumps({"results": [{"id": 1, "passed": right, "reason": "seen in the answer"}]}))
    return Text(json.dumps({"verdict": "correct" if right else "incorrect", "reason": "against the reference"}))


def _dataset(name: str, count: int) -> str:
    cases = [
        {"id": f"case-{i:02d}", "prompt": f"Question {i}: the secret project number?", "expected_output": "42"}
        | {"match": "judge"}
        for i in range(count)
    ]
    return json.dumps({"skill_name": name, "evals": cases})


def test_a_trial_grades_with_the_judge_aces_yml_names_as_aces_ci_ci_calls_it(
    scripted_server: Server, tmp_path: Path
) -> None:
    """``ci`` gives no judge flag: the judge of aces.yml grades, as in ``trial``; ``judge=None`` grades without."""
    agent = scripted_server(planted_accuracy(1.0, 0.0))
    judge = scripted_server(_judge)
    repo = tmp_path / "repo"
    skill = repo_with_skill(repo, cases=1)
    (skill / "evals" / "evals.json").write_text(_dataset("marker", 6))
    (repo / "aces.yml").write_text(
        f"judge:\n  provider: openai\n  model: judge-model\n  base_url: {judge.openai_url}\n"
    )
    project = find_project(skill.resolve())
    run = RunFlags(
        provider="openai",
        base_url=agent.openai_url,
        model="scripted-model",
        disclosure="preload",
        runs=1,
        concurrency=4,
        cache_dir=tmp_path / "cache",
    )
    config = resolve_trial(project.config, TrialFlags(run=run, lift_metric="accuracy"))
    result = app.trial([skill], project, config)
    assert result.judge == "openai/judge-model" and judge.calls > 0
    accuracy = result.skills[0].lift["accuracy"]
    assert accuracy is not None and accuracy.delta == pytest.approx(1.0)
    unjudged = app.trial([skill], project, dataclasses.replace(config, judge=None))
    assert unjudged.judge is None and unjudged.skills[0].lift["accuracy"] is None
