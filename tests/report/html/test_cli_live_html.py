"""``aces-ci trial … --html`` and ``aces-ci value … --html``: the page of the run just made, its headline the JSON's.

Both verbs write the same JSON they write with ``--json`` through the report's schema check into one
self-contained page (the page ``aces-ci report`` renders from files), so the page and the file agree.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aces_ci.cli import main
from tests.report.html.dom import parse
from tests.report.html.helpers import page_data
from tests.servers.fixtures import ServerFactory
from tests.skillsv.helpers import PLANTED_BODY, write_skill
from tests.trials.helpers import planted_accuracy, repo_with_skill, run_flags


@pytest.fixture(autouse=True)
def _quiet_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


def test_trial_html_shows_the_verdict_and_headline_its_json_holds(
    scripted_server: ServerFactory, tmp_path: Path
) -> None:
    server = scripted_server(planted_accuracy(1.0, 0.0))
    skill = repo_with_skill(tmp_path / "repo", cases=8)
    result, page = tmp_path / "trial.json", tmp_path / "out" / "trial.html"
    argv = ["trial", str(skill), "--runs", "2", *run_flags(server, tmp_path), "--json", str(result)]
    assert main([*argv, "--html", str(page), "--quiet"]) == 0
    data = json.loads(result.read_text(encoding="utf-8"))
    root = parse(page.read_text(encoding="utf-8"))
    (row,) = root.find_all("tr", class_="skill-verdict")
    (skill_data,) = data["skills"]
    lift = skill_data["lift"]["outcome"]
    runs = lift["n_cases"] * lift["runs_per_arm"]
    before, after = round(lift["without_mean"] * runs), round(lift["with_mean"] * runs)
    low, high = lift["ci"]
    assert row.one("td", class_="headline").text() == (
        f"outcome {before}/{runs} → {after}/{runs}, {100 * lift['delta']:+.0f} pp, "
        f"95% CI {100 * low:+.0f} … {100 * high:+.0f}"
    )
    assert (before, after, runs) == (0, 16, 16)
    assert row.find_all("span", class_="verdict")[0].text() == skill_data["verdict"] == "pass"
    headline = page_data(root)
    assert headline["sources"] == [str(result)]
    assert [(s["verdict"], s["delta"], s["ci"]) for s in headline["skills"]] == [("pass", lift["delta"], lift["ci"])]


def test_trial_html_without_json_names_the_trial_as_its_source(scripted_server: ServerFactory, tmp_path: Path) -> None:
    server = scripted_server(planted_accuracy(0.0, 1.0))
    skill = repo_with_skill(tmp_path / "repo", cases=8)
    page = tmp_path / "trial.html"
    argv = ["trial", str(skill), "--runs", "2", *run_flags(server, tmp_path), "--html", str(page), "--quiet"]
    assert main(argv) == 1  # the skill hurts: the gate fails, and the page is still written
    root = parse(page.read_text(encoding="utf-8"))
    assert page_data(root)["sources"] == ["trial"]
    assert root.one("tr", class_="skill-verdict").find_all("span", class_="verdict")[0].text() == "fail"


def test_html_with_plan_which_writes_no_result_is_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = repo_with_skill(tmp_path / "repo", cases=2)
    page = tmp_path / "trial.html"
    assert main(["trial", str(skill), "--plan", "--html", str(page)]) == 2
    assert "--html" in capsys.readouterr().err and not page.exists()


def test_value_html_shows_each_unit_s_effect_and_the_decision_its_json_holds(tmp_path: Path) -> None:
    skill = write_skill(tmp_path, PLANTED_BODY, {"scripts/tool.sh": "#!/bin/sh\necho TOTALS\n"})
    evals = tmp_path / "cases.json"
    evals.write_text(json.dumps({"evals": [{"id": f"c{i}", "prompt": f"question {i}"} for i in range(3)]}))
    result, page = tmp_path / "value.json", tmp_path / "value.html"
    argv = ["value", str(skill), "--evals", str(evals), "--oracle", "python:tests.skillsv.planted_oracle:expected"]
    argv += ["--exact", "--cache-dir", str(tmp_path / "cache"), "--json", str(result), "--html", str(page)]
    assert main(argv) == 0
    data = json.loads(result.read_text(encoding="utf-8"))
    root = parse(page.read_text(encoding="utf-8"))
    by_id = {unit["id"]: unit for unit in data["units"]}
    shown = root.find_all("div", class_="unit")
    assert len(shown) == len(data["units"])
    for unit in shown:
        raw = by_id[unit.attrs["data-unit"]]
        if raw["kind"] == "trigger":
            continue
        assert float(unit.attrs["data-effect"]) == pytest.approx(raw["net_effect"], abs=5e-5)  # shown to 4 places
        assert unit.one("span", class_="verdict").text() == raw["decision"]
    assert data["decisions"]["summary"].startswith("cut 2 units")
    assert data["decisions"]["summary"] in root.one("section", id="verdict").text()
    assert data["schema_version"] == 3 and data["documents"][0]["text"] == (skill / "SKILL.md").read_text()
    shown_files = [d.attrs["data-file"] for d in root.find_all("details", class_="document")]
    assert shown_files == [d["file"] for d in data["documents"]] == ["SKILL.md", "scripts/tool.sh"]
    numbered = root.find_all("details", class_="document")[0].find_all("span", class_="ln")
    assert len(numbered) == len((skill / "SKILL.md").read_text().splitlines())
    assert page_data(root)["sources"] == [str(result)]
