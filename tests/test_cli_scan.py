"""``aces-ci scan`` and ``aces-ci rules`` end to end: exit codes, reports, baselines, flags."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from aces_ci.cli import main

CLEAN_SKILL = """\
---
name: csv-summary
description: Summarises a CSV file's columns and row count. Use when the user asks what is in a CSV file.
---

# CSV summary

Read the file the user names and report its columns and row count.

## Steps

1. Open the file and read the header row.
2. Count the data rows.
3. Reply with one line per column and the total row count.
"""
CLEAN_EVALS = {
    "skill_name": "csv-summary",
    "evals": [
        {"id": 1, "prompt": "What columns does orders.csv have?", "expected_output": "id, total"},
        {"id": 2, "prompt": "How many rows are in orders.csv?", "expected_output": "3"},
        {"id": 3, "prompt": "Summarise orders.csv for me.", "expected_output": "id, total; 3 rows"},
        {"id": 4, "prompt": "What is the capital of France?", "expected_output": "Paris", "should_trigger": False},
    ],
}
BROKEN_SKILL = (
    "---\nname: Broken_Skill\ndescription: Does things.\n---\n\n# Broken\n\nSee [the guide](references/guide.md).\n"
)


def repo(tmp_path: Path, *, broken: bool = False) -> Path:
    clean = tmp_path / "skills" / "csv-summary"
    (clean / "evals").mkdir(parents=True)
    (clean / "SKILL.md").write_text(CLEAN_SKILL)
    (clean / "evals" / "evals.json").write_text(json.dumps(CLEAN_EVALS))
    if broken:
        other = tmp_path / "skills" / "broken-skill"
        other.mkdir(parents=True)
        (other / "SKILL.md").write_text(BROKEN_SKILL)
    return tmp_path


def test_a_clean_repo_passes_with_exit_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(repo(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "skills/csv-summary: PASS  structural score 100/100 (minimum 70)" in out
    assert "Verdict: PASS" in out


def test_a_failing_skill_exits_1_and_names_the_problems(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(repo(tmp_path, broken=True))]) == 1
    out = capsys.readouterr().out
    assert "skills/broken-skill [Broken_Skill]: FAIL" in out
    assert "skills/broken-skill/SKILL.md:2: error SPEC002" in out
    assert "skills/broken-skill/SKILL.md:8: error REF001" in out


def test_a_path_to_a_skill_md_scans_that_skill_under_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``scan skills/x/SKILL.md`` (or its folder) with no aces.yml above: the skill is the scan's root, and
    its heading and JUnit suite carry its name, never "." (the parent directory as the scan saw it)."""
    root = repo(tmp_path / "repo", broken=True)
    junit = tmp_path / "scan.junit"
    assert main(["scan", str(root / "skills" / "broken-skill" / "SKILL.md"), "--junit", str(junit)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("Broken_Skill: FAIL"), out
    assert "SKILL.md:8: error REF001" in out
    assert "csv-summary" not in out, "only the skill the path names is scanned"
    assert [suite.get("name") for suite in ET.fromstring(junit.read_text())] == ["Broken_Skill"]
    assert main(["scan", str(root / "skills" / "csv-summary")]) == 0
    assert capsys.readouterr().out.startswith("csv-summary: PASS")


def test_a_path_to_a_skill_md_under_an_aces_yml_keeps_the_repository_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = repo(tmp_path, broken=True)
    (root / ".git").mkdir()  # the repository root: aces.yml is looked for up to here
    (root / "aces.yml").write_text("scan:\n  min_score: 70\n")
    assert main(["scan", str(root / "skills" / "broken-skill" / "SKILL.md")]) == 1
    out = capsys.readouterr().out
    assert out.startswith("skills/broken-skill [Broken_Skill]: FAIL"), out
    assert "csv-summary" not in out


def test_quiet_prints_nothing_and_still_gates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", "--quiet", str(repo(tmp_path, broken=True))]) == 1
    assert capsys.readouterr().out == ""


def test_every_report_is_written(tmp_path: Path) -> None:
    root = repo(tmp_path / "repo", broken=True)
    out = tmp_path / "out"
    paths = {kind: out / f"scan.{kind}" for kind in ("json", "junit", "sarif", "markdown")}
    argv = ["scan", str(root), "-q"] + [arg for kind, path in paths.items() for arg in (f"--{kind}", str(path))]
    assert main(argv) == 1
    result = json.loads(paths["json"].read_text())
    assert [s["skill"] for s in result["skills"]] == ["skills/broken-skill", "skills/csv-summary"]
    sarif = json.loads(paths["sarif"].read_text())
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} >= {"SPEC002", "REF001"}
    assert "<testsuites" in paths["junit"].read_text()
    assert "broken-skill" in paths["markdown"].read_text()


def test_flags_override_the_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = repo(tmp_path, broken=True)
    (root / "aces.yml").write_text(
        "scan:\n  min_score: 10\n  rules:\n    SPEC002: warning\n    SPEC003: warning\n    REF001: off\n"
    )
    assert main(["scan", str(root), "-q"]) == 0, "downgraded and disabled: only warnings remain"
    assert main(["scan", str(root), "-q", "--min-score", "100"]) == 1
    assert main(["scan", str(root), "--profile", "strict", "--min-score", "0"]) == 0
    assert "(profile strict, minimum score 0)" in capsys.readouterr().out


def test_write_baseline_then_scan_with_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = repo(tmp_path / "repo", broken=True)
    baseline = tmp_path / "baseline.json"
    assert main(["scan", str(root), "--write-baseline", str(baseline)]) == 0
    assert f"Wrote 5 accepted findings to {baseline}" in capsys.readouterr().out
    assert main(["scan", str(root), "--baseline", str(baseline)]) == 0
    assert "5 suppressed" in capsys.readouterr().out

    fixed_link = BROKEN_SKILL.replace("[the guide](references/guide.md)", "the guide")
    (root / "skills" / "broken-skill" / "SKILL.md").write_text(fixed_link)
    assert main(["scan", str(root), "--baseline", str(baseline), "-v"]) == 0
    out = capsys.readouterr().out
    assert f"Baseline {baseline}: 1 entry matches no current finding (fixed since)" in out


def test_a_configured_baseline_can_be_created_by_the_first_write(tmp_path: Path) -> None:
    root = repo(tmp_path, broken=True)
    (root / "aces.yml").write_text("scan:\n  baseline: .aces-baseline.json\n")
    assert main(["scan", str(root), "-q"]) == 2, "configured but missing: a clear input error"
    assert main(["scan", str(root), "-q", "--write-baseline", str(root / ".aces-baseline.json")]) == 0
    assert main(["scan", str(root), "-q"]) == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["scan", "{root}/missing"], "path does not exist"),
        (["scan", "{root}", "--config", "{root}/nope.yml"], "config file not found"),
        (["scan", "{root}", "--baseline", "{root}/nope.json"], "baseline file not found"),
    ],
)
def test_input_errors_exit_2_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    root = repo(tmp_path)
    assert main([arg.format(root=root) for arg in argv]) == 2
    assert message in capsys.readouterr().err


