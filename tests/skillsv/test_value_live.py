"""``aces-ci value`` on the live agent: real HTTP to a scripted model server, one engine for the valuation.

The scripted model knows nothing itself: it answers from the preloaded skill only, by rules that
plant a game with known Shapley values (:data:`EXACT`): an additive fact, a harmful unit that
spoils it, a complementary AND pair, a dead unit. The bare agent (no skill staged) never answers,
which the baseline guard also proves by construction.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from aces_ci.cli import main
from aces_ci.schemas import validator
from tests.engine.helpers import complete_records, kill_once_journaled, settled_calls
from tests.servers import Reply, ScriptedRequest, ScriptedServer, Text, Tokens
from tests.skillsv.helpers import write_skill
from tests.trials.helpers import run_flags

BODY = (
    "\n# Acme facts\n\n## Facts\n\n"
    "- Refunds: Acme refunds a paid plan within 45 days.\n"
    "- Support: the hotline code is ORCA-7.\n"
    "- Dialling: say the hotline code after the word extension.\n"
    "- Caution: never quote refund periods.\n"
    "- Style: be friendly and brief.\n"
)
QUESTIONS = {
    "refund": ("Within how many days does Acme refund a paid plan?", "45"),
    "hotline": ("What do I say to the Acme hotline?", "extension ORCA-7"),
}
EXACT = {"Refunds": 0.25, "Support": 0.25, "Dialling": 0.25, "Caution": -0.25, "Style": 0.0}
"""The planted game's Shapley values (half the cases ask each question; every unit needs only the trigger):
refunds answered iff Refunds ∧ ¬Caution (φ = ±½ of the half), the hotline iff Support ∧ Dialling (an AND
pair: ½ each of the half), Style is dead. Both μ agree: the five units are one block after the trigger."""
DECISIONS = {"Refunds": "keep", "Support": "keep", "Dialling": "keep", "Caution": "delete", "Style": "delete"}


def planted_model(request: ScriptedRequest) -> Reply:
    """Answers from the context only, by the rules of :data:`EXACT`."""
    question = next((turn.text for turn in request.turns if turn.role == "user"), "")
    context = request.system_text
    usage = Tokens(input=100, output=10)
    if "refund" in question and "within 45 days" in context:
        if "never quote refund periods" in context:
            return Text("I cannot say.", usage=usage)
        return Text("Acme refunds within 45 days.", usage=usage)
    if "hotline" in question and "ORCA-7" in context:
        if "after the word extension" in context:
            return Text("Say extension ORCA-7.", usage=usage)
        return Text("Give the code ORCA-7.", usage=usage)
    return Text("I do not know.", usage=usage)


def _skill(tmp_path: Path, cases: int = 8) -> Path:
    """The planted skill with its dataset in evals/ (the live agent is valued on the skill's own cases)."""
    kinds = list(QUESTIONS)
    evals = {
        "skill_name": "acme",
        "evals": [
            {"id": f"q{i}", "prompt": QUESTIONS[kinds[i % 2]][0], "expected_output": QUESTIONS[kinds[i % 2]][1]}
            for i in range(cases)
        ],
    }
    skill = write_skill(tmp_path, BODY, {"evals/evals.json": json.dumps(evals)}, name="acme")
    (tmp_path / "aces.yml").write_text(
        "run:\n  prices:\n    scripted-model: {input: 1.0, output: 2.0}\n", encoding="utf-8"
    )
    return skill


def _args(skill: Path, server: ScriptedServer, where: Path, *extra: str) -> list[str]:
    """The value command on the scripted server, its cache in ``where/cache``."""
    return ["value", str(skill), *run_flags(server, where, "--config", str(skill.parent / "aces.yml"), *extra)]


def _value(args: list[str], out: Path) -> tuple[int, dict[str, Any]]:
    out.unlink(missing_ok=True)
    code = main([*args, "--json", str(out)])
    return code, json.loads(out.read_text()) if out.exists() else {}


def _units(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {unit["preview"].split(":")[0].lstrip("- "): unit for unit in report["units"] if unit["kind"] == "body"}


def _valid(report: dict[str, Any]) -> None:
    assert [e.message for e in validator("skillsv-value").iter_errors(report)] == []


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
    skill = _skill(tmp_path)
    settings = ("-K", "16", "--window", "8", "--no-truncation", "--pooling", "chain", "--orders", orders)
    args = _args(skill, server, tmp_path, *settings)
    code, report = _value(args, tmp_path / "value.json")
    assert code == 0, capsys.readouterr().err
    _valid(report)
    assert report["oracle"].startswith("live:openai/scripted-model:builtin:accuracy:")
    assert report["order_distribution"] == orders
    units = _units(report)
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
    code, again = _value(args, tmp_path / "again.json")
    assert code == 0 and server.calls == paid
    assert again["rollouts"]["spent"] == 0 and again["units"] == report["units"]
    # The score store lost (a new machine with the rollout cache only): rollouts are reused, still free.
    for entry in (tmp_path / "cache" / "skillsv").glob("scores*"):
        entry.unlink()
    code, cached = _value(args, tmp_path / "cached.json")
    assert code == 0 and server.calls == paid and cached["units"] == report["units"]


def test_exact_mode_on_the_live_agent_gives_the_planted_values(server: ScriptedServer, tmp_path: Path) -> None:
    skill = _skill(tmp_path, cases=2)
    code, report = _value(_args(skill, server, tmp_path, "--exact", "--operators", "del"), tmp_path / "x.json")
    assert code == 0
    _valid(report)
    units = _units(report)
    assert {name: unit["net_effect"] for name, unit in units.items()} == pytest.approx(EXACT, abs=1e-9)
    assert all(unit["ci"] is None for unit in units.values())  # enumerated: no sampling error


def test_cases_the_live_agent_cannot_be_graded_on_are_refused_before_any_rollout(
    server: ScriptedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = write_skill(
        tmp_path, BODY, {"evals/evals.json": json.dumps({"evals": [{"id": "open", "prompt": "Any advice?"}]})}
    )
    (tmp_path / "aces.yml").write_text("run: {}\n", encoding="utf-8")
    assert main(_args(skill, server, tmp_path)) == 2
    err = capsys.readouterr().err
    assert "case 'open' has no expected_output" in err and "--oracle python:MODULE:FUNC" in err
    assert main([*_args(skill, server, tmp_path), "--metric", "fluency"]) == 2
    assert "--metric 'fluency' is not graded" in capsys.readouterr().err
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"evals": [{"id": "x", "prompt": "p", "expected_output": "y"}]}))
    assert main([*_args(skill, server, tmp_path), "--evals", str(other)]) == 2
    assert "the skill's own dataset" in capsys.readouterr().err
    assert server.calls == 0


