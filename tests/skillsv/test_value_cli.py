"""``aces-ci value`` end to end on a planted skill with a Python oracle."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from aces_ci.cli import main
from aces_ci.schemas import validator
from aces_ci.skillsv import SAMPLE_SHARE
from tests.skillsv.helpers import PLANTED_BODY, write_skill

ORACLE = "python:tests.skillsv.planted_oracle"
EXACT = {"ALPHA": 0.2, "BETA": 0.2, "GAMMA": 0.15, "DELTA": 0.15, "HARM": -0.2, "DEAD": 0.0, "TOOLUSE": 0.2}


def _planted(tmp_path: Path, cases: int = 40) -> tuple[Path, Path]:
    skill = write_skill(tmp_path, PLANTED_BODY, {"scripts/tool.sh": "#!/bin/sh\necho TOTALS\n"})
    evals = tmp_path / "cases.json"
    evals.write_text(json.dumps({"evals": [{"id": f"c{i}", "prompt": f"question {i}"} for i in range(cases)]}))
    return skill, evals


def _value(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    out = tmp_path / "value.json"
    out.unlink(missing_ok=True)
    code = main(["value", *args, "--json", str(out), "--cache-dir", str(tmp_path / "cache")])
    return code, json.loads(out.read_text()) if out.exists() else {}


def _by_marker(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {unit["preview"].split(":")[0].lstrip("- "): unit for unit in report["units"] if unit["kind"] == "body"}


def _valid(report: dict[str, Any]) -> None:
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator("skillsv-value").iter_errors(report)]
    assert errors == []


def test_exact_mode_matches_the_closed_form_values(tmp_path: Path) -> None:
    skill, evals = _planted(tmp_path, cases=3)
    code, report = _value(tmp_path, str(skill), "--evals", str(evals), "--oracle", f"{ORACLE}:expected", "--exact")
    assert code == 0
    _valid(report)
    units = _by_marker(report)
    for marker, value in EXACT.items():
        assert units[marker]["net_effect"] == pytest.approx(value, abs=1e-9)
        assert units[marker]["content_value"] == pytest.approx(value, abs=1e-9)
    assert report["method"] == "exact"
    assert report["anchors"]["empty"]["value"] == pytest.approx(0.1)
    assert report["content_lift"]["value"] == pytest.approx(0.7)
    assert report["closure_ratio"]["value"] == pytest.approx(1.0)
    decisions = {marker: unit["decision"] for marker, unit in units.items()}
    # the product is the decision: the harmful rule is cut as harmful, the dead one as negligible, the
    # load-bearing ones are kept, and the report leads with it
    assert decisions["HARM"] == "delete" and decisions["DEAD"] == "negligible"
    assert {decisions[m] for m in ("ALPHA", "BETA", "GAMMA", "DELTA", "TOOLUSE")} == {"keep"}
    assert report["settings"]["margin"] == 0.05
    summary = report["decisions"]
    assert summary["delete"] == [units["HARM"]["id"]] and summary["negligible"] == [units["DEAD"]["id"]]
    assert summary["cut_tokens"] == units["HARM"]["tokens"] + units["DEAD"]["tokens"]
    assert summary["summary"].startswith("cut 2 units")
    # the whole skill's score per case beside the bare agent's: what a unit can be credited with there
    assert [(c["empty"], c["full"]) for c in report["cases"]] == [pytest.approx((0.1, 0.8))] * 3
    script = next(unit for unit in report["units"] if unit["kind"] == "resource")
    assert script["net_effect"] == pytest.approx(0.0, abs=1e-12)
    assert script["decision"] == "keep" and "required by" in script["reason"]
    # kept because deleting it would delete TOOLUSE too, and the two together are worth +0.2
    (requirement,) = report["requirements"]
    assert requirement["unit"] == script["id"] and requirement["removed"] == [script["id"], units["TOOLUSE"]["id"]]
    assert requirement["net_effect"] == pytest.approx(0.2, abs=1e-9) and requirement["ci"] is None
    assert script["reason"].endswith("would cost score (together +0.200)")
    assert report["order_distribution"] == "layer"


def test_the_noisy_estimate_recovers_the_planted_roles_within_its_intervals(tmp_path: Path) -> None:
    skill, evals = _planted(tmp_path, cases=200)
    code, exact = _value(tmp_path, str(skill), "--evals", str(evals), "--oracle", f"{ORACLE}:rate", "--exact")
    assert code == 0
    truth = {marker: unit["net_effect"] for marker, unit in _by_marker(exact).items()}
    assert truth["HARM"] == pytest.approx(-0.1767, abs=1e-3)  # clipping at 0 softens the harm of −0.2
    code, report = _value(
        tmp_path, str(skill), "--evals", str(evals), "--oracle", f"{ORACLE}:noisy", "-K", "64", "--holdout", "0.5"
    )
    assert code == 0
    _valid(report)
    settings = report["settings"]  # the report states how its orders were drawn
    assert (settings["antithetic"], settings["stratified"], settings["window"]) == (True, False, 8)
    units = _by_marker(report)
    for marker in EXACT:
        lo, hi = units[marker]["ci"]
        assert lo <= truth[marker] <= hi, (marker, truth[marker], units[marker]["ci"])
    for positive in ("ALPHA", "BETA", "GAMMA", "DELTA", "TOOLUSE"):
        assert units[positive]["ci"][0] > 0 and units[positive]["decision"] == "keep", positive
    assert units["HARM"]["ci"][1] < 0 and units["HARM"]["decision"] == "delete"
    assert units["DEAD"]["ci"][0] < 0 < units["DEAD"]["ci"][1]
    # the dead unit is not decided at this budget, and says what would decide it; the script TOOLUSE
    # needs is kept with it, whatever its own interval says
    assert units["DEAD"]["decision"] == "unresolved" and units["DEAD"]["scores_to_decide"] > 0
    # the run's precision: the median half-width, and the largest |net effect| it could call negligible
    widths = sorted((u["ci"][1] - u["ci"][0]) / 2 for u in report["units"] if u["kind"] != "trigger")
    resolution = report["decisions"]["resolution"]
    assert resolution["half_width"] == pytest.approx((widths[3] + widths[4]) / 2)  # 8 units: the middle two
    assert resolution["negligible_within"] == pytest.approx(max(0.05 - resolution["half_width"] * 0.8392, 0), abs=1e-3)
    low, high = units["DEAD"]["scores_to_decide_range"]
    assert 0 < low <= units["DEAD"]["scores_to_decide"] and (high is None or high >= units["DEAD"]["scores_to_decide"])
    script = next(unit for unit in report["units"] if unit["kind"] == "resource")
    # kept: deleting it would delete the instruction that needs it, and the two together are not shown to
    # be worth deleting
    assert script["decision"] == "keep"
    assert script["reason"].startswith(f"required by {units['TOOLUSE']['id']}, which carry value; deleting it with")
    assert report["decisions"]["scores_to_decide"] == units["DEAD"]["scores_to_decide"]
    assert min(units[m]["net_effect"] for m in ("ALPHA", "BETA", "TOOLUSE")) > units["DEAD"]["net_effect"]
    assert units["DEAD"]["net_effect"] > units["HARM"]["net_effect"]
    held_out = report["held_out"]
    assert 0.9 <= held_out["closure_ratio"] <= 1.1  # Σφ on panel A against Λ measured on the disjoint panel B
    assert 0.9 <= report["closure_ratio"]["value"] <= 1.1
    # Closure-LOO, the flat baseline, misses the redundant pair and double-counts the AND pair
    loo = {marker: held_out["closure_loo"][unit["id"]] for marker, unit in units.items()}
    assert abs(loo["ALPHA"]) < 0.1 and abs(loo["BETA"]) < 0.1
    assert loo["GAMMA"] + loo["DELTA"] > 0.45
    auc = {curve["method"]: curve["auc"] for curve in held_out["curves"]}
    assert auc["skillsv"] >= auc["random"]
    assert report["rollouts"]["spent"] < report["rollouts"]["full_audit"] / 5


def test_text_report_names_the_units_and_the_cost(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    skill, evals = _planted(tmp_path, cases=16)
    code, _ = _value(tmp_path, str(skill), "--evals", str(evals), "--oracle", f"{ORACLE}:noisy", "-K", "4")
    assert code == 0
    text = capsys.readouterr().out
    assert "SkillSV values of planted" in text and "μ layer" in text and "K=4 b=8 τ=off pooled" in text
    assert text.index("decisions (δ = 0.05): ") < text.index("net effect [95% CI]")  # what to do comes first
    assert "  precision: intervals ±" in text and "a unit is kept or deleted from |net effect| ≈ " in text
    assert "SKILL.md:10" in text
    cuts = [line for line in text.splitlines() if line.startswith("  cut ")]
    verify = "  before cutting: `aces-ci compress` scores the cut skill against the original on held-out cases"
    assert cuts and verify in text  # the planted harmful unit is cut, and the cut points to the check that verifies it
    assert "rollouts paid" in text and "4/4 chains completed" in text
    assert "per case, bare agent → whole skill: c0 " in text
    assert "closure" not in text  # untruncated, Σφ = Λ on the windows by construction: nothing to check
    sums = [line.strip() for line in text.splitlines() if " over " in line and line.startswith("  ")]
    assert any(line.startswith("SKILL.md > Planted > Rules: ") and line.endswith(" over 7 units") for line in sums)
    assert any(line.startswith("scripts/: ") and line.endswith(" over 1 unit") for line in sums), sums


def test_a_budget_stop_reports_values_so_far_and_a_rerun_resumes_for_free(tmp_path: Path) -> None:
    skill, evals = _planted(tmp_path, cases=24)
    common = [str(skill), "--evals", str(evals), "--oracle", f"{ORACLE}:noisy", "-K", "8"]
    code, partial = _value(tmp_path, *common, "--max-evaluations", "700")
    assert code == 0
    _valid(partial)
    assert partial["stopped_by"] == "max_evaluations"
    assert 0 < partial["chains"]["completed"] < 8
    code, full = _value(tmp_path, *common)
    assert code == 0 and full["stopped_by"] is None and full["chains"]["completed"] == 8
    assert full["rollouts"]["spent"] < full["rollouts"]["evaluations"]  # the first run's scores were reused
    width = lambda r, m: _by_marker(r)[m]["ci"][1] - _by_marker(r)[m]["ci"][0]  # noqa: E731
    assert sum(width(partial, m) for m in EXACT) > sum(width(full, m) for m in EXACT)
    code, again = _value(tmp_path, *common)
    assert again["rollouts"]["spent"] == 0
    assert again["units"] == full["units"]


def test_a_killed_valuation_loses_no_score_and_resumes_to_the_same_values(tmp_path: Path) -> None:
    skill, evals = _planted(tmp_path, cases=24)
    log = tmp_path / "calls.log"
    env = {**os.environ, "PLANTED_ORACLE_LOG": str(log), "PYTHONPATH": str(Path(__file__).parents[2])}
    command = [sys.executable, "-m", "aces_ci.cli", "value", str(skill), "--evals", str(evals), "--oracle",
               f"{ORACLE}:noisy", "-K", "6", "--cache-dir", str(tmp_path / "cache")]  # fmt: skip
    process = subprocess.Popen([*command, "--json", str(tmp_path / "killed.json")], env=env, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while (not log.exists() or len(log.read_text().splitlines()) < 400) and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    paid_before = len(log.read_text().splitlines())
    assert not (tmp_path / "killed.json").exists()
    subprocess.run(
        [*command, "--json", str(tmp_path / "resumed.json")],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        timeout=300,
    )
    resumed = json.loads((tmp_path / "resumed.json").read_text())
    paid_total = len(log.read_text().splitlines())
    # at most the batch in flight at the kill was paid twice; nothing stored was paid again
    assert resumed["rollouts"]["spent"] <= resumed["rollouts"]["evaluations"] - paid_before + 200
    log.unlink()
    fresh_cache = tmp_path / "fresh"
    fresh = [*command[:-1], str(fresh_cache), "--json", str(tmp_path / "fresh.json")]
    subprocess.run(fresh, env=env, check=True, stdout=subprocess.DEVNULL, timeout=300)
    assert json.loads((tmp_path / "fresh.json").read_text())["units"] == resumed["units"]
    assert paid_total >= paid_before


def test_without_an_oracle_the_live_agent_is_graded_on_the_evals_file_and_refuses_what_it_cannot_grade(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = _planted(tmp_path, cases=4)  # a panel kept outside the skill, without references
    assert main(["value", str(skill), "--evals", str(evals), "--cache-dir", str(tmp_path / "cache")]) == 2
    err = capsys.readouterr().err
    assert f"{evals.name}:1: case 'c0' cannot be scored on accuracy (accuracy: it has no expected_output)" in err
    assert "--oracle python:MODULE:FUNC" in err
    assert not (tmp_path / "cache").exists()  # refused before any rollout


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("python:nocolon", "expected python:MODULE:FUNC"),
        ("python:no_such_module_here:score", "cannot import 'no_such_module_here'"),
        (f"{ORACLE}:missing", "has no 'missing'"),
        (f"{ORACLE}:CALLS", "is not callable"),
        ("live:claude", "unknown oracle"),
    ],
)
def test_a_bad_oracle_is_a_configuration_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: str, message: str
) -> None:
    skill, evals = _planted(tmp_path, cases=4)
    assert main(["value", str(skill), "--evals", str(evals), "--oracle", spec, "--no-cache"]) == 2
    assert message in capsys.readouterr().err


def test_a_python_oracle_scores_by_itself_so_a_judge_asked_for_is_refused_and_the_report_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = _planted(tmp_path, cases=3)
    common = [str(skill), "--evals", str(evals), "--oracle", f"{ORACLE}:expected", "--exact"]
    assert main(["value", *common, "--judge-model", "judge-x", "--no-cache"]) == 2
    assert "--judge-model: a judge grades the live agent's rollouts" in capsys.readouterr().err
    code, report = _value(tmp_path, *common)
    assert code == 0
    assert report["settings"]["score"] == {
        "metric": None,
        "definition": "the oracle's own number for the rendered skill on the case",
        "judge": None,
        "runs": 1,
    }


def test_an_oracle_that_fails_mid_run_exits_3_and_keeps_what_it_scored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = _planted(tmp_path, cases=8)
    log = tmp_path / "calls.log"
    monkeypatch.setenv("PLANTED_ORACLE_LOG", str(log))
    monkeypatch.setenv("PLANTED_ORACLE_FAIL_AFTER", "150")
    import tests.skillsv.planted_oracle as planted

    monkeypatch.setattr(planted, "CALLS", log)
    code, report = _value(tmp_path, str(skill), "--evals", str(evals), "--oracle", f"{ORACLE}:noisy", "-K", "4")
    assert code == 3
    _valid(report)
    assert report["stopped_by"] == "oracle_error"
    assert "lost its database connection" in report["error"]
    # the failure came before any chain completed: no values, no conclusions, and it says what ran
    assert report["measured"] is False and report["decisions"] is None and report["low_value"] == []
    assert all(unit.get("net_effect") is None for unit in report["units"])
    text = capsys.readouterr().out
    assert "NO VALUES: the valuation stopped (an oracle failure)" in text and "rollouts paid" in text
    assert "decisions" not in text and "content lift" not in text
    stored = (tmp_path / "cache" / "skillsv" / "scores.jsonl").read_text().splitlines()
    assert len(stored) == 150  # every score returned before the failure is on disk
    code, _ = _value(tmp_path, str(skill), "--evals", str(evals), "--oracle", f"{ORACLE}:not_a_number", "-K", "2")
    assert code == 3


def _sixteen_units(tmp_path: Path, cases: int = 40) -> tuple[Path, Path]:
    """The planted skill with eight more rules the oracle ignores: 15 execution units and the trigger."""
    extra = "".join(f"- FILLER{i}: note number {i}.\n" for i in range(8))
    skill = write_skill(tmp_path, PLANTED_BODY + extra, {"scripts/tool.sh": "#!/bin/sh\necho TOTALS\n"})
    evals = tmp_path / "cases.json"
    evals.write_text(json.dumps({"evals": [{"id": f"c{i}", "prompt": f"question {i}"} for i in range(cases)]}))
    return skill, evals


def test_a_small_rollout_budget_still_returns_an_interval_for_every_unit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = _sixteen_units(tmp_path)
    log = tmp_path / "calls.log"
    import tests.skillsv.planted_oracle as planted

    monkeypatch.setattr(planted, "CALLS", log)
    common = [str(skill), "--evals", str(evals), "--oracle", f"{ORACLE}:noisy", "--max-rollouts", "300"]
    # --plan prints the design sized to the budget and what it costs, and scores nothing
    assert main(["value", *common, "--plan", "--cache-dir", str(tmp_path / "cache")]) == 0
    planned = capsys.readouterr().out
    assert not log.exists()
    assert "plan for planted: K=" in planned and "sized to the budget of 300 scores: " in planned
    code, report = _value(tmp_path, *common)
    assert code == 0
    _valid(report)
    text = capsys.readouterr().out
    assert text.startswith(planned.strip())  # the same plan, printed before anything is spent
    assert report["measured"] and report["stopped_by"] is None
    assert report["rollouts"]["spent"] <= 300 and len(log.read_text().splitlines()) <= 300
    assert report["settings"]["fitted_to_budget"] and report["settings"]["budget_scores"] == 300
    valued = [unit for unit in report["units"] if unit["kind"] != "trigger"]
    assert len(valued) == 16 and all(unit["ci"] is not None and unit["ci"][0] < unit["ci"][1] for unit in valued)
    # each unit left unresolved by its own interval says what more evidence would settle it (one left
    # unresolved because a unit that requires it is unresolved waits for that one)
    unresolved = [u for u in valued if u["decision"] == "unresolved" and not u["reason"].startswith("required by")]
    assert unresolved and all(unit["scores_to_decide"] > 0 for unit in unresolved)
    assert report["decisions"]["scores_to_decide"] == max(unit["scores_to_decide"] for unit in unresolved)


def test_a_run_stopped_before_any_chain_completed_reports_nothing_and_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = _planted(tmp_path, cases=16)
    code, report = _value(
        tmp_path, str(skill), "--evals", str(evals), "--oracle", f"{ORACLE}:noisy", "--max-evaluations", "40"
    )
    assert code == 3  # nothing measured: the contract's runtime error
    _valid(report)
    assert report["stopped_by"] == "max_evaluations" and report["chains"]["completed"] == 0
    assert report["measured"] is False and report["decisions"] is None and report["low_value"] == []
    assert report["content_lift"] is None and report["closure_ratio"] is None
    text = capsys.readouterr().out
    assert "NO VALUES: the valuation stopped (--max-evaluations) before any of its 12 chains completed" in text


def test_the_margin_comes_from_aces_yml_and_the_flag_overrides_it(tmp_path: Path) -> None:
    skill, evals = _planted(tmp_path, cases=2)
    (tmp_path / "aces.yml").write_text("value:\n  margin: 0.25\n")
    common = [str(skill), "--evals", str(evals), "--oracle", f"{ORACLE}:expected", "--exact"]
    code, report = _value(tmp_path, *common, "--config", str(tmp_path / "aces.yml"))
    assert code == 0 and report["settings"]["margin"] == 0.25
    # every planted effect (|φ| ≤ 0.2) is inside ±0.25: not worth its context at that margin
    assert {unit["decision"] for unit in _by_marker(report).values()} == {"negligible"}
    code, report = _value(tmp_path, *common, "--config", str(tmp_path / "aces.yml"), "--margin", "0.1")
    assert report["settings"]["margin"] == 0.1 and _by_marker(report)["ALPHA"]["decision"] == "keep"


def test_help_says_95_percent_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["value", "--help"]) == 0
    text = capsys.readouterr().out
    assert "95% interval" in text and "%%" not in text and "--plan" in text and "--margin" in text


def test_the_estimator_comes_from_aces_yml_and_the_flag_overrides_it(tmp_path: Path) -> None:
    """value.estimator: the interaction model by default, the chains alone when aces.yml or --estimator says so."""
    skill, evals = _planted(tmp_path, cases=40)
    common = [str(skill), "--evals", str(evals), "--oracle", f"{ORACLE}:noisy", "-K", "16"]
    code, report = _value(tmp_path, *common)
    assert code == 0 and report["settings"]["estimator"] == "interaction"
    _valid(report)
    (tmp_path / "aces.yml").write_text("value:\n  estimator: chain\n")
    code, chain = _value(tmp_path, *common, "--config", str(tmp_path / "aces.yml"))
    assert code == 0 and chain["settings"]["estimator"] == "chain" and chain["settings"]["fallback"] == []
    # the same scores (served from the cache), read two ways: the net effects differ, the content values do not
    assert chain["rollouts"]["this_run"] == 0
    assert [u.get("net_effect") for u in chain["units"]] != [u.get("net_effect") for u in report["units"]]
    code, again = _value(tmp_path, *common, "--config", str(tmp_path / "aces.yml"), "--estimator", "interaction")
    assert again["settings"]["estimator"] == "interaction"
    assert [u.get("net_effect") for u in again["units"]] == [u.get("net_effect") for u in report["units"]]


def test_adaptive_allocation_from_aces_yml_looks_at_half_the_budget_and_never_spends_more(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """value.adaptive: the default design at half the budget, the rest paid only while a unit is open,
    never over; the report's header names the sampled design either way."""
    skill, evals = _planted(tmp_path, cases=40)
    (tmp_path / "aces.yml").write_text("value:\n  adaptive: true\n")
    common = [str(skill), "--evals", str(evals), "--oracle", f"{ORACLE}:noisy", "--max-rollouts", "2000"]
    code, report = _value(tmp_path, *common, "--config", str(tmp_path / "aces.yml"))
    assert code == 0
    _valid(report)
    settings = report["settings"]
    assert settings["adaptive"] is True and settings["estimator"] == "interaction"
    assert settings["sample_share"] == SAMPLE_SHARE
    spent = report["rollouts"]["spent"]
    assert spent <= 2000
    # either the first look decided every unit (half the budget) or the second half was paid
    undecided = report["decisions"]["unresolved"]
    assert settings["second_look_scores"] > 0 or (spent <= 1000 and not undecided)
    # what the report says was paid is both looks' (a fresh cache: every score a rollout)
    assert report["rollouts"]["valuation"] == report["rollouts"]["evaluations"] > settings["second_look_scores"]
    assert spent == report["rollouts"]["evaluations"] and (settings["second_look_scores"] == 0 or spent > 1000)
    assert 0 <= settings["first_look_decided"] <= len(report["units"]) - 1
    look = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("adaptive allocation: "))
    assert f"{settings['first_look_decided']} of {len(report['units']) - 1} units decided at the first look" in look
    valued = [unit for unit in report["units"] if unit["kind"] != "trigger"]
    assert all(unit["ci"] is not None for unit in valued)
    capsys.readouterr()
    code, fixed = _value(tmp_path, *common)  # without it, the fixed design: no second look
    assert code == 0 and fixed["settings"]["adaptive"] is False and fixed["settings"]["second_look_scores"] == 0
    assert fixed["settings"]["first_look_decided"] is None
    # the pairs the model found: the OR pair overlaps, the AND pair works together, nothing else is named
    ids = {unit["id"]: marker for marker, unit in _by_marker(fixed).items()}
    found = {frozenset(ids.get(u, u) for u in pair["units"]): pair for pair in fixed["interactions"]}
    assert set(found) == {frozenset({"ALPHA", "BETA"}), frozenset({"GAMMA", "DELTA"})}
    assert found[frozenset({"ALPHA", "BETA"})]["ci"][1] < 0 < found[frozenset({"GAMMA", "DELTA"})]["ci"][0]
    text = capsys.readouterr().out
    assert "work together: cutting one takes the pair's share with it" in text and "overlap: either" in text
    assert fixed["settings"]["sample_share"] == SAMPLE_SHARE
    header = next(line for line in text.splitlines() if line.startswith("SkillSV values"))
    assert f"interaction model on sampled half-coalitions ({SAMPLE_SHARE:.0%} of the scores)" in header


def test_the_text_report_shows_hostile_headings_case_ids_and_files_as_inert_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = PLANTED_BODY.replace("## Rules", "## ::stop-commands::tok \x1b[2J").replace(
        "the sky is blue.", "the sky \x1b[31mis\x1b[0m blue."
    )
    skill = write_skill(tmp_path, body, {"scripts/tool.sh": "#!/bin/sh\necho TOTALS\n", "a\n::error::b.md": "note\n"})
    evals = tmp_path / "cases.json"
    cases = [{"id": f"c{i}\n::warning::forged", "prompt": f"question {i}"} for i in range(16)]
    evals.write_text(json.dumps({"evals": cases}))

    code, _ = _value(tmp_path, str(skill), "--evals", str(evals), "--oracle", f"{ORACLE}:noisy", "-K", "4")

    assert code == 0
    out, err = capsys.readouterr()
    assert "\x1b" not in out + err
    assert not [line for line in (out + err).splitlines() if line.lstrip().startswith(("::", "##["))]
    assert "::stop-commands::tok \\x1b[2J" in out  # the heading is shown, as text
    assert "c0\\n::warning::forged" in out and "a\\n::error::b.md" in out