def test_bad_usage_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(repo(tmp_path)), "--min-score", "120"]) == 2
    assert "must be between 0 and 100, got 120" in capsys.readouterr().err


def test_a_config_error_names_file_line_and_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = repo(tmp_path)
    (root / "aces.yml").write_text("scan:\n  rules:\n    SPEC02: off\n")
    assert main(["scan", str(root)]) == 2
    err = capsys.readouterr().err
    assert f"aces-ci: error: {root / 'aces.yml'}:3 (scan.rules.SPEC02): unknown rule id 'SPEC02'; did you mean" in err


def test_judge_without_a_configured_model_is_a_config_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(repo(tmp_path)), "--judge"]) == 2
    assert "judge" in capsys.readouterr().err


def test_rules_lists_every_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["id", "severity", "family", "name", "summary"]
    ids = [line.split()[0] for line in out[2:]]
    assert {"SPEC002", "PARSE010", "ACES001", "ACES003"} <= set(ids)


@pytest.mark.parametrize("wanted", ["SPEC002", "spec002", "name-format"])
def test_rules_id_prints_the_documentation(capsys: pytest.CaptureFixture[str], wanted: str) -> None:
    assert main(["rules", wanted]) == 0
    out = capsys.readouterr().out
    assert out.startswith("SPEC002  name-format\n")
    assert "severity:  error by default" in out
    assert "Fix: " in out


def test_an_unknown_rule_suggests_close_ids(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "SPEC02"]) == 2
    err = capsys.readouterr().err
    assert "unknown rule 'SPEC02'; did you mean " in err and "SPEC002" in err
    assert main(["rules", "name-formt"]) == 2
    assert "did you mean SPEC002" in capsys.readouterr().err


