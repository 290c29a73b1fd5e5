"""``aces-ci value`` on the live agent graded as a trial grades: a dataset from ``--evals``, a judge, mean scores.

Real HTTP to two scripted servers: the planted Acme model of :mod:`tests.skillsv.acme` and a judge.
Every valuation here is exact (``--exact --operators del``), so the values are the planted game's
to 1e-9 and any difference a judge or a metric makes shows as a number, not as noise.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from aces_ci.cli import main
from tests.servers import Reply, ScriptedRequest, ScriptedServer, Text, Tokens
from tests.skillsv.acme import (
    EXACT,
    QUESTIONS,
    acme_skill,
    assert_valid,
    body_units,
    planted_model,
    run_value,
    value_args,
)

EXACTLY = ("--exact", "--operators", "del")
AGENT_USD = 0.00012
"""One agent rollout at the aces.yml price: (100 input + 2·10 output) tokens / 1e6."""


@pytest.fixture
def agent(scripted_server: Callable[..., ScriptedServer], monkeypatch: pytest.MonkeyPatch) -> ScriptedServer:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    return scripted_server(planted_model)


def lenient_judge(request: ScriptedRequest) -> Reply:
    """A judge that finds an answer right when it states the fact at all: the hotline code alone will do."""
    answer = request.last_user_text.split("<final_answer>", 1)[-1]
    right = "ORCA-7" in answer or "45 days" in answer
    usage = Tokens(input=50, output=5)
    if '"goal"' in request.system_text:
        return Text(json.dumps({"goal": "achieved" if right else "not", "reason": "end state"}), usage=usage)
    return Text(json.dumps({"verdict": "correct" if right else "incorrect", "reason": "the fact"}), usage=usage)


def _values(report: dict[str, Any]) -> dict[str, float]:
    return {name: unit["net_effect"] for name, unit in body_units(report).items()}


def _judged_skill(tmp_path: Path, judge: ScriptedServer, judge_price: float = 1.0) -> Path:
    """Acme with one case per question, every reference decided by a judge (top-level ``match: judge``)."""
    skill = acme_skill(tmp_path, cases=2)
    evals = json.loads((skill / "evals" / "evals.json").read_text())
    (skill / "evals" / "evals.json").write_text(json.dumps({**evals, "match": "judge"}))
    (tmp_path / "aces.yml").write_text(
        "run:\n  prices:\n    scripted-model: {input: 1.0, output: 2.0}\n"
        f"    judge-model: {{input: {judge_price}, output: {judge_price}}}\n"
        f"    judge-2: {{input: {judge_price}, output: {judge_price}}}\n"
        f"judge:\n  provider: openai\n  model: judge-model\n  base_url: {judge.openai_url}\n",
        encoding="utf-8",
    )
    return skill


def test_the_judges_verdicts_steer_the_values_a_rerun_asks_nobody_and_a_new_judge_rescores(
    agent: ScriptedServer,
    scripted_server: Callable[..., ScriptedServer],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """By ``contains`` the hotline needs Support AND Dialling (¼ each); this judge accepts the code alone.

    So under the judge Support carries the whole hotline case (½) and Dialling is worth nothing:
    values only a judge's grading can produce.
    """
    judge = scripted_server(lenient_judge)
    skill = _judged_skill(tmp_path, judge)
    args = value_args(skill, agent, tmp_path, *EXACTLY)
    code, report = run_value(args, tmp_path / "judged.json")
    assert code == 0
    assert (
        "score of a case: accuracy: the metric's value per rollout · judge openai/judge-model"
        in capsys.readouterr().out
    )
    assert_valid(report)
    judged = {**EXACT, "Support": 0.5, "Dialling": 0.0}
    assert _values(report) == pytest.approx(judged, abs=1e-9)
    assert body_units(report)["Support"]["decision"] == "keep"
    assert report["settings"]["score"] == {
        "metric": "accuracy",
        "definition": "accuracy: the metric's value per rollout",
        "judge": "openai/judge-model",
        "runs": 1,
    }
    agent_calls, judge_calls = agent.calls, judge.calls
    assert agent_calls > 0 and judge_calls > 0
    # the judge's dollars are in the valuation's cost: more than the agent's rollouts alone
    assert report["rollouts"]["cost_usd"] > agent_calls * AGENT_USD + 1e-9
    # an unchanged rerun: every score is in the store, neither model is asked anything
    code, again = run_value(args, tmp_path / "again.json")
    assert code == 0 and (agent.calls, judge.calls) == (agent_calls, judge_calls)
    assert again["units"] == report["units"] and again["rollouts"]["this_run"] == 0
    # another judge model: every coalition is re-graded (from the cached rollouts: no agent call)
    code, rejudged = run_value([*args, "--judge-model", "judge-2"], tmp_path / "judge-2.json")
    assert code == 0
    assert agent.calls == agent_calls and judge.calls > judge_calls
    assert {request.json["model"] for request in judge.requests[judge_calls:]} == {"judge-2"}
    assert rejudged["oracle"] != report["oracle"] and rejudged["settings"]["score"]["judge"] == "openai/judge-2"
    assert _values(rejudged) == pytest.approx(judged, abs=1e-9)
    # without the judge, a match: judge case cannot be graded at all: refused before anything runs
    rejudged_calls = judge.calls
    assert main([*args, "--no-judge"]) == 2
    assert (agent.calls, judge.calls) == (agent_calls, rejudged_calls)


def test_the_judges_dollars_count_against_the_budget(
    agent: ScriptedServer, scripted_server: Callable[..., ScriptedServer], tmp_path: Path
) -> None:
    """A budget the agent's rollouts alone fit in, but not with the judge's grading: the valuation stops."""
    judge = scripted_server(lenient_judge)
    skill = _judged_skill(tmp_path, judge, judge_price=100.0)
    common = ("-K", "8", "--window", "2")
    code, full = run_value(value_args(skill, agent, tmp_path / "full", *common), tmp_path / "full.json")
    assert code == 0 and full["stopped_by"] is None
    agent_usd = agent.calls * AGENT_USD
    total = full["rollouts"]["cost_usd"]
    assert total > 10 * agent_usd  # the judge costs far more than the agent here
    budget = 2 * agent_usd  # twice what the agent's rollouts cost, well under what the judge adds
    assert budget < total / 2
    capped = value_args(skill, agent, tmp_path / "capped", *common, "--budget-usd", f"{budget:.6f}")
    code, stopped = run_value(capped, tmp_path / "capped.json")
    assert stopped["stopped_by"] == "budget_usd"
    assert code == (0 if stopped["measured"] else 3)  # a stop before any chain completed measured nothing
    assert_valid(stopped)
    assert stopped["rollouts"]["valuation"] < full["rollouts"]["valuation"]


def test_a_dataset_in_another_dialect_and_place_is_the_panel_and_moving_it_re_measures_nothing(
    agent: ScriptedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--evals`` takes what ``trial --evals`` takes: here ACES's YAML dialect, kept outside the skill.

    The skill's own evals.json holds a case that cannot be graded: it is not read. Fixtures
    resolve from the skill's ``evals/``, as a trial stages them.
    """
    skill = acme_skill(tmp_path, cases=2)
    (skill / "evals" / "evals.json").write_text(json.dumps({"evals": [{"id": "open", "prompt": "Any advice?"}]}))
    (skill / "evals" / "files").mkdir()
    (skill / "evals" / "files" / "plan.txt").write_text("paid plan, bought last week\n")
    panels = tmp_path / "panels"
    panels.mkdir()
    (refund_q, refund_a), (hotline_q, hotline_a) = QUESTIONS["refund"], QUESTIONS["hotline"]
    yaml_panel = panels / "acme.yaml"
    yaml_panel.write_text(
        "cases:\n"
        f"  - id: refund\n    question: {refund_q}\n    ground_truth: '{refund_a}'\n    files: [files/plan.txt]\n"
        f"  - id: hotline\n    question: {hotline_q}\n    ground_truth: {hotline_a}\n",
        encoding="utf-8",
    )
    code, report = run_value(value_args(skill, agent, tmp_path, *EXACTLY, "--evals", str(yaml_panel)), tmp_path / "y")
    assert code == 0, capsys.readouterr().err
    assert_valid(report)
    assert report["panel"]["attribution"] == 2
    assert _values(report) == pytest.approx(EXACT, abs=1e-9)
    paid = agent.calls
    # the same cases as a flat JSON list elsewhere: the same tasks, every score served from the store
    flat = tmp_path / "elsewhere" / "cases.json"
    flat.parent.mkdir()
    flat.write_text(
        json.dumps(
            [
                {"id": "refund", "question": refund_q, "ground_truth": refund_a, "files": ["files/plan.txt"]},
                {"id": "hotline", "question": hotline_q, "ground_truth": hotline_a},
            ]
        )
    )
    code, moved = run_value(value_args(skill, agent, tmp_path, *EXACTLY, "--evals", str(flat)), tmp_path / "f")
    assert code == 0 and agent.calls == paid and moved["units"] == report["units"]
    # a fixture that is not there stops the valuation as it stops a trial, naming the file
    yaml_panel.write_text(yaml_panel.read_text().replace("files/plan.txt", "files/gone.txt"))
    assert main(value_args(skill, agent, tmp_path, *EXACTLY, "--evals", str(yaml_panel))) == 2
    assert "gone.txt" in capsys.readouterr().err and agent.calls == paid


