"""The trials a labelled run keeps in the sticky comment: carried, bounded, redacted, and never taken from others."""

from __future__ import annotations

import base64
import json
import random
import string
import zlib
from dataclasses import replace

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
        assert earlier_trials(client, "acme/skills", 7, COMMENT_MARKER) is None
        ours = KeptTrials(MEASURED, "fail", "ours\n").digest()
        github.state.add_comment(7, f"{COMMENT_MARKER}\nours\n{ours}", dict(BOT))
        kept = earlier_trials(client, "acme/skills", 7, COMMENT_MARKER)
    assert kept is not None and kept.markdown == "ours\n" and kept.verdict == "fail"
