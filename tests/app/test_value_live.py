"""``aces-ci value`` on the live agent: real HTTP to a scripted model server, one engine for the valuation.

The model is the planted Acme game of :mod:`tests.skillsv.acme` (known Shapley values); the bare
agent (no skill staged) never answers, which the baseline guard also proves by construction.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from aces_ci.cli import main
from tests.engine.helpers import complete_records, kill_once_journaled, settled_calls
from tests.servers import Hang, Reply, ScriptedRequest, ScriptedServer
from tests.skillsv.acme import (
    BODY,
    DECISIONS,
    EXACT,
    acme_skill,
    assert_valid,
    body_units,
    planted_model,
    run_value,
    value_args,
)
from tests.skillsv.helpers import write_skill


@pytest.fixture
def server(scripted_server: Callable[..., ScriptedServer], monkeypatch: pytest.MonkeyPatch) -> ScriptedServer:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    return scripted_server(planted_model)


@pytest.mark.parametrize("orders", ["layer", "uniform"])
def test_the_live_valuation_recovers_the_planted_game_and_an_unchanged_rerun_is_free(
    orders: str, server: ScriptedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A noise-free game whose variance is all in the orders, so the estimator is set for that.

    The paper's truncation (τ) is off: after Refunds the prefix already scores V(N), so a truncated
    chain never sees Caution cancel it and values Caution 0 with a zero-width interval. The
    chain estimator, not the pooled one: pooling lends every unit the other units' interaction
    residuals, which on a noise-free game only widens the intervals (see BENCHMARKS.md).
    """
    skill = acme_skill(tmp_path)
    settings = ("-K", "16", "--window", "8", "--pooling", "chain", "--orders", orders)
    args = value_args(skill, server, tmp_path, *settings)
    code, report = run_value(args, tmp_path / "value.json")
    assert code == 0, capsys.readouterr().err
    assert_valid(report)
    assert report["oracle"].startswith("live:openai/scripted-model:builtin:accuracy:")
    assert report["order_distribution"] == orders
    units = body_units(report)
    assert set(units) == set(EXACT)
    for name, exact in EXACT.items():
        lo, hi = units[name]["ci"]
        assert lo - 1e-9 <= exact <= hi + 1e-9, (name, exact, units[name]["ci"])
        assert units[name]["net_effect"] == pytest.approx(exact, abs=0.1), name
        assert units[name]["decision"] == DECISIONS[name], name
    assert report["anchors"]["empty"]["value"] == 0.0  # the bare agent knows no fact
    assert report["anchors"]["full"]["value"] == pytest.approx(0.5)  # the caution unit costs every refund
    assert report["content_lift"]["value"] == pytest.approx(0.5)
    assert report["closure_ratio"]["value"] == pytest.approx(1.0, abs=0.1)
    paid = report["rollouts"]["valuation"]
    assert paid == server.calls > 0  # one model call per rollout (preload: no tools)
    assert report["rollouts"]["cost_usd"] > 0
    # An unchanged rerun: every score is in the store, no rollout is run, no model is called.
    code, again = run_value(args, tmp_path / "again.json")
    assert code == 0 and server.calls == paid
    assert again["rollouts"]["this_run"] == 0 and again["units"] == report["units"]
    assert again["rollouts"]["spent"] == again["rollouts"]["earlier_sessions"] == paid, "what every session paid"
    # The score store lost (a new machine with the rollout cache only): rollouts are reused, still free.
    for entry in (tmp_path / "cache" / "skillsv").glob("scores*"):
        entry.unlink()
    code, cached = run_value(args, tmp_path / "cached.json")
    assert code == 0 and server.calls == paid and cached["units"] == report["units"]
    assert (cached["rollouts"]["this_run"], cached["rollouts"]["reused"]) == (0, paid), "every rollout from the journal"


def test_exact_mode_on_the_live_agent_gives_the_planted_values(server: ScriptedServer, tmp_path: Path) -> None:
    skill = acme_skill(tmp_path, cases=2)
    code, report = run_value(value_args(skill, server, tmp_path, "--exact", "--operators", "del"), tmp_path / "x.json")
    assert code == 0
    assert_valid(report)
    units = body_units(report)
    assert {name: unit["net_effect"] for name, unit in units.items()} == pytest.approx(EXACT, abs=1e-9)
    assert all(unit["ci"] is None for unit in units.values())  # enumerated: no sampling error


