"""The trigger trial's reports: JSON against its schema, JUnit against JUnit's, Markdown escaped, and --against.

The repository and the scripted model are those of ``test_trigger_trial``: a skill loads when its
listed description holds the query's last word.
"""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
import xmlschema

from aces_ci.cli import main
from aces_ci.schemas import validator
from tests.report.html.dom import parse
from tests.servers import ScriptedServer, model_flags
from tests.trials.helpers import JUNIT_XSD
from tests.trials.test_trigger_trial import keyword_model, repo, write_skill

Server = Callable[..., ScriptedServer]
__all__ = ["repo"]  # the fixture, shared


def _reports(tmp_path: Path) -> list[str]:
    return [
        "--json",
        str(tmp_path / "t.json"),
        "--markdown",
        str(tmp_path / "t.md"),
        "--junit",
        str(tmp_path / "t.xml"),
    ]


def test_every_report_of_a_gated_run_is_valid_and_says_the_same_verdicts(
    scripted_server: Server, repo: Path, tmp_path: Path
) -> None:
    server = scripted_server(keyword_model)
    skills = [str(repo / "skills" / name) for name in ("alpha-invoices", "gamma-charts")]
    for name in ("alpha-invoices", "gamma-charts"):
        rows = [{"query": f"query {i} about {name.split('-')[1]}", "should_trigger": True} for i in range(12)]
        rows.append({"query": "tell me a joke", "should_trigger": False})
        (repo / "skills" / name / "evals" / "eval_queries.json").write_text(json.dumps(rows))
    flags = [*model_flags(server), "--no-cache", "--quiet", "--min-recall", "0.7", *_reports(tmp_path)]
    assert main(["trial", "--triggers", *skills, *flags]) == 1
    data = json.loads((tmp_path / "t.json").read_text())
    assert [e.message for e in validator("trigger-result").iter_errors(data)] == []
    assert data["min_recall"] == 0.7 and data["against"] is None
    verdicts = {skill["skill"]: skill["verdict"] for skill in data["skills"]}
    assert verdicts == {"skills/alpha-invoices": "pass", "skills/gamma-charts": "fail"}

    assert xmlschema.XMLSchema(str(JUNIT_XSD)).is_valid(str(tmp_path / "t.xml"))
    cases = {case.get("classname"): case for case in ET.parse(tmp_path / "t.xml").iter("testcase")}
    assert cases["skills.gamma-charts"].find("failure").get("type") == "LowTriggerRecall"  # type: ignore[union-attr]
    assert cases["skills.alpha-invoices"].find("failure") is None
    props = {p.get("name"): p.get("value") for p in cases["skills.gamma-charts"].iter("property")}
    assert (
        props["recall.value"] == "0" and props["recall.n"] == "12" and props["taken_by.skills/beta-charts"] == "36"
    )  # 12 queries × 3 runs

    markdown = (tmp_path / "t.md").read_text()
    assert "- `skills/alpha-invoices`: recall 1.00 (12/12 queries) [0.74, 1.00]" in markdown
    assert "false triggers 0.00 (0/1 queries) [0.00, 0.97]; ✅ pass against 0.7" in markdown
    assert "- `skills/gamma-charts`: recall 0.00 (0/12 queries) [0.00, 0.26]" in markdown and "❌ fail" in markdown
    details = markdown[markdown.index("<details>") :]
    assert "| skills/gamma-charts | skills/beta-charts | 36 |" in details and details.rstrip().count("\n") > 3


def test_a_saved_trigger_result_renders_again_the_same_markdown_and_its_page(
    scripted_server: Server, repo: Path, tmp_path: Path
) -> None:
    server = scripted_server(keyword_model)
    alpha = repo / "skills" / "alpha-invoices"
    rows = [{"query": f"query {i} about invoices", "should_trigger": True} for i in range(6)]
    (alpha / "evals" / "eval_queries.json").write_text(json.dumps(rows))
    page = tmp_path / "t.html"
    flags = [*model_flags(server), "--no-cache", "--quiet", "--min-recall", "0.5", *_reports(tmp_path)]
    assert main(["trial", "--triggers", str(alpha), *flags, "--html", str(page)]) == 0
    assert "1.00 (6/6 queries)" in parse(page.read_text()).one("table", class_="triggers").text()
    again, again_page = tmp_path / "again.md", tmp_path / "again.html"
    argv = ["report", str(tmp_path / "t.json"), "--markdown", str(again), "--html", str(again_page)]
    assert main(argv) == 0
    assert again.read_text() == (tmp_path / "t.md").read_text()  # from the artifact, word for word
    cells = [td.text() for td in parse(again_page.read_text()).one("table", class_="triggers").find_all("td")]
    assert cells[:4] == ["skills/alpha-invoices", "1.00 (6/6 queries) [0.54, 1.00]", "not measured (n = 0)", "pass"]


