"""Strings from a pull request are data wherever they land: the comment a forged result posts, the job's log.

The attacker controls a fork's results.json (the artifact the workflow_run commenter reads) and the
names of the folders a pull request adds. Neither may put markup of its own into the comment the
base repository's token posts, nor a workflow command into the log.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from aces_ci.cli import main
from aces_ci.github import COMMENT_MARKER

from .helpers import BROKEN, actions_env, event, git, make_repo
from .server import FORK_TOKEN, WRITE_TOKEN, GitHubServer

HOSTILE = (
    "x</details></summary>\n\n# HIJACK\n\n![x](http://evil.example/p.png)\n"
    "```\nfenced\n```\n@org/team <img src=x onerror=alert(1)> @mallory [link](http://evil.example)\n\n"
    "::stop-commands::tok\n## HIJACK 2"
)


def _hostile(data: dict[str, Any]) -> dict[str, Any]:
    """A fork's results.json with every string a pull request controls replaced by ``HOSTILE``."""
    for skill in data["skills"]:
        skill["skill"] = f"skills/{HOSTILE}"
        skill["skill_md"] = f"skills/{HOSTILE}/SKILL.md"
        skill["name"] = HOSTILE
        skill["reasons"] = [HOSTILE]
        for item in skill["findings"]:
            item.update(message=HOSTILE, path=f"skills/{HOSTILE}/SKILL.md", skill=f"skills/{HOSTILE}", fix=HOSTILE)
    return data


def assert_inert(body: str) -> None:
    """No raw image, heading, fence, live @mention or HTML of the attacker's in a comment body."""
    assert not re.search(r"!\[[^\]]*\]\(", body), "a raw image"
    assert not re.search(r"(?<!\\)\[link\]\(", body), "a raw link"
    assert not re.search(r"(?m)^ {0,3}#+ *HIJACK", body), "a heading"
    assert not re.search(r"(?m)^ {0,3}(```|~~~)", body), "a code fence"
    assert not re.search(r"@(?!\u200b)", body), "a live @mention"
    assert "<img" not in body and "</summary></summary>" not in body
    assert body.count("<details>") == body.count("</details>")
    for summary in re.findall(r"(?m)^<summary>.*$", body):
        assert summary.endswith("</summary>"), "a summary title broken across lines"
    assert not re.search(r"(?m)^\s*::", body)


def test_a_forged_result_through_workflow_run_posts_no_markup_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    repo = make_repo(tmp_path, broken=True)
    actions_env(
        monkeypatch,
        tmp_path,
        "pull_request",
        event(tmp_path, "pull_request_fork.json", repo),
        api_url=github.url,
        token=FORK_TOKEN,
    )
    assert main(["ci", str(repo.root), "--reports", str(tmp_path / "fork"), "--no-cache", "--jobs", "1"]) == 1
    results = tmp_path / "fork" / "results.json"
    results.write_text(json.dumps(_hostile(json.loads(results.read_text()))))
    github.state.pulls.append(
        {"number": 8, "head": {"sha": repo.head, "ref": "feature", "repo": {"owner": {"login": "mallory"}}}}
    )
    actions_env(
        monkeypatch,
        tmp_path,
        "workflow_run",
        event(tmp_path, "workflow_run.json", repo),
        api_url=github.url,
        token=WRITE_TOKEN,
    )

    assert main(["ci", ".", "--results", str(tmp_path / "fork")]) == 0

    (posted,) = github.state.comments[8]
    body = posted["body"]
    assert body.startswith(COMMENT_MARKER)
    assert "HIJACK" in body and "evil.example" in body  # shown, as text
    assert "@\u200borg/team" in body and "&lt;img" in body
    assert_inert(body)


def test_a_folder_name_cannot_write_a_workflow_command_or_a_mention(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path, broken=False)
    for folder in ("x\n::stop-commands::tok\n::warning::pwned", "@org/team"):
        skill = repo.root / "skills" / folder
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(BROKEN)
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-qm", "hostile folders")
    head = git(repo.root, "rev-parse", "HEAD")
    payload = event(tmp_path, "push.json", repo)
    payload.write_text(payload.read_text().replace(repo.head, head))
    _, summary = actions_env(monkeypatch, tmp_path, "push", payload, sha=head)

    code = main(["ci", str(repo.root), "--reports", str(tmp_path / "reports"), "--no-cache", "--jobs", "1"])

    assert code == 1
    out = capsys.readouterr()
    lines = (out.out + out.err).splitlines()
    commands = [line for line in lines if line.lstrip().startswith(("::", "##["))]
    assert commands, "the broken skills' findings are annotated"
    for line in commands:
        assert re.match(r"::(error|warning|notice) file=[^\n]*::", line), line
    assert "stop-commands" in out.out + out.err  # the name is shown, as text
    text = summary.read_text()
    assert "@\u200borg/team" in text
    assert not re.search(r"@(?!\u200b)", text)
    for title in re.findall(r"(?m)^<summary>.*$", text):
        assert title.endswith("</summary>")
