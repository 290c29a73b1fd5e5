"""``aces-ci ci`` end to end: recorded event payloads, a local GitHub REST server, the runner's files."""

from __future__ import annotations

import functools
import json
import time
from pathlib import Path

import pytest
import xmlschema

from aces_ci.cli import main
from aces_ci.github import COMMENT_MARKER, seal
from aces_ci.schemas import validator

from .helpers import REPOSITORY, actions_env, event, make_repo, read_outputs
from .server import (
    BOT,
    FORK_TOKEN,
    WRITE_TOKEN,
    Fault,
    GitHubServer,
    html_page,
    primary_rate_limit,
    secondary_rate_limit,
    server_error,
)

JUNIT_XSD = xmlschema.XMLSchema(Path(__file__).parents[1] / "report" / "junit.xsd")


def _ci(repo: Path, *extra: str) -> int:
    return main(["ci", str(repo), "--reports", str(repo.parent / "reports"), "--no-cache", "--jobs", "1", *extra])


def test_push_scans_gates_and_writes_every_report_and_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path, broken=True)
    output, summary = actions_env(monkeypatch, tmp_path, "push", event(tmp_path, "push.json", repo), sha=repo.head)

    assert _ci(repo.root) == 1

    out = capsys.readouterr()
    values = read_outputs(output)
    reports = tmp_path / "reports"
    assert values["verdict"] == "fail"
    assert values["work"] == "scan"
    assert values["score"].isdigit() and int(values["score"]) < 70
    assert (values["lift"], values["lift-ci-low"], values["lift-ci-high"]) == ("", "", "")
    assert values["junit-report"] == str(reports / "junit.xml")
    assert values["changed-skills"].split("\n") == ["skills/broken-skill", "skills/csv-summary"]
    assert "::error file=skills/broken-skill/SKILL.md,line=2,title=SPEC" in out.out
    JUNIT_XSD.validate(str(reports / "junit.xml"))
    junit = (reports / "junit.xml").read_text()
    assert 'name="aces-ci gate"' in junit and 'name="scan.errors"' in junit
    data = json.loads((reports / "results.json").read_text())
    assert list(validator("scan-result").iter_errors(data)) == []
    text = summary.read_text()
    assert text.startswith(COMMENT_MARKER)
    assert f"https://github.com/{REPOSITORY}/blob/{repo.head}/skills/broken-skill/SKILL.md#L2" in text
    # A scan-only comment is short and says nothing SkillSV did not do (no compile jargon)
    assert "SkillSV compile" not in text and "contractions" not in text
    # two skills, five findings with their fixes: 2.9 KB (3.5 KB with a docs link per rule and a linked, fully
    # pathed criterion above the table that links the same lines; 3.7 KB with the reasons said twice and an empty
    # judge column, 6.1 KB with padded tables and compile notes)
    assert len(text.encode()) < 3 * 1024, len(text.encode())
    assert text.count("structural score 55 is below the minimum 70") == 1, "the reason is said once, as a criterion"
    assert "Judge score" not in text, "no judge ran: no column of dashes"


def test_first_pr_run_creates_one_comment_and_later_runs_update_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    repo = make_repo(tmp_path, broken=True)
    path = event(tmp_path, "pull_request.json", repo)
    github.state.add_comment(7, f"{COMMENT_MARKER}\nquoted by a human")  # marker, but not our author
    output, _ = actions_env(monkeypatch, tmp_path, "pull_request", path, api_url=github.url, token=WRITE_TOKEN)

    assert _ci(repo.root) == 1
    ours = github.state.ours(7, COMMENT_MARKER)
    assert len(ours) == 1
    assert "❌ aces-ci: gate failed" in ours[0]["body"]
    assert read_outputs(output)["comment-url"] == ours[0]["html_url"]

    (repo.root / "skills" / "broken-skill" / "SKILL.md").unlink()
    (repo.root / "skills" / "broken-skill").rmdir()
    assert _ci(repo.root) == 0
    ours = github.state.ours(7, COMMENT_MARKER)
    assert len(ours) == 1
    assert "✅ aces-ci: gate passed" in ours[0]["body"]
    posts = [r for r in github.state.writes() if r.method == "POST"]
    patches = [r for r in github.state.writes() if r.method == "PATCH"]
    assert (len(posts), len(patches)) == (1, 1)
    assert all(r.authorization == f"Bearer {WRITE_TOKEN}" for r in github.state.requests)


