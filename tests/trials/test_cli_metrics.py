"""The six ACES metrics in ``aces-ci trial``, end to end: graded per rollout, efficiency per pair, a judge, datasets."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from aces_ci.cli import build_parser, main
from aces_ci.commands.trial import SkillSources, measure, resolve_run_options
from aces_ci.config import find_project
from aces_ci.stats import Bands
from aces_ci.trials import TrialDesign
from tests.engine.helpers import MARKER, write_skill
from tests.servers import Reply, ScriptedRequest, ScriptedServer, Text
from tests.trials.helpers import draw, planted_accuracy, repo_with_skill, reports, run_flags, valid_reports

Server = Callable[..., ScriptedServer]
CONTRACT = ("delta", "ci", "n_cases", "runs_per_arm", "with_mean", "without_mean", "mde")


def _dataset(name: str, count: int, **extra: object) -> str:
    cases = [
        {"id": f"case-{i:02d}", "prompt": f"Question {i}: what is the secret project number?", "expected_output": "42"}
        | extra
        for i in range(count)
    ]
    return json.dumps({"skill_name": name, "evals": cases})


def test_every_rollout_is_graded_on_the_six_metrics_and_the_gate_reads_aces_yml(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(planted_accuracy(0.9, 0.1))
    repo = tmp_path / "repo"
    skill = repo_with_skill(repo, cases=12)
    (repo / "aces.yml").write_text("gate:\n  metric: accuracy\n")
    argv = ["trial", str(skill), "--runs", "2", *run_flags(server, tmp_path), *reports(tmp_path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    data = valid_reports(tmp_path)
    assert data["gate"]["metric"] == "accuracy" and data["agent"]["judge"] is None
    result = data["skills"][0]
    assert result["gate_metric"] == "accuracy" and result["verdict"] == "pass"
    lift = result["lift"]
    expected = {"composite", "outcome", "accuracy", "goal_accuracy", "skill_execution"}
    expected |= {"behavior_check", "skill_efficiency", "security"}
    assert set(lift) == expected
    for metric in ("accuracy", "security", "skill_efficiency", "composite", "outcome"):
        assert lift[metric] is not None, (metric, result["not_applicable"])
        assert set(CONTRACT) <= set(lift[metric]) and (lift[metric]["n_cases"], lift[metric]["runs_per_arm"]) == (12, 2)
    assert lift["security"]["delta"] == 0.0 and lift["security"]["with_mean"] == 1.0, lift
    assert lift["accuracy"]["run_sd_with"] is not None and lift["security"]["run_sd_control"] == 0.0
    # The skill's body is in the with-condition's prompt: it reads more tokens than its paired control.
    # (Every with-run reads more tokens than its partner; time, the noisy third ratio, can go either way.)
    efficiency = lift["skill_efficiency"]
    assert efficiency["with_mean"] < 1.0 and efficiency["without_mean"] <= 1.0, efficiency
    assert lift["outcome"]["delta"] == pytest.approx(lift["accuracy"]["delta"]), "goal accuracy is not graded"
    # Not graded, so null with the reason, never 0.
    for metric in ("goal_accuracy", "skill_execution", "behavior_check"):
        assert lift[metric] is None and result["not_applicable"][metric]
    assert "no judge" in result["not_applicable"]["goal_accuracy"]
    assert "not staged" in result["not_applicable"]["skill_execution"] or "baseline" in str(result["not_applicable"])
    for words in ("accuracy *", "skill efficiency", "security", "composite", "outcome"):
        assert words in out, words
    assert "no judge" in out and "run-to-run SD of one run's score" in out
    junit = (tmp_path / "trial.xml").read_text()
    assert 'name="lift.accuracy"' in junit and 'name="skill_efficiency.delta"' in junit
    markdown = (tmp_path / "trial.md").read_text()
    assert "skill efficiency" in markdown.lower() and "security" in markdown


def _judge(req: ScriptedRequest) -> Reply:
    """A judge that finds the answer right exactly when it holds 42, by the JSON shape each metric asks for."""
    text = req.last_user_text
    right = "<final_answer>\n42" in text
    if '"goal"' in req.system_text:
        return Text(json.dumps({"goal": "achieved" if right else "not", "reason": "end state"}))
    if '"results"' in req.system_text:
        return Text(json.dumps({"results": [{"id": 1, "passed": right, "reason": "seen in the answer"}]}))
    return Text(json.dumps({"verdict": "correct" if right else "incorrect", "reason": "against the reference"}))


def test_a_judge_grades_what_no_rule_can_and_a_rerun_asks_it_nothing(scripted_server: Server, tmp_path: Path) -> None:
    agent = scripted_server(planted_accuracy(1.0, 0.0))
    judge = scripted_server(_judge)
    repo = tmp_path / "repo"
    skill = repo_with_skill(repo, cases=1)
    (skill / "evals" / "evals.json").write_text(
        _dataset("marker", 10, match="judge", expected_behavior=["States the number plainly"])
    )
    (repo / "aces.yml").write_text(
        f"judge:\n  provider: openai\n  model: judge-model\n  base_url: {judge.openai_url}\n", encoding="utf-8"
    )
    argv = ["trial", str(skill), "--runs", "1", *run_flags(agent, tmp_path), *reports(tmp_path)]
    assert main(argv) == 0
    data = valid_reports(tmp_path)
    assert data["agent"]["judge"] == "openai/judge-model"
    lift = data["skills"][0]["lift"]
    for metric in ("accuracy", "goal_accuracy", "behavior_check"):
        assert lift[metric] is not None and lift[metric]["delta"] == pytest.approx(1.0), (metric, lift[metric])
    assert judge.calls == 3 * 20, "one judge call per metric and rollout"
    assert data["spent"]["input_tokens"] > 0
    agent_calls, judge_calls = agent.calls, judge.calls
    assert main(argv) == 0
    assert (agent.calls, judge.calls) == (agent_calls, judge_calls), "an identical rerun makes no model call at all"
    assert json.loads((tmp_path / "trial.json").read_text())["skills"] == data["skills"]
    # --no-judge: the same rollouts (from the cache), and what only a judge decides is null with its reason.
    assert main([*argv, "--no-judge"]) == 0
    again = json.loads((tmp_path / "trial.json").read_text())["skills"][0]
    assert again["lift"]["accuracy"] is None and "judge" in again["not_applicable"]["accuracy"]
    assert agent.calls == agent_calls


def test_a_judge_named_without_a_model_is_a_config_error_before_anything_runs(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = scripted_server(planted_accuracy(1.0, 0.0))
    skill = repo_with_skill(tmp_path / "repo", cases=3)
    assert main(["trial", str(skill), "--judge-provider", "openai", *run_flags(agent, tmp_path)]) == 2
    assert "judge.model" in capsys.readouterr().err
    # A judge whose key is not set (the scan's rubric may name one): exit 2, with the way out.
    (tmp_path / "repo" / "aces.yml").write_text("judge:\n  provider: anthropic\n  model: claude-haiku-4-5\n")
    assert main(["trial", str(skill), *run_flags(agent, tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "the judge anthropic/claude-haiku-4-5 cannot run" in err and "--no-judge" in err, err
    assert agent.calls == 0


GRADER = textwrap.dedent(
    """
    def grade(document):
        answer = document.get("final_answer") or ""
        return {"metrics": {"house_score": {"value": 1.0 if "42" in answer else 0.25, "reason": "house rule"}}}
    """
)
TASKS = textwrap.dedent(
    """
    import json
    for i in range(4):
        case = {"id": f"task-{i}", "prompt": f"Task {i}: the secret project number?", "expected_output": "42"}
        print(json.dumps(case))
    """
)


def test_the_dataset_loader_merges_eval_md_tasks_and_the_products_grader(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = scripted_server(planted_accuracy(1.0, 0.0))
    repo = tmp_path / "repo"
    skill = repo_with_skill(repo, cases=6)
    (skill / "evals" / "EVAL.md").write_text(
        "# Intent\n\n## Case case-00\n\nPrompt: The author's own question: the secret project number?\n"
        "Expected: 42\nMatch: exact\n",
        encoding="utf-8",
    )
    (repo / "tools").mkdir()
    (repo / "tools" / "cases.py").write_text(TASKS)
    (repo / "house_grading.py").write_text(GRADER)
    monkeypatch.syspath_prepend(str(repo))
    (repo / "aces.yml").write_text(
        "evals:\n"
        f"  tasks: {{command: [{json.dumps(sys.executable)}, tools/cases.py], timeout_s: 60}}\n"
        '  grader: {command: "python:house_grading:grade", metrics: [house_score]}\n'
        "gate:\n  metric: accuracy\n",
        encoding="utf-8",
    )
    assert main(["trial", str(skill), "--runs", "1", *run_flags(server, tmp_path), *reports(tmp_path)]) == 0
    result = valid_reports(tmp_path)["skills"][0]
    assert result["n_cases"] == 6 + 4
    assert "EVAL.md" in result["eval_source"] and "task command" in result["eval_source"]
    prompts = {req.last_user_text for req in server.requests}
    assert any("The author's own question" in p for p in prompts) and not any(
        p.startswith("Question 0:") for p in prompts
    )
    house = result["lift"]["house_score"]
    assert house is not None and house["delta"] == pytest.approx(0.75) and house["n_cases"] == 10


def test_a_bad_eval_md_or_task_output_exits_2_naming_where(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(planted_accuracy(1.0, 0.0))
    repo = tmp_path / "repo"
    skill = repo_with_skill(repo, cases=3)
    (repo / "tools").mkdir()
    (repo / "tools" / "cases.py").write_text('print(\'{"id": "t", "prompt": 5}\')\n')
    (repo / "aces.yml").write_text(f"evals:\n  tasks: {{command: [{json.dumps(sys.executable)}, tools/cases.py]}}\n")
    assert main(["trial", str(skill), *run_flags(server, tmp_path)]) == 2
    assert "/prompt" in capsys.readouterr().err
    (repo / "aces.yml").unlink()
    (skill / "evals" / "EVAL.md").write_text("## Case x\n\nExpected: 42\n", encoding="utf-8")
    assert main(["trial", str(skill), *run_flags(server, tmp_path)]) == 2
    assert "EVAL.md" in capsys.readouterr().err
    assert server.calls == 0


def _crowded(p_alone: float, per_decoy: float) -> Callable[[ScriptedRequest], Reply]:
    """The skill helps less the more decoy skills are listed beside it."""

    def script(req: ScriptedRequest) -> Reply:
        decoys = req.system_text.count("decoy-")
        p = max(0.0, p_alone - per_decoy * decoys) if MARKER in req.all_text else 0.0
        return Text("42" if draw(req) < p else "no idea")

    return script


def test_the_routing_stress_test_reports_lift_and_wall_time_against_visible_decoys(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(_crowded(1.0, 0.3))
    repo = tmp_path / "repo"
    skill = repo_with_skill(repo, cases=10)
    for i in range(3):
        write_skill(repo / "skills", f"decoy-{i}", body=f"# Decoy {i}\n\nHelps with unrelated chore {i}.")
    argv = ["trial", str(skill), "--runs", "1", "--stress", "1,3", "--lift-metric", "accuracy"]
    assert main([*argv, *run_flags(server, tmp_path), *reports(tmp_path)]) == 0
    out = capsys.readouterr().out
    result = valid_reports(tmp_path)["skills"][0]
    levels = result["stress"]
    assert [level["visible_decoys"] for level in levels] == [1, 3]
    one, three = (level["lift"] for level in levels)
    assert one["delta"] > three["delta"], "more visible decoys, less lift"
    assert all(level["with_mean_wall_s"] is not None and level["without_mean_wall_s"] is not None for level in levels)
    assert [c["visible_decoys"] for c in result["contrasts"] if c["kind"] == "stress"] == [1, 3]
    assert "stress, 1 decoys visible" in out and "stress, 3 decoys visible" in out
    assert "wall time per with-run" in out
    markdown = (tmp_path / "trial.md").read_text()
    assert "Routing stress test" in markdown


def test_an_ex_ante_budget_cap_applies_to_both_conditions_and_is_reported_beside_the_lift(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(planted_accuracy(1.0, 0.0))
    skill = repo_with_skill(tmp_path / "repo", cases=10)
    flags = [*run_flags(server, tmp_path), *reports(tmp_path), "--lift-metric", "accuracy"]
    assert main(["trial", str(skill), "--runs", "1", "--quiet", *flags]) == 0
    result = valid_reports(tmp_path)["skills"][0]
    assert result["capped"] is None
    arms = {arm["arm"]: arm for arm in result["cost"]["arms"]}
    with_tokens = (arms["with"]["input_tokens"] + arms["with"]["output_tokens"]) / arms["with"]["rollouts"]
    without_tokens = (arms["without"]["input_tokens"] + arms["without"]["output_tokens"]) / arms["without"]["rollouts"]
    assert with_tokens > without_tokens, "the skill's body is in the with-condition's prompt"
    # A cap between the two: every with-run goes over it and scores 0, every control run stays under.
    cap = int((with_tokens + without_tokens) / 2)
    calls = server.calls
    assert main(["trial", str(skill), "--runs", "1", "--cap-tokens", str(cap), *flags]) == 0, "the gate reads the lift"
    assert server.calls == calls, "the cap is applied to the rollouts in the cache: nothing is rerun"
    result = valid_reports(tmp_path)["skills"][0]
    capped = result["capped"]
    assert (capped["cap_tokens"], capped["capped_with"], capped["capped_control"]) == (cap, 10, 0)
    assert capped["lift"]["delta"] == 0.0 and result["lift"]["accuracy"]["delta"] == 1.0
    assert result["verdict"] == "pass"
    budget = result["estimand_axes"]["budget"]
    assert budget.startswith("Budget: none.") and f"capped ex ante at {cap:,} tokens" in budget
    assert f"under an ex-ante cap of {cap:,} tokens per rollout" in capsys.readouterr().out
    assert main(["trial", str(skill), "--cap-usd", "0.01", *flags]) == 2, "an unpriced model cannot be capped in $"
    (tmp_path / "repo" / "aces.yml").write_text(f"trial:\n  cap_tokens: {cap}\n")
    assert main(["trial", str(skill), "--runs", "1", "--quiet", *flags]) == 0
    assert valid_reports(tmp_path)["skills"][0]["capped"]["cap_tokens"] == cap, "aces.yml trial.cap_tokens"


def test_measure_grades_with_the_judge_aces_yml_names_as_aces_ci_ci_calls_it(
    scripted_server: Server, tmp_path: Path
) -> None:
    """``aces-ci ci`` calls ``measure`` without a judge argument: the judge of aces.yml grades, as in ``trial``."""
    agent = scripted_server(planted_accuracy(1.0, 0.0))
    judge = scripted_server(_judge)
    repo = tmp_path / "repo"
    skill = repo_with_skill(repo, cases=1)
    (skill / "evals" / "evals.json").write_text(_dataset("marker", 6, match="judge"))
    (repo / "aces.yml").write_text(
        f"judge:\n  provider: openai\n  model: judge-model\n  base_url: {judge.openai_url}\n"
    )
    args = build_parser().parse_args(["trial", str(skill), "--runs", "1", *run_flags(agent, tmp_path)])
    project = find_project(skill.resolve(), None)
    options = resolve_run_options(args, project.config)
    common = {
        "options": options,
        "design": TrialDesign(runs=1),
        "gate": Bands(metric="accuracy"),
        "sources": SkillSources(decoys=None, supporting=(), evals=None),
    }
    result = measure([skill], project, **common)
    assert result.judge == "openai/judge-model" and judge.calls > 0
    accuracy = result.skills[0].lift["accuracy"]
    assert accuracy is not None and accuracy.delta == pytest.approx(1.0)
    unjudged = measure([skill], project, **common, judge=None)
    assert unjudged.judge is None and unjudged.skills[0].lift["accuracy"] is None
