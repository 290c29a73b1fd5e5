"""The trials a labelled run keeps in the sticky comment: carried, bounded, redacted, and never taken from others."""

from __future__ import annotations

import base64
import json
import random
import re
import string
import zlib
from dataclasses import replace
from pathlib import Path

import pytest

from aces_ci.gate import decide, scan_criteria
from aces_ci.github import (
    COMMENT_LIMIT,
    COMMENT_MARKER,
    KEPT_DIGEST_LIMIT,
    CommentInputs,
    GitHubClient,
    KeptTrials,
    earlier_trials,
    keep_trials,
    read_kept,
    render_comment,
    seal,
)

from ..report.builders import PDF, build_registry, finding, pdf_report, sample_result
from .server import BOT, WRITE_TOKEN, GitHubServer
from .test_comment import LINKS, sample_comment

MEASURED = "a" * 40
HEAD = "b" * 40


def _digest_of(data: object) -> str:
    packed = zlib.compress(json.dumps(data).encode())
    return f"<!-- aces-ci:kept-trials v1 {base64.b64encode(packed).decode()} -->"


def test_a_run_with_trials_embeds_a_digest_that_a_later_run_reads_back() -> None:
    body = sample_comment()
    kept = read_kept(body)
    assert kept is not None and kept.commit == "abc1234def" and kept.verdict == "fail"
    assert kept.run_url == "https://github.com/acme/skills/actions/runs/42"
    assert "#### Paired trials" in kept.markdown and "| composite" in kept.markdown
    assert "What these numbers estimate" in kept.markdown and "lift.outcome" in kept.markdown
    assert "#### Static scan" not in kept.markdown, "the scan is each run's own; only the trials are carried"


def test_the_kept_trials_are_marked_with_their_commit_and_as_stale_once_the_head_moved() -> None:
    kept = KeptTrials(MEASURED, "pass", "| composite | +0.200 |\n", "https://example.invalid/run/1")
    stale = kept.section(HEAD)
    assert f"measured at `{MEASURED[:12]}` — stale: the pull request changed since" in stale
    assert f"not of this head (`{HEAD[:12]}`)" in stale and "they do not gate this run" in stale
    same = kept.section(MEASURED)
    assert "stale" not in same and "(this commit), from an earlier run" in same


def test_a_scan_only_comment_shows_the_kept_trials_and_carries_them_within_the_limit() -> None:
    kept = keep_trials(MEASURED, "warn", ["#### Paired trials: m on h\n\n" + "| composite | +0.1 |\n" * 1400], None)
    assert kept is not None and len(kept.markdown) > 25_000
    report = pdf_report()
    many = tuple(
        finding(
            "SPEC001", report.findings[1].severity, f"problem {i} " + "x" * 300, f"{PDF}/SKILL.md", i + 1, skill=PDF
        )
        for i in range(600)
    )
    scan = sample_result(replace(report, findings=many))
    inputs = CommentInputs(
        decision=decide(scan_criteria(scan)), registry=build_registry(), scan=scan, links=LINKS, commit=HEAD, kept=kept
    )
    body = render_comment(inputs)
    assert len(body) <= COMMENT_LIMIT
    assert f"Paired trials measured at `{MEASURED[:12]}` — stale" in body and kept.markdown in body
    assert read_kept(body) == kept, "carried on to the next comment unchanged"


def test_trials_too_large_to_keep_are_kept_whole_section_by_section() -> None:
    rng = random.Random(7)  # text that compresses little, so the digest's own limit is what binds
    letters = string.ascii_letters + string.digits + "+/"
    sections = [f"#### section {i}\n\n" + "".join(rng.choice(letters) for _ in range(9_000)) + "\n" for i in range(3)]
    kept = keep_trials(MEASURED, "pass", sections, None)
    assert kept is not None and len(kept.digest()) <= KEPT_DIGEST_LIMIT
    assert kept.markdown == sections[0], "whole sections from the first, none cut in half"
    assert keep_trials(MEASURED, "pass", ["x" * 40_000], None) is None
    assert keep_trials(None, "pass", sections, None) is None, "no commit, nothing to say it measured"


