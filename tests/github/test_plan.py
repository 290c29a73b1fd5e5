"""Which work each recorded event asks for; never paid work for a fork."""

from __future__ import annotations

from pathlib import Path

import pytest

from aces_ci.errors import ConfigError, InputError
from aces_ci.github import GitHubContext, plan_run

from .helpers import EVENTS, RECORDED_BASE, RECORDED_HEAD


def _context(event_name: str, payload: str, ref: str = "refs/heads/main", **extra: str) -> GitHubContext:
    env = {
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(EVENTS / payload),
        "GITHUB_REPOSITORY": "acme/skills",
        "GITHUB_SHA": RECORDED_HEAD,
        "GITHUB_REF": ref,
        "GITHUB_TOKEN": "t0ken",
        **extra,
    }
    return GitHubContext.from_env(env)


@pytest.mark.parametrize(
    ("event_name", "payload", "ref", "work"),
    [
        ("push", "push.json", "refs/heads/main", "scan"),
        ("pull_request", "pull_request.json", "refs/pull/7/merge", "scan"),
        ("pull_request", "pull_request_fork.json", "refs/pull/8/merge", "scan"),
        ("pull_request", "pull_request_labeled.json", "refs/pull/7/merge", "trial"),
        ("pull_request", "pull_request_fork_labeled.json", "refs/pull/8/merge", "scan"),
        ("push", "push_tag.json", "refs/tags/v1.2.0", "release"),
        ("release", "release.json", "refs/tags/v1.2.0", "release"),
        ("schedule", "schedule.json", "refs/heads/main", "rerun"),
        ("workflow_dispatch", "workflow_dispatch.json", "refs/heads/main", "rerun"),
        ("workflow_run", "workflow_run.json", "refs/heads/main", "comment"),
    ],
)
def test_each_event_gets_its_work(event_name: str, payload: str, ref: str, work: str) -> None:
    assert plan_run(_context(event_name, payload, ref)).work == work


def test_pull_request_compares_with_its_base_and_links_the_head() -> None:
    context = _context("pull_request", "pull_request.json", "refs/pull/7/merge", GITHUB_SHA="f" * 40)
    plan = plan_run(context)
    assert (plan.base, plan.head) == (RECORDED_BASE, RECORDED_HEAD)
    assert context.head_sha == RECORDED_HEAD  # not the temporary merge commit


def test_fork_is_detected_and_paid_work_refused_with_a_reason() -> None:
    plan = plan_run(_context("pull_request", "pull_request_fork_labeled.json"))
    assert plan.pull_request is not None and plan.pull_request.is_fork
    assert not plan.paid
    assert "mallory/skills" in plan.notes[0] and "secrets" in plan.notes[0]


def test_mode_overrides_the_event_but_not_the_fork_rule() -> None:
    assert plan_run(_context("push", "push.json"), mode="trial").work == "trial"
    assert plan_run(_context("release", "release.json"), mode="scan").work == "scan"
    assert plan_run(_context("pull_request", "pull_request_fork.json"), mode="value").work == "scan"
    fork = plan_run(_context("pull_request", "pull_request_fork.json"), mode="compress")
    assert fork.work == "scan" and fork.notes[0].startswith("Compression not run") and "secrets" in fork.notes[0]
    assert plan_run(_context("pull_request", "pull_request.json"), mode="compress").work == "compress"
    assert plan_run(_context("workflow_dispatch", "workflow_dispatch.json"), mode="compress").paid


def test_a_custom_trial_label() -> None:
    context = _context("pull_request", "pull_request_labeled.json")
    assert plan_run(context, trial_label="run-evals").work == "scan"
    assert plan_run(context, trial_label="aces:trial").work == "trial"


def test_the_token_is_not_in_repr() -> None:
    assert "t0ken" not in repr(_context("push", "push.json"))


def test_missing_environment_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="GITHUB_EVENT_NAME"):
        GitHubContext.from_env({})
    with pytest.raises(ConfigError, match="owner/name"):
        GitHubContext.from_env({"GITHUB_EVENT_NAME": "push", "GITHUB_REPOSITORY": "nope"})
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(InputError, match="must be a JSON object"):
        GitHubContext.from_env({"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(bad)})
