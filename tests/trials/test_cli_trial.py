"""``aces-ci trial`` as a user runs it, against a scripted OpenAI-compatible server with a planted skill effect."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from aces_ci.cli import main
from aces_ci.schemas import validator
from tests.engine.helpers import MARKER, MARKER_BODY, write_skill
from tests.servers import Reply, ScriptedRequest, ScriptedServer, Text, Tokens
from tests.trials.helpers import (
    cases_json,
    commit,
    draw,
    planted_accuracy,
    repo_with_skill,
    reports,
    run_flags,
    skill_result,
    valid_reports,
)

Server = Callable[..., ScriptedServer]


def test_the_accuracy_interval_contains_the_planted_lift_and_a_rerun_makes_no_model_call(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p_with, p_without = 0.8, 0.4
    server = scripted_server(planted_accuracy(p_with, p_without))
    skill = repo_with_skill(tmp_path / "repo", cases=30)
    argv = ["trial", str(skill), "--runs", "3", "--seed", "7", *run_flags(server, tmp_path), *reports(tmp_path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    data = valid_reports(tmp_path)
    accuracy = data["skills"][0]["lift"]["accuracy"]
    lo, hi = accuracy["ci"]
    assert lo <= p_with - p_without <= hi, accuracy
    assert (accuracy["n_cases"], accuracy["runs_per_arm"]) == (30, 3)
    assert accuracy["with_mean"] == pytest.approx(accuracy["without_mean"] + accuracy["delta"])
    assert data["skills"][0]["lift"]["goal_accuracy"] is None
    trigger = data["skills"][0]["trigger"]  # the statistics' own strata, every count kept
    assert (trigger["cases"], trigger["coupling"], trigger["triggered_runs"] + trigger["skipped_runs"]) == (
        30,
        "independent",
        90,
    )
    assert trigger["cases_always"] + trigger["cases_sometimes"] + trigger["cases_never"] == 30
    flags = [case["with_triggered"] for case in data["skills"][0]["cases"]]  # per case, the runs the strata count
    assert all(len(runs) == 3 for runs in flags)
    assert sum(runs.count(True) for runs in flags) == trigger["triggered_runs"]
    assert sum(all(runs) for runs in flags) == trigger["cases_always"]
    assert "case's mean control score" in trigger["definition"]
    assert "accuracy" in out and "naive (pooled runs)" in out
    outcome = data["skills"][0]["lift"]["outcome"]  # the gated metric: the headline reads its numbers
    low, high = (100 * bound for bound in outcome["ci"])
    counts = f"{round(outcome['without_mean'] * 90)}/90 → {round(outcome['with_mean'] * 90)}/90"
    headline = f"outcome {counts}, {100 * outcome['delta']:+.0f} pp, 95% CI {low:+.0f} … {high:+.0f}, pass; cost with"
    assert headline in out.splitlines()[3], out.splitlines()[:5]
    shares = data["skills"][0]["degradation"]
    surely = f"degraded cases: {shares['confidently_degraded']:.0%} ({shares['confidently_count']}) of 30 cases"
    assert surely in out
    calls = server.calls
    assert calls == 30 * 3 * 2

    assert main(argv) == 0
    assert server.calls == calls, "an identical rerun with the same cache must make no model call"
    again = json.loads((tmp_path / "trial.json").read_text())
    assert again["spent"]["rollouts_run"] == 0 and again["spent"]["rollouts_reused"] == 180
    assert again["skills"] == data["skills"]


def test_two_runs_per_case_say_no_case_can_be_cleared_of_harm_rather_than_possibly_all_degraded(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With two runs a case every per-case interval reaches below zero: the bound is the design's, not the skill's."""
    server = scripted_server(planted_accuracy(0.8, 0.4))
    skill = repo_with_skill(tmp_path / "repo", cases=8)
    argv = ["trial", str(skill), "--runs", "2", "--seed", "3", *run_flags(server, tmp_path), *reports(tmp_path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    shares = valid_reports(tmp_path)["skills"][0]["degradation"]
    assert (shares["confidently_count"], shares["possibly_count"]) == (0, 8)
    assert (
        "degraded cases: 0% (0) of 8 cases surely got worse; with 2 runs per case and condition no case can be cleared "
        "of harm, so the share that got worse is not bounded above yet (more runs per case narrow it)"
    ) in out
    assert "possibly 100%" not in out


def test_a_harmful_skill_fails_the_gate_and_triage_says_the_skill_steered_the_agent(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(planted_accuracy(0.0, 1.0))
    skill = repo_with_skill(tmp_path / "repo", cases=8)
    # The server plants an accuracy effect, so the gate reads accuracy: the composite of this scripted
    # agent has no spread across cases (every metric is the same in every case), and its honest
    # interval at 8 cases is the wide distribution-free bound.
    argv = ["trial", str(skill), "--runs", "2", "--lift-metric", "accuracy", *run_flags(server, tmp_path)]
    assert main([*argv, *reports(tmp_path)]) == 1
    result = skill_result(tmp_path)
    assert result["verdict"] == "fail"
    assert result["lift"]["accuracy"]["ci"][1] <= -0.10
    assert {case["triage"] for case in result["triage"]} == {"steered"}
    evidence = " ".join(result["triage"][0]["evidence"])
    assert "loaded the skill at step" in evidence and "I do not know" in evidence
    junit = (tmp_path / "trial.xml").read_text()
    assert 'type="NegativeSkillLift"' in junit and 'name="ci_high"' in junit
    assert "negative-lift triage" in capsys.readouterr().out


def test_a_skill_folder_named_with_a_newline_cannot_forge_a_line_of_the_text_report(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pull request can name a skill's folder with a newline (git allows it); the name reaches the contrast
    headline, the block's title and the estimand's population. Written raw it would print a line of its
    own at column 0 — a forged verdict in a CI log. Every such field stays on its line, its newline shown as
    ``\\n``."""
    forged = "acme-support: PASS (forged)"
    server = scripted_server(planted_accuracy(0.0, 1.0))
    skill = repo_with_skill(tmp_path / "repo", name=f"marker\n{forged}", cases=8)
    argv = ["trial", str(skill), "--runs", "2", "--lift-metric", "accuracy", *run_flags(server, tmp_path)]
    assert main([*argv, *reports(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"skills/marker\\n{forged} — FAIL" in out and f"in skills/marker\\n{forged}/evals/evals.json" in out
    assert not any(line.startswith(forged) for line in out.splitlines())


def test_an_underpowered_skill_passes_with_a_warning_and_says_what_would_settle_it(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(planted_accuracy(0.7, 0.5))
    skill = repo_with_skill(tmp_path / "repo", cases=4)
    argv = ["trial", str(skill), "--runs", "1", *run_flags(server, tmp_path), *reports(tmp_path)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    result = skill_result(tmp_path)
    assert result["verdict"] == "underpowered"
    assert "underpowered and passes with a warning" in err
    assert result["settle"]["cases_needed"] is None or result["settle"]["cases_needed"] > 4
    assert result["lift"]["accuracy"]["small_n"] is True
    (tmp_path / "repo" / "aces.yml").write_text("gate:\n  underpowered: fail\n")
    assert main(argv) == 1


def _status(repo: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "status", "--porcelain"], check=True, capture_output=True, text=True
    ).stdout


def _git_out(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def test_against_head_1_measures_the_version_lift_without_touching_the_work_tree(
    scripted_server: Server, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    skill = repo_with_skill(repo, cases=8, body="# Answering\n\nBe brief and polite when you answer questions.")
    commit(repo, "first version")
    write_skill(repo / "skills", "marker", body=MARKER_BODY, evals=cases_json("marker", 8))
    commit(repo, "the skill now knows the number")
    (skill / "SKILL.md").write_text((skill / "SKILL.md").read_text() + "\nAn uncommitted line.\n")
    before = _status(repo)
    server = scripted_server(planted_accuracy(1.0, 0.0))
    argv = ["trial", str(skill), "--against", "HEAD~1", "--runs", "1", *run_flags(server, tmp_path), *reports(tmp_path)]
    assert main(argv) == 0
    result = skill_result(tmp_path)
    assert result["against"].startswith("HEAD~1 (")
    head, base = (_git_out(repo, "rev-parse", ref) for ref in ("HEAD", "HEAD~1"))
    assert (result["commit"], result["against_commit"]) == (f"{head}-dirty", base)  # the uncommitted line shows
    assert result["against"] == f"HEAD~1 ({base[:12]})"
    assert "at HEAD~1" in result["contrast"]
    assert result["lift"]["accuracy"]["delta"] == pytest.approx(1.0)
    assert {arm["arm"] for arm in result["cost"]["arms"]} == {"with", "base"}
    assert "as it was at HEAD~1" in result["estimand"]
    after = _status(repo)
    assert after == before, "--against must not touch the user's work tree or index"


def test_against_a_ref_where_the_skill_did_not_exist_is_an_input_error(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "README.md").write_text("x\n")
    commit(repo, "before the skill")
    skill = write_skill(repo / "skills", "marker", evals=cases_json("marker", 3))
    commit(repo, "add the skill")
    server = scripted_server(planted_accuracy(1.0, 0.0))
    assert main(["trial", str(skill), "--against", "HEAD~1", *run_flags(server, tmp_path)]) == 2
    assert "skills/marker does not exist at HEAD~1" in capsys.readouterr().err
    for ref in ("--upload-pack=x", "no-such-branch"):
        assert main(["trial", str(skill), f"--against={ref}", *run_flags(server, tmp_path)]) == 2
    assert server.calls == 0


def test_aa_control_and_metadata_only_split_the_lift(scripted_server: Server, tmp_path: Path) -> None:
    server = scripted_server(planted_accuracy(0.9, 0.2))
    skill = repo_with_skill(tmp_path / "repo", cases=10)
    argv = ["trial", str(skill), "--runs", "2", "--control", "aa", "--metadata-only", "--lift-metric", "accuracy"]
    assert main([*argv, *run_flags(server, tmp_path), *reports(tmp_path)]) == 0
    result = valid_reports(tmp_path)["skills"][0]
    kinds = [c["kind"] for c in result["contrasts"]]
    assert kinds == ["primary", "aa", "presence", "content"]
    noise = result["noise_floor"]
    assert noise["ci"][0] <= 0.0 <= noise["ci"][1]
    assert noise["verdict"] in ("neutral", "underpowered")
    split = result["presence"]
    assert split["metric"] == "accuracy" and split["note"] is None
    assert split["presence"] + split["content"] == pytest.approx(split["total"])
    assert split["presence"] == pytest.approx(0.0, abs=0.25)  # the stub lacks the body, hence the marker
    # On the composite the pairs compare different things (efficiency is a ratio to each pair's partner): said so.
    argv = [*argv[:-2], "--lift-metric", "composite", "--quiet"]
    assert main([*argv, *run_flags(server, tmp_path), *reports(tmp_path)]) == 0
    split = valid_reports(tmp_path)["skills"][0]["presence"]
    assert split["metric"] == "composite"
    if split["note"] is not None:
        assert "the parts miss the total by" in split["note"]
    else:
        assert split["presence"] + split["content"] == pytest.approx(split["total"])
    assert {arm["arm"] for arm in result["cost"]["arms"]} == {"with", "without", "aa", "metadata-only"}


def _routing(p_alone: float, p_among: float, p_without: float) -> Callable[[ScriptedRequest], Reply]:
    """The skill helps less when a decoy is listed beside it: a routing premium of ``p_alone − p_among``."""

    def script(req: ScriptedRequest) -> Reply:
        listed = "decoy-helper" in req.system_text
        p = (p_among if listed else p_alone) if MARKER in req.all_text else p_without
        return Text("42" if draw(req) < p else "no idea")

    return script


def test_group_mode_reports_the_routing_premium_with_its_interval(scripted_server: Server, tmp_path: Path) -> None:
    server = scripted_server(_routing(1.0, 0.5, 0.0))
    skill = repo_with_skill(tmp_path / "repo", cases=10)
    write_skill(tmp_path / "repo" / "skills", "decoy-helper", body="# Decoy\n\nHelps with unrelated chores.")
    argv = ["trial", str(skill), "--mode", "group", "--runs", "2", "--stress", "1", "--lift-metric", "accuracy"]
    assert main([*argv, *run_flags(server, tmp_path), *reports(tmp_path)]) == 0
    result = valid_reports(tmp_path)["skills"][0]
    premium = result["routing_premium"]
    assert premium["visible_decoys"] == 1
    assert premium["delta"] == pytest.approx(premium["isolation"] - premium["group"])
    assert premium["ci"][0] <= 0.5 <= premium["ci"][1] and premium["ci"][0] > 0
    assert result["stress"][0]["visible_decoys"] == 1 and result["stress"][0]["with_mean_wall_s"] is not None
    assert main(["trial", str(skill), "--stress", "3", *run_flags(server, tmp_path)]) == 2


def test_plan_sizes_a_design_from_the_cached_pilot_and_runs_nothing(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(planted_accuracy(0.7, 0.4))
    skill = repo_with_skill(tmp_path / "repo", cases=6)
    flags = run_flags(server, tmp_path)
    assert main(["trial", str(skill), "--plan", *flags]) == 2
    assert "no pilot" in capsys.readouterr().err
    assert main(["trial", str(skill), "--runs", "2", "--quiet", *flags]) in (0, 1)
    calls = server.calls
    plan_json = tmp_path / "plan.json"
    assert (
        main(["trial", str(skill), "--runs", "2", "--plan", "--target-lift", "0.3", "--json", str(plan_json), *flags])
        == 0
    )
    assert server.calls == calls
    out = capsys.readouterr().out
    assert "cases ×" in out and "rollouts" in out and "from the pilot" in out
    plan = json.loads(plan_json.read_text())
    assert [e.message for e in validator("trial-plan").iter_errors(plan)] == []
    design = plan["skills"][0]["designs"][0]
    assert design["rollouts"] == design["cases"] * design["runs"] * 2
    assert design["tokens"] > 0


def test_sequential_stops_a_clear_cut_skill_at_the_first_look(scripted_server: Server, tmp_path: Path) -> None:
    server = scripted_server(planted_accuracy(1.0, 0.0))
    skill = repo_with_skill(tmp_path / "repo", cases=12)
    argv = ["trial", str(skill), "--runs", "3", "--sequential", "--lift-metric", "accuracy"]
    argv += [*run_flags(server, tmp_path), *reports(tmp_path)]
    assert main(argv) == 0
    result = valid_reports(tmp_path)["skills"][0]
    assert result["verdict"] == "pass"
    assert [look["look"] for look in result["sequential"]] == [1]
    assert result["lift"]["accuracy"]["runs_per_arm"] == 1
    assert server.calls == 12 * 2


def test_a_budget_stop_reports_what_ran(scripted_server: Server, tmp_path: Path) -> None:
    server = scripted_server(planted_accuracy(1.0, 0.0))
    skill = repo_with_skill(tmp_path / "repo", cases=10)
    argv = ["trial", str(skill), "--runs", "1", "--max-rollouts", "8", *run_flags(server, tmp_path), *reports(tmp_path)]
    assert main(argv) == 0
    data = valid_reports(tmp_path)
    assert data["stopped_by"] == "max_rollouts"
    assert data["skills"][0]["not_run"] == 12 and data["skills"][0]["rollouts"] == 8
    assert data["skills"][0]["lift"]["accuracy"]["n_cases"] == 4  # pairs ran side by side: 4 whole pairs


def test_a_copy_of_the_skill_in_the_baseline_is_refused_before_anything_runs(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(planted_accuracy(1.0, 0.0))
    skill = repo_with_skill(tmp_path / "repo", cases=3)
    copy = write_skill(tmp_path / "repo" / "other", "marker-copy")
    assert main(["trial", str(skill), "--support", str(copy), *run_flags(server, tmp_path)]) == 2
    assert "baseline" in capsys.readouterr().err
    assert server.calls == 0


def test_bad_inputs_exit_2_naming_what_to_fix(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(planted_accuracy(1.0, 0.0))
    flags = run_flags(server, tmp_path)
    repo = tmp_path / "repo"
    skill = repo_with_skill(repo, cases=3)
    bare = write_skill(repo / "skills", "no-evals")
    assert main(["trial", str(bare), *flags]) == 2
    assert "no evaluation cases" in capsys.readouterr().err
    assert main(["trial", str(skill), str(bare), "--evals", str(skill / "evals" / "evals.json"), *flags]) == 2
    assert main(["trial", str(skill), "--evals", str(tmp_path / "missing.json"), *flags]) == 2
    broken = tmp_path / "broken.json"
    broken.write_text('{"skill_name": "marker", "evals": [{"id": "a", "prompt": 3}]}')
    assert main(["trial", str(skill), "--evals", str(broken), *flags]) == 2
    err = capsys.readouterr().err
    assert "broken.json:1 (/evals/0/prompt)" in err, err
    (repo / "aces.yml").write_text("gate:\n  pass_band: 0.05\n  fail_band: 0.2\n")
    assert main(["trial", str(skill), *flags]) == 2
    assert "aces.yml:3" in capsys.readouterr().err
    (repo / "aces.yml").write_text("trial:\n  coupling: paired\n")
    assert main(["trial", str(skill), *flags]) == 2
    assert "trial.coupling" in capsys.readouterr().err
    assert server.calls == 0


def test_shared_seed_coupling_gives_both_conditions_of_a_run_one_seed(scripted_server: Server, tmp_path: Path) -> None:
    server = scripted_server(planted_accuracy(0.8, 0.3))
    skill = repo_with_skill(tmp_path / "repo", cases=3)
    argv = ["trial", str(skill), "--runs", "2", "--coupling", "shared-seed", *run_flags(server, tmp_path)]
    assert main([*argv, *reports(tmp_path)]) in (0, 1)
    by_prompt: dict[tuple[str, object], int] = {}
    for req in server.requests:
        key = (req.last_user_text, req.json.get("seed"))
        by_prompt[key] = by_prompt.get(key, 0) + 1
    assert set(by_prompt.values()) == {2}, "run r of with and without must share their sampling seed"
    assert json.loads((tmp_path / "trial.json").read_text())["protocol"]["coupling"] == "shared-seed"


def test_two_skills_get_a_repository_summary(scripted_server: Server, tmp_path: Path) -> None:
    server = scripted_server(planted_accuracy(0.9, 0.1))
    repo = tmp_path / "repo"
    first = repo_with_skill(repo, cases=6)
    second = write_skill(repo / "skills", "marker-two", evals=cases_json("marker-two", 6))
    argv = ["trial", str(first), str(second), "--runs", "1", *run_flags(server, tmp_path), *reports(tmp_path)]
    assert main(argv) == 0
    data = valid_reports(tmp_path)
    assert [s["skill"] for s in data["skills"]] == ["skills/marker", "skills/marker-two"]
    assert data["repository"]["n_skills"] == 2 and data["repository"]["ci"] is not None
    assert (tmp_path / "trial.md").read_text().startswith("<!-- aces-ci:trial -->")


def test_plan_reads_the_noise_floor_of_an_aa_control(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(planted_accuracy(0.6, 0.3))
    skill = repo_with_skill(tmp_path / "repo", cases=5)
    flags = [*run_flags(server, tmp_path), "--runs", "2", "--control", "aa"]
    main(["trial", str(skill), "--quiet", *flags])
    capsys.readouterr()
    calls = server.calls
    assert main(["trial", str(skill), "--plan", *flags]) == 0
    out = capsys.readouterr().out
    assert "from the A/A control" in out and "case-to-case spread of the lift from the pilot" in out
    assert server.calls == calls


def test_on_a_model_that_costs_nothing_the_report_states_the_skills_cost_in_tokens(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def script(req: ScriptedRequest) -> Reply:  # the skill in context: 2.6 times the tokens, and the answer
        if MARKER in req.all_text:
            return Text("42", usage=Tokens(input=2400, output=200))
        return Text("I do not know", usage=Tokens(input=900, output=100))

    server = scripted_server(script)
    skill = repo_with_skill(tmp_path / "repo", cases=6)
    (tmp_path / "repo" / "aces.yml").write_text("run:\n  prices:\n    scripted-model: {input: 0, output: 0}\n")
    argv = ["trial", str(skill), "--runs", "1", *run_flags(server, tmp_path), *reports(tmp_path)]

    assert main(argv) == 0

    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if "cost (the design's" in line)
    assert "no extra cost" not in line
    assert "lift per dollar: not defined, the model costs $0 per rollout" in line
    assert "with 2,600 tokens per rollout vs without 1,000 (2.60× as many)" in line
    per_dollar = valid_reports(tmp_path)["skills"][0]["cost"]["lift_per_dollar"]
    assert per_dollar["lift_per_extra_usd"] is None and "2.60× as many" in per_dollar["note"]
    assert "2.60× as many" in (tmp_path / "trial.md").read_text()


def test_a_typo_in_an_evals_key_exits_2_naming_line_pointer_and_suggestion(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(planted_accuracy(1.0, 0.0))
    skill = repo_with_skill(tmp_path / "repo", cases=7)
    evals = skill / "evals" / "evals.json"
    document = json.loads(evals.read_text())
    document["evals"][6]["expected_outptu"] = document["evals"][6].pop("expected_output")
    evals.write_text(json.dumps(document, indent=2))
    line = evals.read_text().splitlines().index('      "expected_outptu": "42"') + 1
    assert main(["trial", str(skill), *run_flags(server, tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"evals.json:{line}" in err and "/evals/6/expected_outptu" in err
    assert "did you mean 'expected_output'?" in err
    assert server.calls == 0, "nothing is paid for before the dataset is right"


def test_the_text_report_lists_each_case_with_both_answers_cut_and_escaped_as_the_comment_does(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a reviewer scans for, in the terminal too: the prompt, the answer with and without the skill, the runs'
    scores. A model's answer is data: its escape sequences are shown escaped, its newlines cannot break the table,
    and a long answer is cut as the comment cuts it."""
    tail = "x" * 400

    def script(req: ScriptedRequest) -> Reply:
        if MARKER in req.all_text:
            return Text("42")
        return Text(f"I do not know\n\x1b[2J{tail}")

    server = scripted_server(script)
    skill = repo_with_skill(tmp_path / "repo", cases=4)
    argv = ["trial", str(skill), "--runs", "2", "--seed", "5", *run_flags(server, tmp_path), *reports(tmp_path)]
    main(argv)
    out = capsys.readouterr().out
    data = valid_reports(tmp_path)
    lines = out.splitlines()
    start = lines.index("  per case (outcome in each run; the first run's answer):")
    header, rule, *rows = lines[start + 1 : start + 7]
    assert header.split()[:2] == ["Case", "Prompt"] and set(rule.strip()) <= {"-", " "}
    for case, row in zip(data["skills"][0]["cases"], rows[:4], strict=True):
        assert row.strip().startswith(case["case"]) and case["prompt"] in row
        assert "2/2 · 42" in row and "0/2 · I do not know \\x1b[2Jxxx" in row
    assert "\x1b" not in out, "an escape sequence from a model never reaches the terminal raw"
    assert tail not in out and "x" * 100 in out, "answers are cut, never dropped"
