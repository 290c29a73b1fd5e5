"""``aces-ci ci`` runs the trigger trial beside the trials when a changed skill has ``evals/eval_queries.json``.

A labelled pull request edits the skill's description to name what its queries ask for; the comment
then shows one trigger line for the skill with its recall now, at the base branch and the change.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from aces_ci.github import COMMENT_MARKER
from aces_ci.schemas import validator
from tests.engine.helpers import MARKER_BODY, skill_md
from tests.github.helpers import actions_env, event, read_outputs
from tests.github.server import WRITE_TOKEN, GitHubServer
from tests.report.html.dom import parse
from tests.servers import Fault, ScriptedRequest, ScriptedServer, Text, ToolUse
from tests.trials.helpers import commit
from tests.trials.test_trigger_trial import keyword_model

from .test_ci_paid import PLAIN_BODY, Planted, _ci, _fresh, _git, _no_keys, _pull_request_event, _repo

Server = Callable[..., ScriptedServer]
__all__ = ["_no_keys"]  # the autouse fixture, shared
QUERIES = [{"query": f"what is the project {i} codename", "should_trigger": True} for i in range(12)]
QUERIES.append({"query": "tell me a joke", "should_trigger": False})


def _decisions_then_tasks(trials: Planted, triggers_down: bool = False) -> Callable[[ScriptedRequest], object]:
    """Trigger decisions (the listing's system prompt) by keyword; every other call as ``trials`` plants it."""

    def answer(request: ScriptedRequest) -> Text | ToolUse | Fault:
        if request.system_text.startswith("You can load skills"):
            return Fault(401) if triggers_down else keyword_model(request)
        return trials(request)

    return answer


def _pull_request(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    github: GitHubServer,
    described: str = "Answers questions about the secret project number and its codename.",
    aces_yml: str = "",
) -> tuple[Path, Path]:
    root, _ = _repo(tmp_path, body=PLAIN_BODY, cases=6)
    skill = root / "skills" / "marker"
    (skill / "evals" / "eval_queries.json").write_text(json.dumps(QUERIES))
    if aces_yml:
        (root / "aces.yml").write_text(aces_yml)
    commit(root, "trigger queries")
    base = _git(root, "rev-parse", "HEAD")
    (skill / "SKILL.md").write_text(skill_md("marker", described, MARKER_BODY))
    commit(root, "the description names the codename")
    head = _git(root, "rev-parse", "HEAD")
    path = event(tmp_path, "pull_request_labeled.json")
    path.write_text(path.read_text().replace("1" * 40, base).replace("2" * 40, head))
    output, _ = actions_env(monkeypatch, tmp_path, "pull_request", path, api_url=github.url, token=WRITE_TOKEN)
    return root, output


def test_a_labelled_pull_request_shows_the_description_edit_raising_trigger_recall(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    server = scripted_server(_decisions_then_tasks(Planted(0.9, 0.1)))
    root, output = _pull_request(tmp_path, monkeypatch, github)

    assert _ci(root, server) == 0

    body = github.state.ours(7, COMMENT_MARKER)[0]["body"]
    assert "#### Trigger trial: the skills as Claude Code lists them, against" in body
    line = next(line for line in body.splitlines() if line.startswith("- `skills/marker`"))
    assert "recall 1.00 (12/12 queries)" in line and "false triggers 0.00 (0/1 queries)" in line
    assert "recall at the earlier ref 0.00, change +1.00" in line and "improvement" in line
    report = Path(read_outputs(output)["triggers-report"])
    data = json.loads(report.read_text())
    assert [e.message for e in validator("trigger-result").iter_errors(data)] == []
    assert data["skills"][0]["against"]["change"]["label"] == "improvement"
    page = parse((report.parent / "report.html").read_text(encoding="utf-8"))  # the run's one page shows it too
    row = page.one("section", id="triggers").one("tr", **{"data-skill": "skills/marker"})
    assert "1.00 (12/12 queries)" in row.text() and "change +1.00" in row.text()


def test_a_later_push_keeps_the_trigger_trial_beside_the_kept_trials(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    """The label paid for the trigger trial as for the trials: a scan-only push must not erase it."""
    server = scripted_server(_decisions_then_tasks(Planted(0.9, 0.1)))
    root, _ = _pull_request(tmp_path, monkeypatch, github)
    assert _ci(root, server) == 0
    trigger_line = next(
        line
        for line in github.state.ours(7, COMMENT_MARKER)[0]["body"].splitlines()
        if line.startswith("- `skills/marker`")
    )
    base = _git(root, "rev-parse", "HEAD~1")  # the labelled event's base: the commit before the description edit
    (root / "skills" / "marker" / "notes.md").write_text("a push after the trials\n")
    commit(root, "a push after the trials")
    pushed = _pull_request_event(tmp_path, "pull_request.json", base, _git(root, "rev-parse", "HEAD"))
    _fresh(actions_env(monkeypatch, tmp_path, "pull_request", pushed, api_url=github.url, token=WRITE_TOKEN))
    calls = server.calls
    assert _ci(root, server) == 0
    assert server.calls == calls, "a push to a labelled pull request calls no model"
    body = github.state.ours(7, COMMENT_MARKER)[0]["body"]
    assert "— stale: the pull request changed since" in body
    assert trigger_line in body and "#### Trigger trial" in body


@pytest.mark.parametrize(
    ("described", "code"),
    [
        ("Answers questions about the secret project number and its codename.", 0),
        ("Answers questions about the secret project number.", 1),
    ],
)
def test_with_a_recall_floor_in_aces_yml_a_skill_the_agent_never_finds_fails_the_job(
    scripted_server: Server,
    tmp_path: Path,
    *,
    monkeypatch: pytest.MonkeyPatch,
    github: GitHubServer,
    described: str,
    code: int,
) -> None:
    status = "pass" if code == 0 else "fail"
    server = scripted_server(_decisions_then_tasks(Planted(0.9, 0.1)))
    root, output = _pull_request(tmp_path, monkeypatch, github, described, aces_yml="trial:\n  min_recall: 0.7\n")

    assert _ci(root, server) == code

    outputs = read_outputs(output)
    assert outputs["verdict"] == status
    body = github.state.ours(7, COMMENT_MARKER)[0]["body"]
    recall = f"recall {'1.00' if code == 0 else '0.00'}"
    assert recall in body
    gate = json.loads(Path(outputs["triggers-report"]).read_text())
    assert gate["min_recall"] == 0.7 and gate["skills"][0]["verdict"] == status


def test_a_trigger_trial_the_model_api_refuses_is_a_note_and_the_trials_verdict_stands(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    server = scripted_server(_decisions_then_tasks(Planted(0.9, 0.1), triggers_down=True))
    root, output = _pull_request(tmp_path, monkeypatch, github)

    assert _ci(root, server) == 0

    body = github.state.ours(7, COMMENT_MARKER)[0]["body"]
    assert "Trigger trial not run:" in body and "401" in body
    assert "#### Trigger trial" not in body
    assert read_outputs(output)["verdict"] == "pass"


def test_no_trigger_trial_runs_once_the_trials_spent_the_budget(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    server = scripted_server(_decisions_then_tasks(Planted(0.9, 0.1)))
    root, output = _pull_request(tmp_path, monkeypatch, github)

    _ci(root, server, "--max-rollouts", "20")

    body = github.state.ours(7, COMMENT_MARKER)[0]["body"]
    assert "Trigger trial not run: the trials spent the run" in body
    assert not any(request.system_text.startswith("You can load skills") for request in server.requests)
    assert read_outputs(output).get("triggers-report", "") == ""


def test_a_skill_new_in_the_pull_request_gets_a_trigger_trial_without_a_base_contrast(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    server = scripted_server(_decisions_then_tasks(Planted(0.9, 0.1)))
    root, _ = _repo(tmp_path, body=PLAIN_BODY, cases=6)
    base = _git(root, "rev-parse", "HEAD")
    fresh = root / "skills" / "codenames"
    (fresh / "evals").mkdir(parents=True)
    (fresh / "SKILL.md").write_text(skill_md("codenames", "Use when asked for a project codename.", MARKER_BODY))
    (fresh / "evals" / "evals.json").write_text((root / "skills" / "marker" / "evals" / "evals.json").read_text())
    (fresh / "evals" / "eval_queries.json").write_text(json.dumps(QUERIES))
    commit(root, "a new skill")
    path = event(tmp_path, "pull_request_labeled.json")
    path.write_text(path.read_text().replace("1" * 40, base).replace("2" * 40, _git(root, "rev-parse", "HEAD")))
    output, _ = actions_env(monkeypatch, tmp_path, "pull_request", path, api_url=github.url, token=WRITE_TOKEN)

    _ci(root, server)

    body = github.state.ours(7, COMMENT_MARKER)[0]["body"]
    assert "skills/codenames is new in this pull request" in body
    assert "#### Trigger trial: the skills as Claude Code lists them\n" in body  # no base to contrast with
    line = next(line for line in body.splitlines() if line.startswith("- `skills/codenames`"))
    assert "recall 1.00 (12/12 queries)" in line and "earlier ref" not in line
    data = json.loads(Path(read_outputs(output)["triggers-report"]).read_text())
    assert data["against"] is None and [skill["skill"] for skill in data["skills"]] == ["skills/codenames"]
