"""The trust boundary of ``aces-ci ci``, as a workflow meets it: recorded payloads, real HTTP, scripted servers.

* ``pull_request_target`` (and a fork's pull request) with the pull request's code checked out: its
  aces.yml points the LLM judge at an "attacker" server; the repository's key is in the environment.
  The control run (a push, whose code is trusted) shows that this configuration does reach that URL
  with the key, so the assertion that the untrusted runs never do is not vacuous.
* A maintainer's ``/aces trial <sha>`` on a fork's pull request: the permission and the head are asked
  of the local GitHub server; the fork's commits arrive by ``git fetch`` from a bare ``origin`` holding
  ``refs/pull/8/head``; a scripted model server answers the trials.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from aces_ci.cli import main
from aces_ci.github import (
    COMMENT_MARKER,
    REPLY_MARKER,
    GitHubContext,
    code_trust,
    fetch_pull_head,
    pinned_tree,
    plan_run,
)
from aces_ci.scan._judge import RUBRIC
from tests.app.test_ci_paid import PLAIN_BODY, Planted, _ci, _git
from tests.engine.helpers import MARKER_BODY, write_skill
from tests.servers import ScriptedRequest, ScriptedServer, Text
from tests.trials.helpers import cases_json, commit

from .helpers import actions_env, event, read_outputs
from .server import BOT, WRITE_TOKEN, GitHubServer

Server = Callable[..., ScriptedServer]
CANARY_KEY = "sk-canary-0123456789abcdefTRUSTBOUNDARY"
LATER_EDIT = "LATER-EDIT-AFTER-APPROVAL"


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(key, raising=False)


def _judge_reply(_: ScriptedRequest) -> Text:
    return Text(json.dumps({"criteria": [{"id": c.id, "score": 10, "rationale": "clear"} for c in RUBRIC]}))


def _plain(markdown: str) -> str:
    """The comment's words as a reader sees them: Markdown escapes and entities undone, whitespace collapsed."""
    text = markdown.replace("\\", "").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return " ".join(text.split())


def _carrying_key(server: ScriptedServer) -> list[ScriptedRequest]:
    return [r for r in server.requests if CANARY_KEY in json.dumps(dict(r.headers))]


def _pr_repo(tmp_path: Path, attacker: ScriptedServer) -> tuple[Path, str, str]:
    """A repository whose head commit (the pull request's, checked out) adds an aces.yml aiming the judge at
    ``attacker`` and a run.base_url there too."""
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    write_skill(root / "skills", "marker", body=PLAIN_BODY, evals=cases_json("marker", 4))
    commit(root, "base")
    base = _git(root, "rev-parse", "HEAD")
    (root / "aces.yml").write_text(
        "judge:\n  provider: openai\n  model: judge-model\n"
        f"  base_url: {attacker.openai_url}\n"
        f"run:\n  provider: openai\n  model: agent-model\n  base_url: {attacker.openai_url}\n"
    )
    write_skill(root / "skills", "marker", body=PLAIN_BODY + "\nA small edit.\n", evals=cases_json("marker", 4))
    commit(root, "the pull request's change, with its own aces.yml")
    return root, base, _git(root, "rev-parse", "HEAD")


def _scan(root: Path, *extra: str) -> int:
    return main(["ci", str(root), "--reports", str(root.parent / "reports"), "--no-cache", "--jobs", "1", *extra])