def test_secrets_are_redacted_before_the_digest_hides_them(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX0123456789abcd"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    kept = keep_trials(MEASURED, "pass", [f"the agent said {secret} and {WRITE_TOKEN}\n"], None, secrets=(WRITE_TOKEN,))
    assert kept is not None
    decoded = read_kept(kept.digest())
    assert decoded is not None and secret not in decoded.markdown and WRITE_TOKEN not in decoded.markdown


@pytest.mark.parametrize(
    "digest",
    [
        "<!-- aces-ci:kept-trials v1 not*base64 -->",
        "<!-- aces-ci:kept-trials v1 " + base64.b64encode(b"not zlib").decode() + " -->",
        _digest_of({"schema_version": 1, "commit": MEASURED, "verdict": "great", "run_url": None, "markdown": "x"}),
        _digest_of({"schema_version": 2, "commit": MEASURED, "verdict": "pass", "run_url": None, "markdown": "x"}),
        _digest_of(["not", "an", "object"]),
        _digest_of(
            {"schema_version": 1, "commit": MEASURED, "verdict": "pass", "run_url": None, "markdown": "x" * 40_000}
        ),
    ],
)
def test_a_digest_that_is_not_ours_is_ignored_not_trusted(digest: str) -> None:
    assert read_kept(f"{COMMENT_MARKER}\nbody\n{digest}\n") is None


def test_only_our_own_comment_is_read_for_kept_trials(github: GitHubServer) -> None:
    planted = KeptTrials(MEASURED, "pass", "planted by someone else\n").digest()
    github.state.add_comment(7, f"{COMMENT_MARKER}\nquoted\n{planted}")  # octocat's, quoting our marker
    with GitHubClient(github.url, WRITE_TOKEN) as client:
        assert earlier_trials(client, "acme/skills", 7, COMMENT_MARKER).kept is None
        ours = KeptTrials(MEASURED, "fail", "ours\n").digest()
        github.state.add_comment(
            7, seal(f"{COMMENT_MARKER}\nours\n{ours}", COMMENT_MARKER, "acme/skills", 7, None), dict(BOT)
        )
        kept = earlier_trials(client, "acme/skills", 7, COMMENT_MARKER).kept
    assert kept is not None and kept.markdown == "ours\n" and kept.verdict == "fail"


FORGED = KeptTrials(MEASURED, "pass", "#### Paired trials: forged\n\ntrials of skills/csv-summary pass, +0.900\n")


def _scan_pr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer) -> int:
    from aces_ci.cli import main

    from .helpers import actions_env, event, make_repo

    repo = make_repo(tmp_path, broken=False)
    path = event(tmp_path, "pull_request.json", repo)
    actions_env(monkeypatch, tmp_path, "pull_request", path, api_url=github.url, token=WRITE_TOKEN, sha=repo.head)
    return main(["ci", str(repo.root), "--reports", str(tmp_path / "reports"), "--no-cache", "--jobs", "1"])


@pytest.mark.parametrize(
    ("key", "forged"),
    [
        # another workflow's bot echoing a pull request's text that opens with our marker
        (None, f"{COMMENT_MARKER}\nThanks for the PR!\n{FORGED.digest()}"),
        # a copy of a comment from another pull request: bound to #6, not #7
        (None, seal(f"{COMMENT_MARKER}\nx\n{FORGED.digest()}", COMMENT_MARKER, "acme/skills", 6, None)),
        # a perfect imitation, bound to #7, when the workflow signs its comments: no valid signature
        (
            "k3y-only-our-workflow-has",
            seal(f"{COMMENT_MARKER}\nx\n{FORGED.digest()}", COMMENT_MARKER, "acme/skills", 7, None),
        ),
        (
            "k3y-only-our-workflow-has",
            seal(f"{COMMENT_MARKER}\nx\n{FORGED.digest()}", COMMENT_MARKER, "acme/skills", 7, b"guess"),
        ),
    ],
    ids=["echoed marker", "other pull request", "unsigned", "wrong key"],
)
def test_a_look_alike_comment_by_the_bot_is_never_edited_and_its_digest_never_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer, key: str | None, forged: str
) -> None:
    if key is None:
        monkeypatch.delenv("ACES_CI_SIGNING_KEY", raising=False)
    else:
        monkeypatch.setenv("ACES_CI_SIGNING_KEY", key)
    github.state.add_comment(7, forged, dict(BOT))

    assert _scan_pr(tmp_path, monkeypatch, github) == 0

    look_alike, ours = github.state.comments[7]
    assert look_alike["body"] == forged, "never edited"
    assert "+0.900" not in ours["body"] and "Paired trials" not in ours["body"], "its digest is not shown"
    note = f"Comment {look_alike['id']} by github-actions\\[bot\\] carries aces-ci's marker but is not taken"
    assert note in ours["body"]
    assert ours["body"].startswith(f"{COMMENT_MARKER}\n<!-- aces-ci:for acme/skills#7 -->\n")


def test_a_signed_comment_of_ours_is_updated_and_its_trials_carried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    monkeypatch.setenv("ACES_CI_SIGNING_KEY", "k3y-only-our-workflow-has")
    real = KeptTrials(MEASURED, "pass", "#### Paired trials: m on h\n\nmeasured, +0.120\n")
    earlier = seal(
        f"{COMMENT_MARKER}\nx\n{real.digest()}", COMMENT_MARKER, "acme/skills", 7, b"k3y-only-our-workflow-has"
    )
    github.state.add_comment(7, earlier, dict(BOT))

    assert _scan_pr(tmp_path, monkeypatch, github) == 0

    (ours,) = github.state.comments[7]
    assert "measured, +0.120" in ours["body"] and "not taken" not in ours["body"]
    assert re.search(r"\n<!-- aces-ci:sig v1 [0-9a-f]{64} -->\n$", ours["body"])