def test_cases_the_live_agent_cannot_be_scored_on_are_refused_before_any_rollout(
    server: ScriptedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [
        {"id": "open", "prompt": "Any advice?"},
        {"id": "judged", "prompt": "Refunds?", "expected_output": "45", "match": "judge"},
    ]
    skill = write_skill(tmp_path, BODY, {"evals/evals.json": json.dumps({"evals": cases})})
    (tmp_path / "aces.yml").write_text("run: {}\n", encoding="utf-8")

    def refused(*extra: str) -> str:
        assert main([*value_args(skill, server, tmp_path), *extra]) == 2, extra
        return capsys.readouterr().err

    err = refused()
    assert "evals/evals.json:1: case 'open' cannot be scored on accuracy (accuracy: it has no expected_output)" in err
    assert "--oracle python:MODULE:FUNC" in err
    err = refused("--metric", "fluency")
    assert "--metric 'fluency' is not graded on this dataset" in err and "composite, outcome" in err
    for metric, why in (
        ("skill_efficiency", "compares a rollout with its paired control"),
        ("skill_execution", "not graded on the bare agent"),
    ):
        assert f"--metric {metric!r} cannot score a coalition: skill " in (err := refused("--metric", metric))
        assert why in err
    # outcome: neither accuracy nor goal accuracy can grade the open case
    err = refused("--metric", "outcome")
    assert (
        "case 'open' cannot be scored on outcome (accuracy: it has no expected_output; goal_accuracy: it has no" in err
    )
    # a case only a judge grades, and no judge: the way out is named
    (skill / "evals" / "evals.json").write_text(json.dumps({"evals": cases[1:]}))
    err = refused()
    assert "case 'judged' cannot be scored on accuracy (accuracy: it is graded by a judge (match: judge)" in err
    assert "configure a judge (aces.yml judge:, --judge-provider/--judge-model)" in err
    # a judge that cannot run (no model id) stops before anything runs, as in a trial
    assert "judge.model" in refused("--judge-provider", "openai")
    # --evals: a file that is not there, a file with a problem (its line and field named)
    assert "no such evals file" in refused("--evals", str(tmp_path / "missing.json"))
    broken = tmp_path / "broken.json"
    broken.write_text('{"evals": [\n  {"id": "a", "prompt": "p", "expected_output": 7}\n]}\n')
    err = refused("--evals", str(broken))
    assert "broken.json:2" in err and "expected_output" in err, err
    assert server.calls == 0
    assert not (tmp_path / "cache" / "skillsv").exists()


def test_a_dollar_budget_stops_the_valuation_and_a_rollout_cap_sizes_it_down(
    server: ScriptedServer, tmp_path: Path
) -> None:
    skill = acme_skill(tmp_path, cases=16)
    common = ["-K", "32", "--window", "4"]
    code, full = run_value(value_args(skill, server, tmp_path / "full", *common), tmp_path / "full.json")
    assert code == 0 and full["stopped_by"] is None and full["chains"]["completed"] == 32
    spent = server.calls
    width = lambda report: sum(u["ci"][1] - u["ci"][0] for u in body_units(report).values())  # noqa: E731
    # each rollout costs (100 + 2·10) / 1e6 = $0.00012 at the aces.yml price: dollars are not known in
    # advance, so a dollar budget stops the run part-way
    before = server.calls
    capped = value_args(skill, server, tmp_path / "usd", *common, "--budget-usd", f"{0.00012 * (spent // 2):.6f}")
    code, stopped = run_value(capped, tmp_path / "s.json")
    assert code == 0
    assert_valid(stopped)
    assert stopped["stopped_by"] == "budget_usd"
    assert server.calls - before <= spent // 2 + 4  # a cap stops new launches; the 4 in flight finish
    assert 0 < stopped["chains"]["completed"] < 32
    assert all(unit["ci"] is not None for unit in body_units(stopped).values())  # the values so far, with intervals
    assert width(stopped) > width(full)
    # resuming with the cap lifted pays only for what the stopped run did not run
    resumed_before = server.calls
    code, resumed = run_value(value_args(skill, server, tmp_path / "usd", *common), tmp_path / "r.json")
    assert code == 0 and resumed["units"] == full["units"]
    assert server.calls - resumed_before == spent - (resumed_before - before)
    # a rollout cap is known in advance: the design is sized to it and finishes, wider, within it
    before = server.calls
    capped = value_args(skill, server, tmp_path / "rollouts", *common, "--max-rollouts", str(spent // 4))
    code, sized = run_value(capped, tmp_path / "m.json")
    assert code == 0 and sized["stopped_by"] is None and sized["measured"]
    assert_valid(sized)
    assert sized["settings"]["fitted_to_budget"] and server.calls - before <= spent // 4
    assert all(unit["ci"] is not None for unit in body_units(sized).values())
    assert width(sized) > width(full)


def test_a_killed_live_valuation_loses_no_paid_rollout(server: ScriptedServer, tmp_path: Path) -> None:
    skill = acme_skill(tmp_path, cases=12)
    common = ["-K", "8", "--window", "6", "--concurrency", "2"]
    # the same valuation once, uninterrupted, elsewhere: how many distinct rollouts it needs
    reference = tmp_path / "reference.json"
    command = [sys.executable, "-m", "aces_ci.cli", *value_args(skill, server, tmp_path / "ref", *common)]
    env = {**os.environ, "CI": "true", "TMPDIR": str(tmp_path)}
    subprocess.run([*command, "--json", str(reference)], check=True, env=env, capture_output=True, timeout=300)
    total = server.calls
    # now kill it half-way, and resume
    cache = tmp_path / "cache"
    journal = cache / "skillsv" / "journal.jsonl"
    command = [sys.executable, "-m", "aces_ci.cli", *value_args(skill, server, tmp_path, *common)]
    first = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finished = kill_once_journaled(first, journal, total // 2)
    paid_before_kill = settled_calls(server) - total
    assert total // 2 <= len(finished) < total
    assert paid_before_kill >= len(finished)  # rollouts in flight at the kill were paid but not journaled
    out = tmp_path / "resumed.json"
    second = subprocess.run(
        [*command, "--json", str(out)], check=False, env=env, capture_output=True, text=True, timeout=300
    )
    assert second.returncode == 0, second.stderr
    assert server.calls - total - paid_before_kill == total - len(finished)  # only what the kill lost is re-run
    # The accounting counts both sessions: the killed one's journaled rollouts and what the resumed one paid.
    rollouts = json.loads(out.read_text())["rollouts"]
    assert rollouts["this_run"] == total - len(finished)
    assert rollouts["earlier_sessions"] == len(finished)
    assert rollouts["spent"] == total, "both sessions, as journaled (calls in flight at the kill left no line)"
    assert len({record["key"] for record in complete_records(journal)}) == total
    assert json.loads(out.read_text())["units"] == json.loads(reference.read_text())["units"]


def test_a_rollout_that_times_out_is_retried_and_the_valuation_finishes_with_values(
    scripted_server: Callable[..., ScriptedServer], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = {"n": 0}

    def hangs_once(request: ScriptedRequest) -> Reply:
        calls["n"] += 1
        return Hang(120) if calls["n"] == 3 else planted_model(request)

    server = scripted_server(hangs_once)
    skill = acme_skill(tmp_path, cases=8)
    args = value_args(skill, server, tmp_path / "run", "-K", "4", "--window", "4", "--timeout", "5")
    code, report = run_value(args, tmp_path / "value.json")
    assert code == 0 and report["stopped_by"] is None and report["measured"]
    assert_valid(report)
    assert "timeout" in (report["failure"] or "")  # said, not hidden
    # only the first attempt hung: its retry scored it, so no chain was lost
    assert report["chains"]["completed"] == 4 and report["chains"]["left_out"] == 0
    assert all(unit["ci"] is not None for unit in body_units(report).values())
    assert "a failed score was retried and then scored" in capsys.readouterr().out