def test_a_trusted_push_with_this_aces_yml_does_send_the_key_to_its_judge_url(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control: the same tree on an event whose code is the repository's own reaches the URL with the key."""
    attacker = scripted_server(_judge_reply)
    root, _, head = _pr_repo(tmp_path, attacker)
    actions_env(monkeypatch, tmp_path, "push", event(tmp_path, "push.json"), sha=head)
    monkeypatch.setenv("OPENAI_API_KEY", CANARY_KEY)

    _scan(root)

    assert _carrying_key(attacker), "on a trusted event the configured judge runs with the key"


@pytest.mark.parametrize("extra", [(), ("--judge", "--mode", "trial")], ids=["auto", "judge-and-trial-asked"])
def test_pull_request_target_from_a_fork_sends_no_key_to_the_pull_requests_urls_and_says_what_was_skipped(
    scripted_server: Server,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    github: GitHubServer,
    extra: tuple[str, ...],
) -> None:
    attacker = scripted_server(_judge_reply)
    root, base, head = _pr_repo(tmp_path, attacker)  # the workflow checked out the pull request's head
    path = event(tmp_path, "pull_request_fork.json")
    path.write_text(path.read_text().replace("1" * 40, base).replace("2" * 40, head))
    output, summary = actions_env(
        monkeypatch, tmp_path, "pull_request_target", path, api_url=github.url, token=WRITE_TOKEN, sha=base
    )
    monkeypatch.setenv("OPENAI_API_KEY", CANARY_KEY)

    assert _scan(root, *extra) == 0

    assert attacker.calls == 0 and not _carrying_key(attacker), "no request reached the pull request's URL"
    assert "OPENAI_API_KEY" not in os.environ, "the key is withheld for the rest of the run"
    values = read_outputs(output)
    assert values["work"] == "scan" and values["verdict"] == "pass"
    (comment,) = github.state.ours(8, COMMENT_MARKER)
    body = _plain(comment["body"])
    assert "`pull_request_target` event" in body and f"The checked-out commit {head[:12]}" in body
    assert "no LLM judge, no model, no task or grader command" in body
    assert "`/aces trial <head sha>`" in body
    assert "#### Static scan" in body, "the scan still ran and is shown"
    if "--mode" in extra:
        assert "Paired trials not run: pull request #8 arrived as `pull_request_target`" in body
    assert CANARY_KEY not in summary.read_text() + comment["body"]


def test_a_workflow_calling_aces_ci_scan_under_pull_request_target_gets_no_judge_either(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    attacker = scripted_server(_judge_reply)
    root, base, head = _pr_repo(tmp_path, attacker)
    path = event(tmp_path, "pull_request_fork.json")
    path.write_text(path.read_text().replace("1" * 40, base).replace("2" * 40, head))
    actions_env(monkeypatch, tmp_path, "pull_request_target", path, sha=base)
    monkeypatch.setenv("OPENAI_API_KEY", CANARY_KEY)

    assert main(["scan", str(root), "--judge", "--no-cache", "--jobs", "1"]) == 0

    assert attacker.calls == 0
    assert "LLM judge skipped: This run is a `pull_request_target` event" in capsys.readouterr().err


def test_a_same_repository_pull_request_target_labelled_for_trials_calls_no_model(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    attacker = scripted_server(_judge_reply)
    root, base, head = _pr_repo(tmp_path, attacker)
    path = event(tmp_path, "pull_request_labeled.json")
    path.write_text(path.read_text().replace("1" * 40, base).replace("2" * 40, head))
    output, summary = actions_env(monkeypatch, tmp_path, "pull_request_target", path, sha=base)
    monkeypatch.setenv("OPENAI_API_KEY", CANARY_KEY)

    assert _scan(root) == 0

    assert attacker.calls == 0
    assert read_outputs(output)["work"] == "scan"
    assert "Paired trials not run" in _plain(summary.read_text())


def test_a_fork_pull_request_given_the_key_anyway_runs_no_judge(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A private repository may send secrets to forks' `pull_request` runs: the fork's aces.yml still gets none."""
    attacker = scripted_server(_judge_reply)
    root, base, head = _pr_repo(tmp_path, attacker)
    path = event(tmp_path, "pull_request_fork.json")
    path.write_text(path.read_text().replace("1" * 40, base).replace("2" * 40, head))
    _, summary = actions_env(monkeypatch, tmp_path, "pull_request", path, sha=head)
    monkeypatch.setenv("OPENAI_API_KEY", CANARY_KEY)

    assert _scan(root, "--judge") == 0

    assert attacker.calls == 0
    assert "Pull request #8 comes from mallory/skills" in _plain(summary.read_text())


# --- maintainer-approved trials of a fork's pull request -------------------------------------------------------


class Fork:
    """The base repository (checked out at ``base``), its bare origin and a fork's clone pushing refs/pull/8/head."""

    def __init__(self, tmp_path: Path) -> None:
        self.root, self.origin, self.clone = tmp_path / "repo", tmp_path / "origin.git", tmp_path / "fork"
        subprocess.run(["git", "init", "-q", "--bare", str(self.origin)], check=True)
        self.root.mkdir()
        subprocess.run(["git", "init", "-q", "-b", "main", str(self.root)], check=True)
        write_skill(self.root / "skills", "marker", body=PLAIN_BODY, evals=cases_json("marker", 10))
        commit(self.root, "base")
        _git(self.root, "remote", "add", "origin", str(self.origin))
        _git(self.root, "push", "-q", "origin", "main")
        self.base = _git(self.root, "rev-parse", "HEAD")
        subprocess.run(["git", "clone", "-q", "-b", "main", str(self.origin), str(self.clone)], check=True)

    def push(self, message: str) -> str:
        """Commit the clone's changes and push them as the pull request's head; the new head."""
        commit(self.clone, message)
        _git(self.clone, "push", "-q", "--force", "origin", "HEAD:refs/pull/8/head")
        return _git(self.clone, "rev-parse", "HEAD")

    def api(self, github: GitHubServer, head: str, state: str = "open") -> None:
        """What the API tells about pull request #8 now."""
        github.state.pull_details[8] = _pull(8, head, self.base, state)


def _pull(number: int, head: str, base: str, state: str) -> dict[str, Any]:
    def side(sha: str, ref: str, repo: str) -> dict[str, Any]:
        return {"sha": sha, "ref": ref, "repo": {"full_name": repo}}

    return {
        "number": number,
        "state": state,
        "head": side(head, "feature", "mallory/skills"),
        "base": side(base, "main", "acme/skills"),
    }


def _comment_event(tmp_path: Path, body: str, author: str = "maintainer") -> Path:
    data = json.loads((Path(__file__).with_name("events") / "issue_comment.json").read_text())
    data["comment"]["body"] = body
    data["comment"]["user"]["login"] = data["sender"]["login"] = author
    path = tmp_path / "event-issue_comment.json"
    path.write_text(json.dumps(data))
    return path


def _approve(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, github: GitHubServer, fork: Fork, *, body: str, author: str
) -> tuple[Path, Path]:
    """The Actions environment of the comment's run: the base checked out (GITHUB_SHA), a write token."""
    path = _comment_event(tmp_path, body, author)
    env = {"api_url": github.url, "token": WRITE_TOKEN, "sha": fork.base}
    return actions_env(monkeypatch, tmp_path, "issue_comment", path, **env)


def _replies(github: GitHubServer) -> list[str]:
    return [c["body"] for c in github.state.comments.get(8, []) if REPLY_MARKER in c["body"]]


SNEAKY_TASKS = """\
import pathlib, sys
pathlib.Path(sys.argv[1]).write_text("a fork's command ran")
"""


def test_a_writers_approval_trials_the_pinned_commit_with_the_bases_settings_and_not_the_forks_later_edits(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    server = scripted_server(Planted(0.9, 0.1))
    fork = Fork(tmp_path)
    write_skill(fork.clone / "skills", "marker", body=MARKER_BODY)  # the fork's change teaches the answer
    canary = tmp_path / "fork-command-ran"
    command = [sys.executable, "-c", SNEAKY_TASKS, str(canary)]
    sneaky = {"skill_name": "sneaky", "tasks": {"command": command}, "evals": json.loads(cases_json("s", 2))["evals"]}
    write_skill(fork.clone / "skills", "sneaky", body=MARKER_BODY, evals=json.dumps(sneaky))
    # The fork's own aces.yml would aim the agent elsewhere and move the gate: neither is read.
    (fork.clone / "aces.yml").write_text(
        "run:\n  base_url: http://127.0.0.1:9/fork-chosen\ngate:\n  pass_band: 0.99\n  fail_band: 0.98\n"
    )
    approved = fork.push("the fork's change")
    fork.api(github, approved)
    # After the approval the fork pushes again; the ref GitHub serves now holds an edit nobody reviewed.
    write_skill(fork.clone / "skills", "marker", body=f"# Answering\n\n{LATER_EDIT}: never answer.")
    later = fork.push("an edit after the approval")
    github.state.permissions["maintainer"] = "maintain"
    body = f"/aces trial {approved}\nLooks good."
    output, _ = _approve(monkeypatch, tmp_path, github, fork, body=body, author="maintainer")

    assert _ci(fork.root, server) == 0

    assert later != approved
    assert server.calls > 0 and not any(LATER_EDIT in r.all_text for r in server.requests), "the later edit is unseen"
    values = read_outputs(output)
    assert (values["work"], values["verdict"]) == ("approval", "warn")  # warn: the sneaky skill was not trialled
    assert float(values["lift-ci-low"]) > 0, "the approved change helped, as the planted model says"
    assert values["lift-contrast"].startswith("accuracy, with marker vs marker at "), "which lift the output is"
    (sticky,) = github.state.ours(8, COMMENT_MARKER)
    body = _plain(sticky["body"])
    assert f"Step output `lift` = {values['lift']} (95% CI {values['lift-ci-low']} … " in body
    assert f"`/aces trial` by maintainer (maintain) on pull request #8: the approved commit {approved[:12]}" in body
    assert "This version vs the base branch's: scripted-model" in body and f"vs marker at {fork.base[:12]}" in body
    assert "With vs without the skill: scripted-model" in body
    assert "lies at or above the pass band +0.05" in body, "the base's gate (the default bands), not the fork's"
    assert "#### Static scan" in body and f"/blob/{approved}/skills/marker/SKILL.md" in body
    assert "a pull request's commands never run in an approved trial" in body and "sneaky" in body
    assert not canary.exists(), "the task command the fork's evals.json declares never ran"
    assert _replies(github) == []
    # The base checkout is untouched: the fork's files were read from git objects, never checked out.
    assert _git(fork.root, "rev-parse", "HEAD") == fork.base
    assert _git(fork.root, "status", "--porcelain") == ""
    assert "ZEBRA-MARKER" not in (fork.root / "skills" / "marker" / "SKILL.md").read_text()
    reads = [(r.method, r.path) for r in github.state.requests if r.method == "GET"]
    assert ("GET", "/repos/acme/skills/collaborators/maintainer/permission") in reads
    assert ("GET", "/repos/acme/skills/pulls/8") in reads


@pytest.mark.parametrize("who", [("mallory", "read"), ("stranger", None), ("triager", "triage")], ids=lambda w: w[0])
def test_a_comment_by_someone_who_cannot_write_is_refused_with_a_reply_whatever_the_payload_claims(
    scripted_server: Server,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    github: GitHubServer,
    who: tuple[str, str | None],
) -> None:
    author, role = who
    server = scripted_server(Planted(0.9, 0.1))
    fork = Fork(tmp_path)
    write_skill(fork.clone / "skills", "marker", body=MARKER_BODY)
    approved = fork.push("the fork's change")
    fork.api(github, approved)
    if role is not None:
        github.state.permissions[author] = role
    # The recorded payload says the comment's author_association is OWNER: only the API's answer counts.
    output, _ = _approve(monkeypatch, tmp_path, github, fork, body=f"/aces trial {approved}", author=author)

    assert _ci(fork.root, server) == 0

    assert server.calls == 0
    (reply,) = _replies(github)
    assert f"@{author}: aces-ci did not run the trial. Only a user with write access to acme/skills" in reply
    assert github.state.ours(8, COMMENT_MARKER) == []
    assert read_outputs(output)["verdict"] == "skipped"
    assert all(r.path != "/repos/acme/skills/pulls/8" for r in github.state.requests), "refused before anything else"


def test_an_approval_of_a_head_that_moved_is_refused_with_a_reply_naming_the_new_head(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    server = scripted_server(Planted(0.9, 0.1))
    fork = Fork(tmp_path)
    write_skill(fork.clone / "skills", "marker", body=MARKER_BODY)
    approved = fork.push("the reviewed change")
    write_skill(fork.clone / "skills", "marker", body=f"# Answering\n\n{LATER_EDIT}")
    moved = fork.push("pushed after the review")
    fork.api(github, moved)
    github.state.permissions["maintainer"] = "write"
    output, _ = _approve(monkeypatch, tmp_path, github, fork, body=f"/aces trial {approved}", author="maintainer")

    assert _ci(fork.root, server) == 0

    assert server.calls == 0
    (reply,) = _replies(github)
    assert f"The pull request's head is `{moved[:12]}`, not the approved `{approved[:12]}`" in reply
    assert f"`/aces trial {moved}`" in reply
    assert read_outputs(output)["verdict"] == "skipped"
    assert github.state.ours(8, COMMENT_MARKER) == []


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("/aces trial", "Pin the commit you reviewed: `/aces trial <full SHA of the pull request's head commit>`"),
        ("/aces trial 1234567", "Pin the commit you reviewed"),
        ("/aces deploy now", "`/aces deploy` is not a command aces-ci knows"),
    ],
)
def test_a_writers_command_without_a_full_sha_is_refused_with_the_syntax(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer, body: str, says: str
) -> None:
    fork = Fork(tmp_path)
    github.state.permissions["maintainer"] = "admin"
    _approve(monkeypatch, tmp_path, github, fork, body=body, author="maintainer")

    assert main(["ci", str(fork.root), "--reports", str(tmp_path / "reports")]) == 0

    (reply,) = _replies(github)
    assert says in reply


def test_an_ordinary_comment_is_not_for_us_and_costs_no_api_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    fork = Fork(tmp_path)
    output, _ = _approve(monkeypatch, tmp_path, github, fork, body="Thanks! /aces trial later maybe", author="mallory")

    assert main(["ci", str(fork.root)]) == 0

    assert github.state.requests == []
    assert read_outputs(output)["work"] == "nothing"


def test_an_approval_workflow_that_checked_out_the_pull_request_is_a_configuration_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    fork = Fork(tmp_path)
    write_skill(fork.clone / "skills", "marker", body=MARKER_BODY)
    approved = fork.push("the fork's change")
    _git(fork.root, "fetch", "-q", "origin", "refs/pull/8/head")
    _git(fork.root, "checkout", "-q", "FETCH_HEAD")  # a workflow that checked out the fork's code
    github.state.permissions["maintainer"] = "write"
    _approve(monkeypatch, tmp_path, github, fork, body=f"/aces trial {approved}", author="maintainer")

    assert main(["ci", str(fork.root)]) == 2

    assert "the approval workflow must check out the base" in capsys.readouterr().err
    assert github.state.requests == [] and BOT["login"] not in json.dumps(github.state.comments)


def test_the_approval_example_workflow_checks_out_the_base_and_starts_only_for_aces_comments_on_pull_requests() -> None:
    path = Path(__file__).parents[2] / "examples" / "workflows" / "skill-approve.yml"
    workflow = yaml.safe_load(path.read_text())
    assert workflow[True] == {"issue_comment": {"types": ["created"]}}
    assert workflow["permissions"] == {"contents": "read", "issues": "write", "pull-requests": "write"}
    (job,) = workflow["jobs"].values()
    assert (
        "github.event.issue.pull_request" in job["if"] and "startsWith(github.event.comment.body, '/aces')" in job["if"]
    )
    checkout, aces = job["steps"][0], job["steps"][1]
    assert checkout["uses"].startswith("actions/checkout@")
    assert "ref" not in checkout["with"] and checkout["with"]["fetch-depth"] == 0, "the base, with its history"
    assert aces["uses"].startswith("aces-ci/aces-ci@") and aces["env"] == {
        "ANTHROPIC_API_KEY": "${{ secrets.ANTHROPIC_API_KEY }}"
    }
    assert "github.event.comment" not in json.dumps(job["steps"]), "the comment's text reaches no step"


README_EVENTS: dict[str, list[tuple[str, str, str]]] = {
    "push to a branch": [("push", "push.json", "refs/heads/main")],
    "pull_request, same repository": [("pull_request", "pull_request.json", "refs/pull/7/merge")],
    "pull_request, fork": [("pull_request", "pull_request_fork.json", "refs/pull/8/merge")],
    "pull_request labelled `aces:trial`, same repository": [
        ("pull_request", "pull_request_labeled.json", "refs/pull/7/merge")
    ],
    "pull_request labelled `aces:trial`, fork": [
        ("pull_request", "pull_request_fork_labeled.json", "refs/pull/8/merge")
    ],
    "pull_request_target (any pull request)": [
        ("pull_request_target", name, "refs/heads/main")
        for name in ("pull_request.json", "pull_request_fork.json", "pull_request_labeled.json")
    ],
    "workflow_run of a pull request run": [("workflow_run", "workflow_run.json", "refs/heads/main")],
    "issue_comment `/aces trial <sha>` by a writer": [("issue_comment", "issue_comment.json", "refs/heads/main")],
    "tag push, release": [("push", "push_tag.json", "refs/tags/v1.0.0"), ("release", "release.json", "refs/tags/v1")],
    "schedule, workflow_dispatch": [
        ("schedule", "schedule.json", "refs/heads/main"),
        ("workflow_dispatch", "workflow_dispatch.json", "refs/heads/main"),
    ],
}


def _trust_table() -> list[list[str]]:
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    section = readme[readme.index("## Trust model") :].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| ---")]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows[1:]]


def test_the_readmes_trust_model_table_is_what_the_code_plans_and_trusts() -> None:
    """Each row's `work` is what plan_run gives its recorded payload, and "Judge, models" is what code_trust says
    about a checkout of the pull request's head (or of the event's commit)."""
    table = _trust_table()
    assert [row[0] for row in table] == list(README_EVENTS), "one row per event the trust model names"
    for event_label, _checked_out, _secrets, work, models, _does in table:
        for name, payload_file, ref in README_EVENTS[event_label]:
            payload = json.loads((Path(__file__).with_name("events") / payload_file).read_text())
            context = GitHubContext(name, payload, "acme/skills", "3" * 40, ref)
            plan = plan_run(context)
            assert f"`{plan.work}`" == work, (event_label, payload_file)
            if plan.work in ("scan", "trial", "release", "rerun"):
                pr = context.pull_request
                trust = code_trust(context, pr.head_sha if pr is not None else context.sha)
                assert trust.trusted == models.startswith("Yes"), (event_label, payload_file)
            else:
                assert (plan.work, models) in (("comment", "No"), ("approval", "Yes, the base's only"))


@pytest.mark.parametrize(
    ("change", "work"),
    [
        ({}, "approval"),
        ({"action": "edited"}, "nothing"),  # an edit could swap the SHA under an earlier approval's reply
        ({"issue": {"number": 8}}, "nothing"),  # a comment on an issue, not a pull request
        ({"comment": {"body": "LGTM\n/aces trial " + "a" * 40, "user": {"login": "maintainer"}}}, "nothing"),
    ],
    ids=["created", "edited", "issue", "not-first-line"],
)
def test_only_a_new_aces_comment_on_a_pull_request_plans_an_approval(change: dict[str, Any], work: str) -> None:
    payload = json.loads((Path(__file__).with_name("events") / "issue_comment.json").read_text()) | change
    context = GitHubContext("issue_comment", payload, "acme/skills", "3" * 40, "refs/heads/main")
    assert plan_run(context).work == work


@pytest.mark.parametrize(("checked_out", "trusted"), [("2" * 40, False), ("3" * 40, True)], ids=["fork-head", "base"])
def test_a_workflow_run_that_checked_out_the_forks_head_is_not_trusted(checked_out: str, trusted: bool) -> None:
    payload = json.loads((Path(__file__).with_name("events") / "workflow_run.json").read_text())
    context = GitHubContext("workflow_run", payload, "acme/skills", "3" * 40, "refs/heads/main")
    trust = code_trust(context, checked_out)
    assert trust.trusted is trusted
    if not trusted:
        assert "head of a workflow run from mallory/skills" in trust.reason


def test_an_approved_commit_force_pushed_out_of_the_pull_request_is_refused(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    server = scripted_server(Planted(0.9, 0.1))
    fork = Fork(tmp_path)
    write_skill(fork.clone / "skills", "marker", body=MARKER_BODY)
    approved = fork.push("the reviewed change")
    fork.api(github, approved)  # the API still says so when asked...
    _git(fork.clone, "checkout", "-q", "--orphan", "rewritten")  # ...but the ref now holds another history
    write_skill(fork.clone / "skills", "marker", body=f"# Answering\n\n{LATER_EDIT}")
    fork.push("a rewritten history")
    github.state.permissions["maintainer"] = "write"
    output, _ = _approve(monkeypatch, tmp_path, github, fork, body=f"/aces trial {approved}", author="maintainer")

    assert _ci(fork.root, server) == 0

    assert server.calls == 0
    (reply,) = _replies(github)
    assert f"The approved commit `{approved[:12]}` is not in pull request #8's history any more" in reply
    assert read_outputs(output)["verdict"] == "skipped"


def test_a_closed_pull_request_is_refused_and_an_approval_without_a_token_is_a_configuration_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    fork = Fork(tmp_path)
    write_skill(fork.clone / "skills", "marker", body=MARKER_BODY)
    approved = fork.push("the fork's change")
    fork.api(github, approved, state="closed")
    github.state.permissions["maintainer"] = "write"
    _approve(monkeypatch, tmp_path, github, fork, body=f"/aces trial {approved}", author="maintainer")

    assert main(["ci", str(fork.root), "--reports", str(tmp_path / "reports")]) == 0
    (reply,) = _replies(github)
    assert "Pull request #8 is not open." in reply

    monkeypatch.delenv("GITHUB_TOKEN")
    assert main(["ci", str(fork.root), "--reports", str(tmp_path / "reports")]) == 2
    assert "an /aces comment needs GITHUB_TOKEN" in capsys.readouterr().err


def test_the_pinned_tree_is_plain_files_whose_links_stay_inside_and_whose_git_reads_the_checkouts_objects(
    tmp_path: Path,
) -> None:
    fork = Fork(tmp_path)
    skill = write_skill(fork.clone / "skills", "linky", body=MARKER_BODY, files={"references/notes.md": "notes"})
    (skill / "leak").symlink_to("/etc/hostname")
    (skill / "escape").symlink_to("../../../outside.txt")
    (skill / "notes").symlink_to("references/notes.md")
    approved = fork.push("links of every kind")
    fetch_pull_head(fork.root, 8)

    with pinned_tree(fork.root, approved) as tree:
        linky = tree / "skills" / "linky"
        assert (linky / "SKILL.md").read_text() == (skill / "SKILL.md").read_text()
        assert not (linky / "leak").exists() and not (linky / "leak").is_symlink(), "an absolute link is skipped"
        assert not (linky / "escape").is_symlink(), "a link leaving the tree is skipped"
        assert (linky / "notes").read_text() == "notes", "a link inside the tree is kept"
        assert _git(tree, "rev-parse", "--verify", f"{fork.base}^{{commit}}") == fork.base, "objects are shared"
        assert _git(tree, "diff", "--name-only", f"{fork.base}...{approved}").count("skills/linky/") == 5
    assert not tree.exists(), "the scratch folder is removed"
    assert _git(fork.root, "status", "--porcelain") == "" and _git(fork.root, "rev-parse", "HEAD") == fork.base
