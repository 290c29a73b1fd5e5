"""`aces-ci trial --triggers` against a scripted model that loads the skill whose description holds the keyword.

The same repository gives the static rules' prediction (DISC002: a skill dropped from Claude Code's
listing; DISC003: two siblings claiming the same requests) and the measured outcome (recall near 0
for the dropped skill, the sibling taking the other's queries), with no model call for the former.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from aces_ci.cli import main
from aces_ci.scan import ScanConfig, scan_repo
from aces_ci.scan.rules import default_registry
from tests.servers import Fault, ScriptedServer, Text, ToolUse, model_flags
from tests.servers._request import ScriptedRequest

Server = Callable[..., ScriptedServer]


def keyword_model(request: ScriptedRequest) -> Text | ToolUse:
    """Load the first listed skill whose description holds the query's last word; answer directly otherwise."""
    keyword = request.turns[-1].text.rstrip(".?! ").split()[-1].lower()
    for line in request.system_text.splitlines():
        name, _, description = line.removeprefix("- ").partition(": ")
        if line.startswith("- ") and keyword in description.lower():
            return ToolUse("Skill", {"name": name})
    return Text("I can answer that directly.")


def write_skill(root: Path, name: str, description: str, queries: list[tuple[str, bool]] | None = None) -> Path:
    skill = root / "skills" / name
    (skill / "evals").mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nDo it.\n")
    if queries is not None:
        rows = [{"query": query, "should_trigger": should} for query, should in queries]
        (skill / "evals" / "eval_queries.json").write_text(json.dumps(rows, indent=1))
    return skill


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CI", "true")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    (tmp_path / ".git").mkdir()
    write_skill(
        tmp_path,
        "alpha-invoices",
        "Use when the user asks to check invoices.",
        [("please check my invoices", True), ("check these invoices", True), ("what is the weather", False)],
    )
    write_skill(tmp_path, "beta-charts", "Use when asked to draw plot charts from spreadsheet columns or csv data.")
    write_skill(
        tmp_path,
        "gamma-charts",
        "Use when asked to draw plot charts from csv data or spreadsheet columns.",
        [("draw me some charts", True), ("turn this into charts", True), ("sort this list", False)],
    )
    for index in range(24):  # siblings whose descriptions fill Claude Code's 8,000-character budget
        write_skill(tmp_path, f"filler-{index:02d}", f"Use when handling case {index}. " + "Plain detail text. " * 20)
    write_skill(
        tmp_path,
        "zeta-ledgers",
        "Use when reconciling ledgers.",
        [("reconcile the ledgers", True), ("balance my ledgers", True), ("tell me a joke", False)],
    )
    return tmp_path


def test_the_static_rules_predict_the_dropped_skill_and_the_colliding_pair(repo: Path) -> None:
    result = scan_repo(repo, ScanConfig(), default_registry())
    found = {(f.rule_id, r.skill) for r in result.skills for f in r.findings if f.rule_id in ("DISC002", "DISC003")}
    assert ("DISC003", "skills/beta-charts") in found
    assert ("DISC002", "skills/zeta-ledgers") in found
    assert ("DISC002", "skills/alpha-invoices") not in found


def test_a_trigger_trial_measures_recall_collisions_and_the_budget(
    scripted_server: Server, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(keyword_model)
    skills = [str(repo / "skills" / name) for name in ("alpha-invoices", "gamma-charts", "zeta-ledgers")]
    out_json = tmp_path / "triggers.json"
    flags = [*model_flags(server), "--no-cache", "--runs", "2", "--json", str(out_json)]
    assert main(["trial", "--triggers", *skills, *flags]) == 0
    text = capsys.readouterr().out
    assert "trigger trial as Claude Code" in text
    result = {skill["skill"]: skill for skill in json.loads(out_json.read_text())["skills"]}
    alpha, gamma, zeta = (result[f"skills/{name}"] for name in ("alpha-invoices", "gamma-charts", "zeta-ledgers"))
    assert alpha["recall"]["value"] == 1.0 and alpha["recall"]["n"] == 2
    assert alpha["false_trigger"] == {"value": 0.0, "interval": alpha["false_trigger"]["interval"], "n": 1}
    low, high = alpha["recall"]["interval"]
    assert 0 < low < 1 and high == 1.0
    # gamma's queries are taken by its sibling, listed first with the same claim.
    assert gamma["recall"]["value"] == 0.0
    assert gamma["confusion"] == [{"taken_by": "skills/beta-charts", "count": 4}]
    # zeta's description was dropped from the listing: its keyword is nowhere to be seen.
    assert zeta["recall"]["value"] == 0.0
    assert zeta["confusion"] == [{"taken_by": "(none)", "count": 4}]
    # One decision call per query and run, nothing more.
    assert len(server.requests) == 9 * 2


def test_a_broken_query_file_stops_before_any_model_call_naming_line_and_pointer(
    scripted_server: Server, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(keyword_model)
    broken = repo / "skills" / "alpha-invoices" / "evals" / "eval_queries.json"
    rows = ['{"query": "check invoices", "should_trigger": true}', '{"query": "x", "should_triger": true}']
    broken.write_text("[\n  " + ",\n  ".join(rows) + "\n]")
    code = main(["trial", "--triggers", str(repo / "skills" / "alpha-invoices"), *model_flags(server), "--no-cache"])
    err = capsys.readouterr().err
    assert code == 2
    assert "skills/alpha-invoices/evals/eval_queries.json" in err and ":3" in err
    assert "/1/should_triger" in err and "did you mean 'should_trigger'" in err
    assert server.requests == []


def test_a_model_api_that_refuses_the_calls_exits_3(
    scripted_server: Server, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(lambda request: Fault(401))
    code = main(["trial", "--triggers", str(repo / "skills" / "alpha-invoices"), *model_flags(server), "--no-cache"])
    assert code == 3
    assert "401" in capsys.readouterr().err


def test_min_recall_gates_each_skill_on_its_interval(
    scripted_server: Server, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(keyword_model)
    for name in ("alpha-invoices", "gamma-charts"):
        rows = [{"query": f"query {i} about {name.split('-')[1]}", "should_trigger": True} for i in range(12)]
        (repo / "skills" / name / "evals" / "eval_queries.json").write_text(json.dumps(rows))
    flags = [*model_flags(server), "--no-cache", "--quiet", "--min-recall", "0.7"]
    alpha, gamma = (str(repo / "skills" / name) for name in ("alpha-invoices", "gamma-charts"))
    assert main(["trial", "--triggers", alpha, *flags]) == 0
    assert "skills/alpha-invoices: trigger recall pass against 0.7" in capsys.readouterr().err
    assert main(["trial", "--triggers", alpha, gamma, *flags]) == 1
    err = capsys.readouterr().err
    assert "skills/gamma-charts: trigger recall fail against 0.7" in err
    assert main(["trial", "--triggers", alpha, *flags[:-1], "1.0"]) == 0  # 12 of 12: [0.74, 1] straddles 1.0
    assert "trigger recall underpowered against 1.0" in capsys.readouterr().err
    (repo / "aces.yml").write_text("gate:\n  underpowered: fail\n")
    assert main(["trial", "--triggers", alpha, *flags[:-1], "1.0"]) == 1
