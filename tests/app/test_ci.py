"""``aces_ci.app.ci``: one workflow step from the event and a frozen :class:`CiConfig`, as ``aces-ci ci`` calls it."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from aces_ci import app
from aces_ci.config import CiConfig, CiReports, GitHubOutput, ScanFlags
from aces_ci.github import COMMENT_MARKER, GitHubContext
from tests.github.helpers import REPOSITORY, actions_env, event, make_repo, read_outputs
from tests.github.server import WRITE_TOKEN, GitHubServer


def _config(repo: Path, reports: Path, **changes: object) -> CiConfig:
    files = CiReports(
        folder=reports,
        json=reports / "results.json",
        junit=reports / "junit.xml",
        sarif=reports / "results.sarif",
        markdown=reports / "comment.md",
        html=reports / "report.html",
    )
    config = CiConfig(path=repo, scan=ScanFlags(path=repo, jobs=1, cache_dir=None), reports=files)
    return dataclasses.replace(config, **changes)  # type: ignore[arg-type]


def test_a_pull_request_run_writes_one_html_page_and_the_comment_links_the_run_artifacts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    repo = make_repo(tmp_path, broken=True)
    path = event(tmp_path, "pull_request.json", repo)
    output, _ = actions_env(monkeypatch, tmp_path, "pull_request", path, api_url=github.url, token=WRITE_TOKEN)
    reports = tmp_path / "reports"

    outcome = app.ci(GitHubContext.from_env(os.environ), _config(repo.root, reports))

    assert (outcome.work, outcome.exit_code) == ("scan", 1)
    assert outcome.decision is not None and outcome.decision.verdict == "fail"
    page = (reports / "report.html").read_text()
    assert page.lstrip().lower().startswith("<!doctype html")
    scanned = json.loads((reports / "results.json").read_text())
    for skill in scanned["skills"]:
        assert skill["name"] in page, "every skill the scan JSON holds is on the page"
    head = GitHubContext.from_env(os.environ).head_sha
    assert f'href="https://github.com/{REPOSITORY}/blob/{head}/skills/broken-skill/SKILL.md#L2"' in page, (
        "the page links each finding's line at the commit under test, as the comment does"
    )
    assert read_outputs(output)["html-report"] == str(reports / "report.html")
    (comment,) = github.state.ours(7, COMMENT_MARKER)
    artifacts = f"https://github.com/{REPOSITORY}/actions/runs/42#artifacts"
    assert f"[HTML report]({artifacts})" in comment["body"]
    assert f"[HTML report]({artifacts})" in (reports / "comment.md").read_text()


def test_with_the_html_report_off_there_is_no_page_and_no_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    repo = make_repo(tmp_path, broken=True)
    path = event(tmp_path, "pull_request.json", repo)
    output, _ = actions_env(monkeypatch, tmp_path, "pull_request", path, api_url=github.url, token=WRITE_TOKEN)
    reports = tmp_path / "reports"
    config = _config(repo.root, reports)
    config = dataclasses.replace(config, reports=dataclasses.replace(config.reports, html=None))

    assert app.ci(GitHubContext.from_env(os.environ), config).exit_code == 1

    assert not (reports / "report.html").exists()
    assert "html-report" not in read_outputs(output)
    (comment,) = github.state.ours(7, COMMENT_MARKER)
    assert "#artifacts" not in comment["body"]


def test_an_event_with_nothing_to_do_reads_no_aces_yml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A skipped event gates nothing: a broken aces.yml in the tree cannot fail it."""
    repo = make_repo(tmp_path, broken=True)
    (repo.root / "aces.yml").write_text("scan: [not, a, mapping\n")
    payload = tmp_path / "push.json"
    payload.write_text(json.dumps({"ref": "refs/heads/gone", "deleted": True, "before": repo.head, "after": "0" * 40}))
    output, _ = actions_env(monkeypatch, tmp_path, "push", payload, ref="refs/heads/gone")

    outcome = app.ci(GitHubContext.from_env(os.environ), _config(repo.root, tmp_path / "reports"))

    assert (outcome.work, outcome.exit_code, outcome.decision) == ("nothing", 0, None)
    assert read_outputs(output)["verdict"] == "skipped"


def test_ci_config_is_frozen_and_turns_the_judge_off_for_an_untrusted_checkout() -> None:
    config = CiConfig(github=GitHubOutput(comment=False))
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.mode = "rerun"  # type: ignore[misc]
    assert config.scan.judge == "when-configured"
    assert config.scan_only().scan.judge == "off"
    assert config.scan_only().github == config.github


def test_a_report_the_page_cannot_read_costs_the_page_not_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from aces_ci.app._ci_results import write_html_report
    from aces_ci.scan import ScanResult

    broken = tmp_path / "trial.json"
    broken.write_text('{"not": "a trial"}')
    reports = CiReports(folder=tmp_path, json=None, html=tmp_path / "report.html")
    result = ScanResult(
        tool_version="0.1.0",
        root=str(tmp_path),
        profile="lenient",
        min_score=70,
        skills=(),
        verdict="pass",
        generated_at="2026-01-01T00:00:00Z",
    )

    assert write_html_report(reports, result, {"trial": broken}) == {"html": None}
    assert not (tmp_path / "report.html").exists()
    assert "the HTML report was not written" in capsys.readouterr().err
    assert write_html_report(reports, result, {}) == {"html": tmp_path / "report.html"}
    assert (tmp_path / "report.html").is_file()