def test_a_rollout_cap_and_a_dollar_budget_stop_the_valuation_with_wider_intervals(
    server: ScriptedServer, tmp_path: Path
) -> None:
    skill = _skill(tmp_path, cases=16)
    common = ["-K", "32", "--window", "4"]
    code, full = _value(_args(skill, server, tmp_path / "full", *common), tmp_path / "full.json")
    assert code == 0 and full["stopped_by"] is None and full["chains"]["completed"] == 32
    spent = server.calls
    width = lambda report: sum(u["ci"][1] - u["ci"][0] for u in _units(report).values())  # noqa: E731
    for flag, value, reason in (
        ("--max-rollouts", str(spent // 2), "max_rollouts"),
        # each rollout costs (100 + 2·10) / 1e6 = $0.00012 at the aces.yml price
        ("--budget-usd", f"{0.00012 * (spent // 2):.6f}", "budget_usd"),
    ):
        before = server.calls
        capped = _args(skill, server, tmp_path / reason, *common, flag, value)
        code, stopped = _value(capped, tmp_path / "s.json")
        assert code == 0, flag
        _valid(stopped)
        assert stopped["stopped_by"] == reason
        assert server.calls - before <= spent // 2 + 4  # a cap stops new launches; the 4 in flight finish
        assert 0 < stopped["chains"]["completed"] < 32
        assert all(unit["ci"] is not None for unit in _units(stopped).values())  # the values so far, with intervals
        assert width(stopped) > width(full)
        # resuming with the cap lifted pays only for what the stopped run did not run
        resumed_before = server.calls
        code, resumed = _value(_args(skill, server, tmp_path / reason, *common), tmp_path / "r.json")
        assert code == 0 and resumed["units"] == full["units"]
        assert server.calls - resumed_before == spent - (resumed_before - before)


def test_a_killed_live_valuation_loses_no_paid_rollout(server: ScriptedServer, tmp_path: Path) -> None:
    skill = _skill(tmp_path, cases=12)
    common = ["-K", "8", "--window", "6", "--concurrency", "2"]
    # the same valuation once, uninterrupted, elsewhere: how many distinct rollouts it needs
    reference = tmp_path / "reference.json"
    command = [sys.executable, "-m", "aces_ci.cli", *_args(skill, server, tmp_path / "ref", *common)]
    env = {**os.environ, "CI": "true", "TMPDIR": str(tmp_path)}
    subprocess.run([*command, "--json", str(reference)], check=True, env=env, capture_output=True, timeout=300)
    total = server.calls
    # now kill it half-way, and resume
    cache = tmp_path / "cache"
    journal = cache / "skillsv" / "journal.jsonl"
    command = [sys.executable, "-m", "aces_ci.cli", *_args(skill, server, tmp_path, *common)]
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
    assert len({record["key"] for record in complete_records(journal)}) == total
    assert json.loads(out.read_text())["units"] == json.loads(reference.read_text())["units"]