def test_an_unmeasured_skill_is_skipped_in_junit_and_ungated_runs_fail_nothing(
    scripted_server: Server, repo: Path, tmp_path: Path
) -> None:
    server = scripted_server(keyword_model)
    only_negatives = [{"query": "tell me a joke", "should_trigger": False}]
    (repo / "skills" / "alpha-invoices" / "evals" / "eval_queries.json").write_text(json.dumps(only_negatives))
    alpha = str(repo / "skills" / "alpha-invoices")
    flags = [*model_flags(server), "--no-cache", "--quiet", *_reports(tmp_path)]
    assert main(["trial", "--triggers", alpha, *flags, "--min-recall", "0.5"]) == 0
    case = next(ET.parse(tmp_path / "t.xml").iter("testcase"))
    assert case.find("skipped") is not None
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["skills"][0]["verdict"] == "unmeasured" and data["skills"][0]["recall"]["value"] is None
    assert [e.message for e in validator("trigger-result").iter_errors(data)] == []
    assert "not measured (n = 0)" in (tmp_path / "t.md").read_text()
    assert main(["trial", "--triggers", alpha, *flags]) == 0  # no floor: nothing gated
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["skills"][0]["verdict"] is None and data["min_recall"] is None
    assert next(ET.parse(tmp_path / "t.xml").iter("testcase")).find("failure") is None


def test_a_hostile_skill_name_and_taker_cannot_break_the_markdown(
    scripted_server: Server, repo: Path, tmp_path: Path
) -> None:
    write_skill(repo, "0-x|y`@team", "Use when asked to check receipts.")  # listed first: it takes the query
    server = scripted_server(keyword_model)
    target = write_skill(repo, "aaa-<b>", "Use for receipts.", [("check my receipts", True)])
    flags = [*model_flags(server), "--no-cache", "--quiet", "--markdown", str(tmp_path / "t.md")]
    assert main(["trial", "--triggers", str(target), *flags]) == 0
    markdown = (tmp_path / "t.md").read_text()
    assert "- `skills/aaa-<b>`: recall 0.00" in markdown  # inside a code span, markup is shown, not parsed
    row = next(line for line in markdown.splitlines() if line.startswith("| skills/aaa"))
    assert row == "| skills/aaa-&lt;b&gt; | skills/0-x\\|y\\`@\u200bteam | 3 |"  # pipe, backtick, mention defused
    assert "@team" not in markdown


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True)
    return done.stdout.strip()


def test_against_shows_that_a_description_edit_raised_recall(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CI", "true")
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    _git(root, "config", "user.email", "t@example.com")
    _git(root, "config", "user.name", "t")
    queries = [(f"please handle ledger batch {i} of the ledgers", True) for i in range(12)]
    skill = write_skill(root, "ledger-tool", "Use when asked about bookkeeping.", [*queries, ("tell me a joke", False)])
    write_skill(root, "other-tool", "Use when asked to draw charts.")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "v1")
    _git(root, "tag", "v1")
    write_skill(root, "ledger-tool", "Use when asked about bookkeeping or to reconcile ledgers.")
    server = scripted_server(keyword_model)
    out = tmp_path / "t.json"
    flags = [
        *model_flags(server),
        "--no-cache",
        "--against",
        "v1",
        "--json",
        str(out),
        "--markdown",
        str(tmp_path / "t.md"),
    ]
    assert main(["trial", "--triggers", str(skill), *flags]) == 0
    data = json.loads(out.read_text())
    assert [e.message for e in validator("trigger-result").iter_errors(data)] == []
    assert data["against"] == {"ref": "v1", "commit": _git(root, "rev-parse", "v1")}
    result = data["skills"][0]
    assert result["recall"]["value"] == 1.0
    contrast = result["against"]
    assert contrast["recall_then"]["value"] == 0.0 and contrast["recall_then"]["n"] == 12
    change = contrast["change"]
    assert change["delta"] == 1.0 and change["n"] == 12 and change["label"] == "improvement"
    low, high = change["interval"]
    assert 0 < low < 1 <= high  # every query changed alike: the distribution-free bound, wide but above zero
    assert len(server.requests) == 13 * 3 * 2  # the same thirteen queries, three runs each against both listings
    then_systems = {request.system_text for request in server.requests}
    assert any("reconcile ledgers" not in system for system in then_systems)
    assert "change +1.00" in capsys.readouterr().out
    assert "recall at the earlier ref 0.00, change +1.00" in (tmp_path / "t.md").read_text()


def test_against_a_ref_that_names_nothing_exits_2_before_any_model_call(
    scripted_server: Server, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    subprocess.run(["rm", "-rf", str(repo / ".git")], check=True)
    _git(repo, "init", "-q")
    server = scripted_server(keyword_model)
    alpha = str(repo / "skills" / "alpha-invoices")
    assert main(["trial", "--triggers", alpha, *model_flags(server), "--no-cache", "--against", "nope"]) == 2
    assert "does not name a commit" in capsys.readouterr().err
    assert server.requests == []


def test_a_skill_left_out_of_the_listing_by_scan_exclude_exits_2_instead_of_measuring_zero(
    scripted_server: Server, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "aces.yml").write_text("scan:\n  exclude:\n    - skills/alpha-invoices\n")
    server = scripted_server(keyword_model)
    alpha = str(repo / "skills" / "alpha-invoices")
    assert main(["trial", "--triggers", alpha, *model_flags(server), "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert "skills/alpha-invoices" in err and "scan.exclude" in err
    assert server.requests == []
