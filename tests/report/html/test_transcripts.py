"""Each case's first runs side by side as transcripts: recorded by the trial (bounded, redacted), shown by the page.

A scripted model makes a tool call whose arguments carry a secret from the environment and hostile
markup; the trial JSON holds both arms' transcripts with the secret masked, and the page shows the
steps with the tool call marked, the markup as text. A result of hundreds of rollouts keeps its
transcripts within the result's budget, so the page stays under 2 MB; an older result without
transcripts says they were not recorded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from aces_ci.cli import main
from aces_ci.trials._transcript import MAX_STEPS
from tests.report.html.dom import Node, parse
from tests.report.html.fixtures import HOSTILE, hostile_transcript, trial_doc, trial_skill, with_full_transcripts
from tests.report.html.helpers import dom, render
from tests.servers import Reply, ScriptedRequest, Text, ToolUse
from tests.servers.fixtures import ServerFactory
from tests.trials.helpers import MARKER, commit, repo_with_skill, run_flags

SECRET = "planted-credential-Xq93kLm7Vt28"


@pytest.fixture(autouse=True)
def _quiet_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("MY_SERVICE_API_KEY", SECRET)


def _writes_then_answers(req: ScriptedRequest) -> Reply:
    """First turn: a tool call leaking the secret and hostile markup into a file; then the (planted) answer."""
    if not req.tool_results:
        content = f"the value {SECRET} then {HOSTILE}"
        return ToolUse("write_file", {"path": "notes.txt", "content": content}, text=f"Saving notes {HOSTILE}")
    return Text("42" if MARKER in req.all_text else "I do not know")


def test_a_trial_records_both_arms_transcripts_redacted_and_the_page_shows_them_with_the_tool_call_marked(
    scripted_server: ServerFactory, tmp_path: Path
) -> None:
    server = scripted_server(_writes_then_answers)
    repo = tmp_path / "repo"
    skill = repo_with_skill(repo, cases=3)
    commit(repo, "the skill")
    argv = ["trial", str(skill), "--runs", "1", *run_flags(server, tmp_path), "--json", str(tmp_path / "trial.json")]
    page = tmp_path / "trial.html"
    main([*argv, "--html", str(page), "--quiet"])
    data = valid_reports_json(tmp_path)
    raw = (tmp_path / "trial.json").read_text(encoding="utf-8")
    assert SECRET not in raw
    (skill_data,) = data["skills"]
    assert len(skill_data["commit"]) == 40 and skill_data["against_commit"] is None
    for case in skill_data["cases"]:
        for arm in ("with_transcript", "control_transcript"):
            steps = case[arm]["steps"]
            assert [s["source"] for s in steps][:2] == ["system", "user"]
            (call,) = [c for s in steps for c in s["calls"]]
            assert call["name"] == "write_file" and "notes.txt" in call["arguments"]
            assert "the value [REDACTED" in call["arguments"]  # the environment's secret masked, the text kept
    html = page.read_text(encoding="utf-8")
    assert SECRET not in html
    root = parse(html)
    assert root.find_all("img") == [] and html.count("</script>") == 2
    first = root.find_all("tr", **{"data-case": skill_data["cases"][0]["case"]})[0]
    pair = first.one("div", class_="transcripts")
    arms = [div for div in pair.children if isinstance(div, Node) and div.tag == "div"]
    assert [a.one("h4").text() for a in arms] == ["With the skill, run 1", "Control, run 1"]
    assert arms[0].one("div", class_="skill-event").text() == "skill preloaded marker/SKILL.md"
    assert arms[1].find_all("div", class_="skill-event") == []  # the control never saw the skill
    for arm in arms:
        (marked,) = arm.find_all("div", class_="tool-call")
        assert "write_file" in marked.text()
        assert "Saving notes </script><script>alert(1)" in arm.text()  # markup shown as text, not parsed
    shown = root.one("div", class_="trial-header").text()
    assert f"marker at {skill_data['commit'][:12]}" in shown


def valid_reports_json(tmp_path: Path) -> dict[str, Any]:
    """The trial JSON after its schema check (the JUnit half of ``valid_reports`` needs the XML report too)."""
    main_args = ["report", str(tmp_path / "trial.json"), "--html", str(tmp_path / "again.html")]
    assert main(main_args) in (0, 1)  # the page re-renders from the artifact alone
    data: dict[str, Any] = json.loads((tmp_path / "trial.json").read_text(encoding="utf-8"))
    return data


def test_two_hundred_rollouts_of_full_transcripts_stay_within_the_budget_and_the_page_under_2_mb(
    tmp_path: Path,
) -> None:
    skill = trial_skill("skills/pdf-tools", "pdf-tools", "pass", 0.8, 0.4, cases=100, answer_chars=2000)
    fitted = with_full_transcripts(skill)
    kept = [t for row in fitted for t in (row.with_transcript, row.control_transcript) if t and t.steps]
    dropped = [t for row in fitted for t in (row.with_transcript, row.control_transcript) if t and not t.steps]
    assert kept and dropped and len(kept) + len(dropped) == 200
    assert all(t.note and "budget" in t.note and t.omitted_steps == MAX_STEPS for t in dropped)
    path = tmp_path / "trial.json"
    path.write_text(json.dumps(trial_doc([skill])), encoding="utf-8")
    out = tmp_path / "report.html"
    assert main(["report", str(path), "--html", str(out)]) == 0
    assert out.stat().st_size < 2 * 1024 * 1024, out.stat().st_size
    assert "transcript budget was spent" in out.read_text(encoding="utf-8")


def test_hostile_transcripts_render_as_text_and_old_results_say_transcripts_were_not_recorded() -> None:
    doc = trial_doc()
    hostile = hostile_transcript()
    case = doc["skills"][0]["cases"][0]
    case.update(with_transcript=hostile, control_transcript=None)
    page = render(("trial.json", doc))
    root = dom(("trial.json", doc))
    assert root.find_all("img") == [] and page.count("</script>") == 2 and "\u202e" not in page
    assert all(not k.startswith("on") for node in root.walk() for k in node.attrs)
    row = root.find_all("tr", **{"data-case": case["case"]})[0]
    assert row.one("div", class_="skill-event").text().startswith("skill load </script>")
    assert row.one("details", class_="transcript").find_all("details")  # the long text folded
    assert "No run of this arm" in row.text()
    old = root.find_all("tr", **{"data-case": doc["skills"][0]["cases"][1]["case"]})[0]
    assert "Transcripts were not recorded" in old.text()


def test_the_header_names_the_commits_compared_per_skill() -> None:
    doc = trial_doc()
    first, second = doc["skills"][0], doc["skills"][2]
    first.update(commit="a" * 40 + "-dirty", against_commit="b" * 40, against=f"HEAD~1 ({'b' * 12})")
    second.update(commit=None, against_commit=None)
    header = dom(("trial.json", doc)).one("div", class_="trial-header").text()
    assert f"pdf-tools at {'a' * 12}-dirty against {'b' * 12}" in header
    assert "harmful at a tree outside git" in header