def test_composite_and_outcome_are_the_means_of_the_metrics_every_coalition_is_graded_on(
    agent: ScriptedServer, tmp_path: Path
) -> None:
    """One refund case (accuracy by ``contains``) and one hotline case that also asserts its outcome.

    Hotline: accuracy needs Support ∧ Dialling ("extension ORCA-7"), goal accuracy ("answer contains
    ORCA-7", by rule) Support alone; security is 1 on every rollout. Without a judge, the refund
    case's goal accuracy (a judge's comparison) is left out for every coalition. Shapley values, mean
    over the two cases:

    * outcome: refund = acc → Refunds ½, Caution −½; hotline = ½ acc + ½ goal → Support ½·½ + ½·1,
      Dialling ½·½; halved over the panel: Refunds ¼, Caution −¼, Support ⅜, Dialling ⅛.
    * composite: refund = (acc + sec)/2, hotline = (acc + goal + sec)/3 → Refunds ⅛, Caution −⅛,
      Support (½ + 1)/3/2 = ¼, Dialling ½/3/2 = 1/12; V(∅) = (½ + ⅓)/2 (security alone scores).
    """
    skill = acme_skill(tmp_path, cases=2)
    evals = json.loads((skill / "evals" / "evals.json").read_text())
    evals["evals"][1]["assertions"] = ['answer contains "ORCA-7"']
    (skill / "evals" / "evals.json").write_text(json.dumps(evals))
    args = value_args(skill, agent, tmp_path, *EXACTLY)
    code, accuracy = run_value(args, tmp_path / "accuracy.json")
    assert code == 0 and _values(accuracy) == pytest.approx(EXACT, abs=1e-9)
    paid = agent.calls
    expected = {
        "outcome": ({"Refunds": 0.25, "Caution": -0.25, "Support": 0.375, "Dialling": 0.125, "Style": 0.0}, 0.0),
        "composite": ({"Refunds": 0.125, "Caution": -0.125, "Support": 0.25, "Dialling": 1 / 12, "Style": 0.0}, 5 / 12),
    }
    for metric, (values, empty) in expected.items():
        code, report = run_value([*args, "--metric", metric], tmp_path / f"{metric}.json")
        assert code == 0, metric
        assert_valid(report)
        assert _values(report) == pytest.approx(values, abs=1e-9), metric
        assert report["anchors"]["empty"]["value"] == pytest.approx(empty, abs=1e-9), metric
        assert report["settings"]["score"]["metric"] == metric and report["oracle"].split(":")[3] == metric
        assert report["settings"]["score"]["definition"].startswith(f"{metric}: the ")
        assert agent.calls == paid, "another metric re-grades the cached rollouts: no new rollout"
    definition = report["settings"]["score"]["definition"]
    assert "skill_execution and skill_efficiency are left out" in definition