def test_comment_is_found_across_more_than_100_comments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    repo = make_repo(tmp_path, broken=False)
    for index in range(130):
        github.state.add_comment(7, f"review comment {index}")
    github.state.add_comment(7, seal(f"{COMMENT_MARKER}\nold result", COMMENT_MARKER, REPOSITORY, 7, None), dict(BOT))
    for index in range(120):
        github.state.add_comment(7, f"later comment {index}")
    actions_env(
        monkeypatch,
        tmp_path,
        "pull_request",
        event(tmp_path, "pull_request.json", repo),
        api_url=github.url,
        token=WRITE_TOKEN,
    )

    assert _ci(repo.root) == 0

    pages = [r for r in github.state.requests if r.method == "GET" and r.path.endswith("/issues/7/comments")]
    assert len(pages) >= 2  # 251 comments at 100 per page: the marker is on page 2
    assert [r.method for r in github.state.writes()] == ["PATCH"]
    assert len(github.state.ours(7, COMMENT_MARKER)) == 1
    assert "old result" not in github.state.ours(7, COMMENT_MARKER)[0]["body"]


def test_fork_pr_without_write_permission_falls_back_to_the_step_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path, broken=True)
    _, summary = actions_env(
        monkeypatch,
        tmp_path,
        "pull_request",
        event(tmp_path, "pull_request_fork.json", repo),
        api_url=github.url,
        token=FORK_TOKEN,
    )

    assert _ci(repo.root) == 1  # the gate's verdict, not an infrastructure error

    assert github.state.comments.get(8, []) == []
    text = summary.read_text()
    assert text.startswith(COMMENT_MARKER)  # written before the comment was tried, then the line saying why
    assert "\n> The PR comment could not be posted: this token may not write" in text
    err = capsys.readouterr().err
    assert "Resource not accessible by integration" in err
    assert FORK_TOKEN not in err and FORK_TOKEN not in text


def test_5xx_and_secondary_rate_limits_are_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    repo = make_repo(tmp_path, broken=False)
    actions_env(
        monkeypatch,
        tmp_path,
        "pull_request",
        event(tmp_path, "pull_request.json", repo),
        api_url=github.url,
        token=WRITE_TOKEN,
    )
    # The first request (GET /user) meets a 502, then a secondary rate limit, then its real answer.
    github.state.faults = [server_error(502), secondary_rate_limit("1")]

    assert _ci(repo.root) == 0

    assert len(github.state.ours(7, COMMENT_MARKER)) == 1
    assert [r.path for r in github.state.requests[:4]] == [
        "/user",
        "/user",
        "/user",
        f"/repos/{REPOSITORY}/issues/7/comments",
    ]


def test_labelled_fork_pr_runs_no_paid_work_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path, broken=False)
    _, summary = actions_env(
        monkeypatch, tmp_path, "pull_request", event(tmp_path, "pull_request_fork_labeled.json", repo)
    )

    assert _ci(repo.root) == 0  # scanned instead, and the scan passes

    assert "fork code never gets this repository's secrets" in summary.read_text()
    assert "mallory/skills" in capsys.readouterr().err


def test_mode_scan_runs_the_static_gate_on_a_release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path, broken=False)
    output, _ = actions_env(monkeypatch, tmp_path, "release", event(tmp_path, "release.json", repo))

    assert _ci(repo.root, "--mode", "scan") == 0
    assert read_outputs(output)["verdict"] == "pass"


