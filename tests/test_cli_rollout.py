"""``aces-ci rollout`` as a user runs it: flags, aces.yml, output, trajectories and exit codes."""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from aces_ci.agents import render_skill_dir
from aces_ci.app import build_requests
from aces_ci.cli import build_parser, main
from aces_ci.commands._run_options import run_flags
from aces_ci.config import AcesConfig, RunConfig, RunSettings, load_config, resolve_run
from aces_ci.errors import ConfigError
from aces_ci.evals import EvalCase
from aces_ci.models import LOCAL_MODEL_ID
from aces_ci.schemas import validator
from tests.engine.helpers import planted_skill, write_skill
from tests.servers import Fault, ScriptedServer, model_flags

Server = Callable[..., ScriptedServer]
EVALS = json.dumps(
    {
        "skill_name": "marker",
        "evals": [
            {"id": "number", "prompt": "What is the secret project number?", "expected_output": "42"},
            {"id": "again", "prompt": "Remind me of the secret project number.", "expected_output": "42"},
            {"id": "open", "prompt": "Say hello."},
        ],
    }
)


@pytest.fixture
def skill_dir(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()  # the repository root: aces.yml is looked for up to here
    return write_skill(tmp_path / "skills", "marker", evals=EVALS)


@pytest.fixture(autouse=True)
def _quiet_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


def rows(text: str, width: int) -> list[list[str]]:
    """The first ``width`` words of every line: table rows compared without their column padding."""
    return [line.split()[:width] for line in text.splitlines()]


def against(server: ScriptedServer, tmp_path: Path, *flags: str) -> list[str]:
    return [
        *model_flags(server),
        "--cache-dir",
        str(tmp_path / "cache"),
        *flags,
    ]


def test_one_rollout_prints_its_trajectory_and_a_summary(
    scripted_server: Server, skill_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(planted_skill)
    code = main(["rollout", str(skill_dir), "--case", "number", "--trajectory", "-", *against(server, tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0
    trajectory = json.loads(out)
    assert not list(validator("atif").iter_errors(trajectory))
    assert trajectory["extra"]["skill_events"][0]["via"] == "file_read"
    assert ["number", "0", "with", "completed", "final_answer", "1.00"] in rows(err, 6)
    assert "arm with: 1/1 scored rollouts succeeded" in err


def test_a_small_paired_batch_reports_counts_per_arm_and_hits_the_cache_on_rerun(
    scripted_server: Server, skill_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(planted_skill)
    argv = [
        "rollout",
        str(skill_dir),
        "--all-cases",
        "--arm",
        "both",
        "--runs",
        "2",
        "--trajectory",
        str(tmp_path / "out" / "trajectories.jsonl"),
        *against(server, tmp_path),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "arm with: 4/4 scored rollouts succeeded (score ≥ 0.5); 0 infra errors, 2 without a score" in out
    assert "arm without: 0/4 scored rollouts succeeded" in out
    lines = (tmp_path / "out" / "trajectories.jsonl").read_text().splitlines()
    assert len(lines) == 12 and all(json.loads(line)["schema_version"] == "ATIF-v1.7" for line in lines)
    calls = server.calls
    assert main(argv) == 0
    assert server.calls == calls
    rerun = capsys.readouterr().out
    assert [row[-1] for row in rows(rerun, 9) if len(row) == 9 and row[0] in ("number", "again", "open")] == [
        "hit"
    ] * 12 and "spent now: 0 tokens, $0.0000 over 0 model calls" in rerun


def test_an_infra_error_exits_3_and_says_why(
    scripted_server: Server, skill_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(lambda _req: Fault(401, message="invalid x-api-key"))
    assert main(["rollout", str(skill_dir), "--case", "number", *against(server, tmp_path)]) == 3
    out = capsys.readouterr().out
    assert ["number", "0", "with", "infra_error", "model_error", "-"] in rows(out, 6)
    assert "invalid x-api-key" in out


def test_a_persistently_failing_api_trips_the_circuit_breaker_after_a_bounded_number_of_calls(
    scripted_server: Server, skill_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every call answers 500: one retry cycle (6 attempts), then one attempt per rollout until five rollouts in a
    row failed — 10 calls for a batch of 12, where six attempts each would have been 72."""
    server = scripted_server(lambda _req: Fault(500, message="the API is down"))
    argv = ["rollout", str(skill_dir), "--all-cases", "--arm", "both", "--runs", "2", "--concurrency", "1"]
    assert main([*argv, *against(server, tmp_path)]) == 3
    out = capsys.readouterr().out
    assert server.calls == 6 + 4
    stop = "the circuit breaker tripped after 5 consecutive rollouts ended as infrastructure errors (first: "
    assert stop + "retries_exhausted: gave up after 6 attempts" in out
    assert "5 of 12 rollouts finished; not run: " in out and "budget stop" not in out
    assert out.count("infra error: ") == 5


def test_an_unwritable_trajectory_file_still_shows_what_the_rollout_did(
    scripted_server: Server, skill_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(planted_skill)
    (tmp_path / "taken").write_text("a file, not a folder", encoding="utf-8")
    destination = str(tmp_path / "taken" / "trajectory.json")
    argv = ["rollout", str(skill_dir), "--case", "number", "--trajectory", destination, *against(server, tmp_path)]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert ["number", "0", "with", "completed", "final_answer", "1.00"] in rows(out, 6)
    assert "cannot write the trajectory" in err and destination in err


def test_a_budget_cap_is_not_an_infra_error_it_exits_0_and_says_what_ran_and_what_did_not(
    scripted_server: Server, skill_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(planted_skill)
    argv = [
        "rollout",
        str(skill_dir),
        "--case",
        "number",
        "--arm",
        "both",
        "--max-rollouts",
        "1",
        "--concurrency",
        "1",
        *against(server, tmp_path),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert ["number", "0", "with", "completed", "final_answer", "1.00"] in rows(out, 6)
    assert "budget stop (max_rollouts reached): 1 of 2 rollouts finished; not run: case=number arm=without run=0" in out
    assert (
        "arm without: 0/0 scored rollouts succeeded (score ≥ 0.5); 0 infra errors, 0 without a score, 1 not run" in out
    )
    assert server.calls == 2  # the one rollout run: read SKILL.md, then answer


def test_a_budget_stop_beside_an_infra_error_still_exits_3(
    scripted_server: Server, skill_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(lambda _req: Fault(401, message="invalid x-api-key"))
    argv = ["rollout", str(skill_dir), "--case", "number", "--arm", "both", "--max-rollouts", "1"]
    assert main([*argv, "--concurrency", "1", *against(server, tmp_path)]) == 3
    out = capsys.readouterr().out
    assert "infra error: case=number arm=with run=0" in out and "budget stop (max_rollouts reached)" in out


def test_more_runs_after_fewer_with_a_journal_run_only_the_new_replicates(
    scripted_server: Server, skill_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(planted_skill)
    journal = tmp_path / "journal.jsonl"
    argv = ["rollout", str(skill_dir), "--case", "number", "--case", "again", "--arm", "both", "--no-cache"]
    argv += ["--journal", str(journal), *against(server, tmp_path)]
    assert main([*argv, "--runs", "3"]) == 0
    capsys.readouterr()
    calls_for_three = server.calls
    assert main([*argv, "--runs", "5"]) == 0
    out = capsys.readouterr().out
    # with arm: read SKILL.md then answer (2 calls); without: answer (1 call); 2 cases × 2 new replicates
    assert calls_for_three == 2 * 3 * (2 + 1) and server.calls - calls_for_three == 2 * 2 * (2 + 1)
    sources = {
        (row[0], row[1], row[2]): row[-1] for row in rows(out, 9) if len(row) == 9 and row[0] in ("number", "again")
    }
    assert sources == {
        (case, str(run), arm): "resumed" if run < 3 else "miss"
        for case in ("number", "again")
        for run in range(5)
        for arm in ("with", "without")
    }
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    assert len(lines) == 20 and len({line["key"] for line in lines}) == 20
    assert not [e.message for line in lines for e in validator("rollout-store").iter_errors(line)]
    assert sorted((line["rollout"]["case"], line["rollout"]["replicate"]) for line in lines)[-2:] == [
        ("number", 4),
        ("number", 4),
    ]


def test_every_trajectory_line_joins_back_to_its_case_condition_replicate_and_seed(
    scripted_server: Server, skill_dir: Path, tmp_path: Path
) -> None:
    server = scripted_server(planted_skill)
    out = tmp_path / "trajectories.jsonl"
    argv = ["rollout", str(skill_dir), "--case", "number", "--arm", "both", "--runs", "2", "--seed", "11"]
    assert main([*argv, "--trajectory", str(out), *against(server, tmp_path)]) == 0
    first = [json.loads(line) for line in out.read_text().splitlines()]
    assert [t["extra"]["rollout"] for t in first] == [
        {"case": "number", "condition": arm, "replicate": run, "seed": 11, "target": "marker"}
        for run in range(2)
        for arm in ("with", "without")
    ]
    assert len({t["session_id"] for t in first}) == 4 and all(t["trajectory_id"] == t["session_id"] for t in first)
    assert main([*argv, "--trajectory", str(out), *against(server, tmp_path)]) == 0
    again = [json.loads(line) for line in out.read_text().splitlines()]
    assert [t["session_id"] for t in again] == [t["session_id"] for t in first]  # no random ids


def test_the_with_arm_stages_the_skill_and_the_without_arm_names_it_without_staging_it(skill_dir: Path) -> None:
    target = render_skill_dir(skill_dir)
    options = resolved(AcesConfig(), "--runs", "2")
    requests = build_requests(target, [EvalCase("c", "p")], {"c": {}}, ("with", "without"), options)
    assert [(r.condition, r.replicate, [s.name for s in r.skills.skills]) for r in requests] == [
        ("with", 0, ["marker"]),
        ("without", 0, []),
        ("with", 1, ["marker"]),
        ("without", 1, []),
    ]
    assert {r.skills.target for r in requests} == {"marker"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--case", "nope"], "no case with id 'nope'; cases: again, number, open"),
        (["--case", "number", "--provider", "anthropic"], "needs a model id"),
        (["--case", "number", "--provider", "anthropic", "--model", "claude-haiku-4-5"], "ANTHROPIC_API_KEY"),
    ],
)
def test_input_errors_exit_2_with_a_clear_message(
    skill_dir: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rollout", str(skill_dir), *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_missing_skill_or_dataset_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rollout", str(tmp_path / "absent"), "--all-cases"]) == 2
    assert "skill directory not found" in capsys.readouterr().err
    bare = write_skill(tmp_path, "bare")
    assert main(["rollout", str(bare), "--all-cases"]) == 2
    assert "no evaluation dataset" in capsys.readouterr().err


@pytest.mark.parametrize(
    "flags",
    [["--runs", "0"], ["--concurrency", "-1"], ["--timeout", "nan"], ["--budget-usd", "-1"], ["--arm", "neither"], []],
)
def test_bad_flags_exit_2(skill_dir: Path, flags: list[str]) -> None:
    assert main(["rollout", str(skill_dir), *(flags or ["--arm", "with"])]) == 2


def parse(*flags: str) -> argparse.Namespace:
    return build_parser().parse_args(["rollout", "skill", "--all-cases", *flags])


def resolved(config: AcesConfig, *flags: str) -> RunConfig:
    """The run config ``rollout`` resolves from these flags over ``config``."""
    args = parse(*flags)
    return resolve_run(config, run_flags(args, args.cache_dir, args.no_cache))


def test_with_nothing_configured_the_embedded_model_runs_with_preload() -> None:
    options = resolved(AcesConfig())
    assert (options.model.provider, options.model.model) == ("local", LOCAL_MODEL_ID)
    assert options.harness.disclosure == "preload"
    assert resolved(AcesConfig(), "--disclosure", "on-demand").harness.disclosure == "on-demand"


def test_flags_override_aces_yml_which_overrides_defaults(tmp_path: Path) -> None:
    (tmp_path / "aces.yml").write_text(
        "run:\n  provider: openai\n  model: gpt-4o-mini\n  base_url: http://127.0.0.1:9/v1\n  runs: 3\n"
        "  concurrency: 2\n  budget_usd: 1.5\n  cache_dir: .cache\n  timeout_s: 60\n"
    )
    config = load_config(None, tmp_path)
    options = resolved(config)
    assert (options.model.provider, options.model.model, options.model.base_url) == (
        "openai",
        "gpt-4o-mini",
        "http://127.0.0.1:9/v1",
    )
    assert (options.runs, options.concurrency, options.budget.max_usd) == (3, 2, 1.5)
    assert options.cache_dir == tmp_path / ".cache" and options.harness.timeout_s == 60
    assert options.harness.disclosure == "on-demand"
    flagged = resolved(config, "--runs", "5", "--model", "gpt-5", "--no-cache", "--max-wall", "30")
    assert (flagged.runs, flagged.model.model, flagged.cache_dir, flagged.budget.max_wall_s) == (5, "gpt-5", None, 30)


def test_an_unknown_harness_in_aces_yml_names_the_field(tmp_path: Path) -> None:
    config = AcesConfig(path=tmp_path / "aces.yml", run=RunSettings(harness="cursor"), field_lines={"run.harness": 4})
    with pytest.raises(ConfigError, match=r"aces\.yml:4 \(run\.harness\): 'cursor' is not one of"):
        resolved(config)


def test_a_cli_harness_keeps_on_demand_disclosure_by_default() -> None:
    options = resolved(AcesConfig(), "--harness", "codex")
    assert (options.harness.name, options.harness.disclosure) == ("codex", "on-demand")


def test_a_cli_harness_refuses_preload(skill_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["rollout", str(skill_dir), "--case", "number", "--harness", "claude-code", "--disclosure", "preload"]
    assert main(argv) == 2
    assert "only available with the builtin harness" in capsys.readouterr().err


def test_kept_workspaces_are_named_and_left_in_place(
    scripted_server: Server, skill_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(planted_skill)
    assert main(["rollout", str(skill_dir), "--case", "number", "--keep-workspaces", *against(server, tmp_path)]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("workspace kept:"))
    kept = Path(line.rsplit(": ", 1)[1])
    try:
        assert (kept / "work" / ".agents" / "skills" / "marker" / "SKILL.md").is_file()
    finally:
        shutil.rmtree(kept)


def test_a_hostile_case_id_and_error_message_print_as_one_inert_line(
    scripted_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".git").mkdir()
    case = "n\n::warning::forged\x1b[2J"
    evals = json.dumps({"skill_name": "marker", "evals": [{"id": case, "prompt": "p", "expected_output": "42"}]})
    skill = write_skill(tmp_path / "skills", "marker", evals=evals)
    server = scripted_server(lambda _req: Fault(401, message="bad key\n::error::from the API\x1b]0;title\x07"))

    flags = [*model_flags(server, model="m\n::warning::model\x1b[2J"), "--cache-dir", str(tmp_path / "cache")]
    assert main(["rollout", str(skill), "--all-cases", *flags]) == 3

    out, err = capsys.readouterr()
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert not [line for line in (out + err).splitlines() if line.lstrip().startswith(("::", "##["))]
    assert "n\\n::warning::forged\\x1b[2J" in out  # the id is shown, escaped, on its own row's line
    assert "model m\\n::warning::model\\x1b[2J" in out  # aces.yml's (or a flag's) model name too