def test_judge_scores_are_reported_beside_the_structural_score(
    tmp_path: Path, scripted_server, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from aces_ci.scan._judge import RUBRIC
    from tests.servers import Text

    reply = json.dumps({"criteria": [{"id": c.id, "score": 10, "rationale": "clear"} for c in RUBRIC]})
    server = scripted_server([Text(reply)])
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    root = repo(tmp_path / "repo")
    (root / "aces.yml").write_text(
        f"judge:\n  provider: anthropic\n  model: claude-haiku-4-5\n  base_url: {server.url}\n"
    )
    out_json = tmp_path / "scan.json"
    assert main(["scan", str(root), "--judge", "--json", str(out_json)]) == 0
    assert "judge" in capsys.readouterr().out
    (skill,) = json.loads(out_json.read_text())["skills"]
    assert skill["judge"]["score"] == 100.0
    assert skill["score"]["value"] == 100


def test_the_result_cache_is_kept_in_the_scanned_directory_and_reused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = repo(tmp_path, broken=True)
    assert main(["scan", str(root), "-v"]) == 1
    first = capsys.readouterr().out
    cache_dir = root / ".aces-cache" / "scan"
    assert f"Result cache {cache_dir}: 0 skills unchanged and reused, 2 scanned" in first
    assert (cache_dir / ".gitignore").exists()
    assert main(["scan", str(root), "-v"]) == 1
    second = capsys.readouterr().out
    assert f"Result cache {cache_dir}: 2 skills unchanged and reused, 0 scanned" in second
    assert second.split("Result cache")[0] == first.split("Result cache")[0], "same report either way"


def test_no_cache_and_a_chosen_cache_directory(tmp_path: Path) -> None:
    root = repo(tmp_path / "repo")
    assert main(["scan", str(root), "-q", "--no-cache"]) == 0
    assert not (root / ".aces-cache").exists()
    elsewhere = tmp_path / "ci-cache"
    assert main(["scan", str(root), "-q", "--cache-dir", str(elsewhere)]) == 0
    assert len(list(elsewhere.glob("*.json"))) == 1
    assert not (root / ".aces-cache").exists()


def test_an_unwritable_cache_is_a_warning_not_a_failure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = repo(tmp_path / "repo")
    blocker = tmp_path / "file"
    blocker.write_text("not a directory\n")
    assert main(["scan", str(root), "--cache-dir", str(blocker / "scan")]) == 0
    assert "1 result(s) could not be written to the cache" in capsys.readouterr().err


@pytest.mark.parametrize("jobs", ["0", "-2", "many"])
def test_jobs_must_be_a_positive_integer(tmp_path: Path, capsys: pytest.CaptureFixture[str], jobs: str) -> None:
    assert main(["scan", str(repo(tmp_path)), "--jobs", jobs]) == 2
    assert "--jobs" in capsys.readouterr().err


def test_jobs_and_cache_do_not_change_the_result(tmp_path: Path) -> None:
    root = repo(tmp_path / "repo", broken=True)
    outputs = []
    for extra in (["--jobs", "1", "--no-cache"], ["--jobs", "2"], ["--jobs", "2"]):
        out_json = tmp_path / "scan.json"
        assert main(["scan", str(root), "-q", "--json", str(out_json), *extra]) == 1
        result = json.loads(out_json.read_text())
        del result["generated_at"]
        outputs.append(result)
    assert outputs[0] == outputs[1] == outputs[2]


def test_a_configured_judge_runs_without_the_flag_and_no_judge_skips_it(
    tmp_path: Path, scripted_server, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from aces_ci.scan._judge import RUBRIC
    from tests.servers import Text

    reply = json.dumps({"criteria": [{"id": c.id, "score": 5, "rationale": "ok"} for c in RUBRIC]})
    server = scripted_server(lambda request: Text(reply))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    root = repo(tmp_path / "repo")
    (root / "aces.yml").write_text(
        f"judge:\n  provider: anthropic\n  model: claude-haiku-4-5\n  base_url: {server.url}\n"
    )
    out_json = tmp_path / "scan.json"
    assert main(["scan", str(root), "--no-cache", "--json", str(out_json)]) == 0
    (skill,) = json.loads(out_json.read_text())["skills"]
    assert skill["judge"]["score"] == 50.0
    calls = server.calls
    assert main(["scan", str(root), "--no-cache", "--no-judge", "--json", str(out_json)]) == 0
    (skill,) = json.loads(out_json.read_text())["skills"]
    assert skill["judge"] is None
    assert server.calls == calls


def test_a_configured_judge_without_its_key_is_skipped_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    root = repo(tmp_path / "repo")
    (root / "aces.yml").write_text("judge:\n  provider: anthropic\n  model: claude-haiku-4-5\n")
    assert main(["scan", str(root), "--no-cache"]) == 0
    assert "LLM judge skipped: ANTHROPIC_API_KEY is not set" in capsys.readouterr().err
    assert main(["scan", str(root), "--no-cache", "--judge"]) == 2