def test_workflow_run_commenter_posts_the_fork_runs_result(
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
    assert _ci(repo.root) == 1
    artifact = tmp_path / "reports"
    github.state.pulls.append(
        {"number": 8, "head": {"sha": repo.head, "ref": "feature", "repo": {"owner": {"login": "mallory"}}}}
    )
    run_event = event(tmp_path, "workflow_run.json", repo)
    actions_env(monkeypatch, tmp_path, "workflow_run", run_event, api_url=github.url, token=WRITE_TOKEN)

    assert main(["ci", ".", "--results", str(artifact)]) == 0

    ours = github.state.ours(8, COMMENT_MARKER)
    assert len(ours) == 1
    assert "skills/broken-skill" in ours[0]["body"]
    assert f"/blob/{repo.head}/" in ours[0]["body"]


def test_workflow_run_refuses_a_tampered_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    artifact = tmp_path / "artifact"
    artifact.mkdir()
    (artifact / "results.json").write_text(json.dumps({"schema_version": 1, "body": "<img src=x onerror=alert(1)>"}))
    actions_env(
        monkeypatch,
        tmp_path,
        "workflow_run",
        event(tmp_path, "workflow_run.json"),
        api_url=github.url,
        token=WRITE_TOKEN,
    )

    assert main(["ci", ".", "--results", str(artifact)]) == 2

    assert "not an aces-ci scan result" in capsys.readouterr().err
    assert github.state.writes() == []


def test_missing_event_payload_is_an_input_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    actions_env(monkeypatch, tmp_path, "push", tmp_path / "missing.json")

    assert main(["ci", str(tmp_path)]) == 2
    assert "event payload (GITHUB_EVENT_PATH) not found" in capsys.readouterr().err


def test_ci_sarif_validates_against_the_full_sarif_2_1_0_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import jsonschema

    from ..report_tools import SARIF_SCHEMA, require

    schema = json.loads(require(SARIF_SCHEMA, "SARIF 2.1.0 schema (npm)").read_text())
    repo = make_repo(tmp_path, broken=True)
    actions_env(monkeypatch, tmp_path, "push", event(tmp_path, "push.json", repo), sha=repo.head)

    assert _ci(repo.root) == 1

    sarif = json.loads((tmp_path / "reports" / "results.sarif").read_text())
    assert list(jsonschema.Draft4Validator(schema).iter_errors(sarif)) == []
    assert sarif["runs"][0]["results"]


def _github_failures(name: str, url: str) -> list[Fault]:
    """What GitHub (or a proxy in front of it) answers in each failure mode, for every matching request."""
    comments = f"/repos/{REPOSITORY}/issues/7/comments"
    loop = f'<{url}{comments}?per_page=100&page=2>; rel="next"'
    modes = {
        "rate limit (403, resets in an hour)": [primary_rate_limit(int(time.time()) + 3600)],
        "502 on every request": [server_error(502)],
        "HTML page answering 200": [html_page()],
        "Link loop": [Fault(200, {"Link": loop}, [], only=f"GET {comments}")],
        "422 on POST (body too long)": [Fault(422, {}, {"message": "Validation Failed"}, only="POST .*")],
        "500 on POST": [Fault(500, {}, {"message": "Server Error"}, only="POST .*")],
    }
    return modes[name] * 30


@pytest.mark.parametrize(
    "mode",
    [
        "rate limit (403, resets in an hour)",
        "502 on every request",
        "HTML page answering 200",
        "Link loop",
        "422 on POST (body too long)",
        "500 on POST",
    ],
)
@pytest.mark.parametrize("broken", [False, True], ids=["gate passes", "gate fails"])
def test_a_github_failure_costs_the_comment_never_the_reports_outputs_or_summary(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    github: GitHubServer,
    capsys: pytest.CaptureFixture[str],
    *,
    mode: str,
    broken: bool,
) -> None:
    from aces_ci.github import RetryPolicy, _rest

    monkeypatch.setattr(_rest, "RetryPolicy", functools.partial(RetryPolicy, attempts=2, backoff_s=0.01))
    repo = make_repo(tmp_path, broken=broken)
    output, summary = actions_env(
        monkeypatch,
        tmp_path,
        "pull_request",
        event(tmp_path, "pull_request.json", repo),
        api_url=github.url,
        token=WRITE_TOKEN,
    )
    github.state.faults = _github_failures(mode, github.url)

    code = _ci(repo.root, "--check-run")

    # The gate's failure keeps its 1; a gate that passed but could not post its comment is 3, not 0.
    assert code == (1 if broken else 3)
    err = capsys.readouterr().err
    assert "Traceback" not in err and WRITE_TOKEN not in err
    assert "The PR comment could not be posted" in err
    assert "read-only" not in err  # a rate limit or an outage is never reported as a fork's token
    if mode.startswith("rate limit"):
        assert "rate limited (HTTP 403)" in err and "retry the job later" in err
    reports = tmp_path / "reports"
    for name in ("results.json", "junit.xml", "results.sarif", "comment.md"):
        assert (reports / name).stat().st_size > 0, name
    values = read_outputs(output)
    assert values["verdict"] == ("fail" if broken else "pass")
    assert values["score"].isdigit() and values["comment-url"] == ""
    text = summary.read_text()
    assert text.startswith(COMMENT_MARKER) and "could not be posted" in text
    assert github.state.comments.get(7, []) == []


def test_the_workflow_run_commenter_writes_its_outputs_before_a_github_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    from aces_ci.github import RetryPolicy, _rest

    monkeypatch.setattr(_rest, "RetryPolicy", functools.partial(RetryPolicy, attempts=2, backoff_s=0.01))
    repo = make_repo(tmp_path, broken=True)
    actions_env(
        monkeypatch, tmp_path, "pull_request", event(tmp_path, "pull_request_fork.json", repo), token=FORK_TOKEN
    )
    assert _ci(repo.root) == 1
    output, _ = actions_env(
        monkeypatch,
        tmp_path,
        "workflow_run",
        event(tmp_path, "workflow_run.json", repo),
        api_url=github.url,
        token=WRITE_TOKEN,
    )
    output.write_text("")
    github.state.faults = [server_error(502)] * 30

    assert main(["ci", ".", "--results", str(tmp_path / "reports")]) == 3

    err = capsys.readouterr().err
    assert "Traceback" not in err and "failed after 2 attempt(s): HTTP 502" in err
    values = read_outputs(output)
    assert values["verdict"] == "fail" and values["work"] == "comment" and "comment-url" not in values
