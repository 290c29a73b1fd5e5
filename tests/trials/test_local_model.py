"""``aces-ci trial --against`` on the example repository with the embedded model: the lift of one commit's edit."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from aces_ci.cli import main
from aces_ci.schemas import validator
from tests.trials.helpers import commit

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "skill-repo"
FACTS = (
    "- Free tier: the Acme Cloud free tier allows 12 projects.",
    "- Refunds: Acme Cloud refunds a paid plan within 45 days of purchase.",
    "- Support: callers to the Acme Cloud support hotline give the code ORCA-7.",
)


@pytest.mark.local_model
def test_against_head_1_reports_the_lift_of_the_commit_that_added_the_facts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """HEAD~1's acme-support points at a pricing page instead of stating the facts; HEAD states them.

    SmolLM2-135M cannot know the fictional facts, so only the version that states them answers
    the cases; greedy decoding and the example's 64-token answers keep the run bounded and
    repeatable. The control is HEAD~1's skill, read from git objects, on the same cases and seeds.
    """
    repo = tmp_path / "skill-repo"
    shutil.copytree(EXAMPLE, repo, ignore=shutil.ignore_patterns(".aces-cache"))
    monkeypatch.chdir(repo)
    monkeypatch.setenv("CI", "true")
    skill_md = repo / "skills" / "acme-support" / "SKILL.md"
    current = skill_md.read_text(encoding="utf-8")
    assert all(line in current for line in FACTS)
    earlier = current
    for line in FACTS:
        earlier = earlier.replace(line, "- See the Acme Cloud pricing and support pages for the current figures.")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    skill_md.write_text(earlier, encoding="utf-8")
    commit(repo, "acme-support: point at the pricing page")
    skill_md.write_text(current, encoding="utf-8")
    commit(repo, "acme-support: state the facts")
    report = tmp_path / "trial.json"
    argv = ["trial", "skills/acme-support", "--against", "HEAD~1", "--runs", "1", "--lift-metric", "accuracy"]
    assert main([*argv, "--cache-dir", str(tmp_path / "cache"), "--json", str(report)]) == 0
    out = capsys.readouterr().out
    data = json.loads(report.read_text(encoding="utf-8"))
    assert [e.message for e in validator("trial-result").iter_errors(data)] == []
    result = data["skills"][0]
    assert result["against"].startswith("HEAD~1 (") and "at HEAD~1" in result["contrast"]
    accuracy = result["lift"]["accuracy"]
    assert accuracy["delta"] > 0 and accuracy["ci"][0] > 0, accuracy
    assert result["verdict"] == "pass"
    assert "as it was at HEAD~1" in out
