"""Stored reruns: where each goes, which ones a trend reads, and a record that is not ours named by its path."""

from __future__ import annotations

import dataclasses
import json

import pytest

from aces_ci.errors import InputError
from aces_ci.github import Agent, SkillBaseline, SkillChange, latest_reruns, parse_rerun, rerun_path


def test_a_rerun_is_filed_under_its_utc_date_and_run_id() -> None:
    assert rerun_path("2026-12-01T15:40:02Z", "9876543210") == "reruns/2026-12-01-9876543210.json"
    assert rerun_path("2026-12-01T15:40:02Z", None) == "reruns/2026-12-01-154002.json"  # a local run
    assert rerun_path("2026-12-01T15:40:02Z", "../../x") == "reruns/2026-12-01-154002.json", "no path from an id"


def test_the_trend_reads_the_newest_reruns_oldest_first() -> None:
    names = [
        "reruns/2026-11-30-999.json",
        "reruns/2026-12-01-1000.json",
        "reruns/2026-12-01-998.json",  # the same day, an earlier run: run ids compare as numbers
        "reruns/2026-11-02-5.json",
        "reruns/notes.txt",
        "releases/v1.json",
    ]
    assert latest_reruns(names, 3) == [
        "reruns/2026-11-30-999.json",
        "reruns/2026-12-01-998.json",
        "reruns/2026-12-01-1000.json",
    ]
    assert latest_reruns(names, 0) == []


@pytest.mark.parametrize(
    ("raw", "message"),
    [(b"{not json", "not JSON"), (json.dumps({"schema_version": 1}).encode(), "not an aces-ci rerun record")],
)
def test_a_record_that_is_not_a_rerun_is_an_input_error_naming_its_path(raw: bytes, message: str) -> None:
    with pytest.raises(InputError, match=message) as caught:
        parse_rerun(raw, "aces-results:reruns/2026-12-01-1.json")
    assert "reruns/2026-12-01-1.json" in str(caught.value)


def _change(then: Agent, now: Agent) -> SkillChange:
    lift = {"delta": 0.3, "ci": (0.1, 0.5), "n_cases": 12, "runs_per_arm": 2}
    release = {"release": "v1.0.0", "commit": "abc", "measured_at": "2026-11-01T00:00:00Z"}
    baseline = SkillBaseline(
        "skills/a",
        **release,
        agent=then,
        metric="accuracy",
        **lift,
        verdict="pass",
        seed=7,
        coupling="shared-seed",
        cases=(),
    )
    return SkillChange("skills/a", "skills/a/SKILL.md", "accuracy", 0.1, (-0.1, 0.3), baseline, None, now, 8)


def test_a_cli_upgrade_between_release_and_rerun_is_named_in_what_changed() -> None:
    build = "2.0.14 (Claude Code); aces-ci adapter 3"
    then = Agent("anthropic", "claude-x", "claude-code", "on-demand", "0.1.0", build)
    now = dataclasses.replace(then, harness_version="2.1.0 (Claude Code); aces-ci adapter 3")
    assert _change(then, now).what_changed == (
        "harness build 2.0.14 (Claude Code); aces-ci adapter 3 → 2.1.0 (Claude Code); aces-ci adapter 3"
    )
    assert _change(then, then).what_changed == ""
    assert "claude-code 2.1.0 (Claude Code)" in now.describe()


def test_a_baseline_stored_before_harness_builds_were_kept_still_reads_and_claims_no_change() -> None:
    older = {"provider": "local", "model": "m", "harness": "builtin", "disclosure": "preload", "tool_version": "0.1.0"}
    then = Agent.from_dict(older)
    assert then.harness_version is None
    now = dataclasses.replace(then, harness_version="0.1.0+loop2")
    assert _change(then, now).what_changed == "", "an unknown build is not reported as a change"
    assert Agent.from_dict(now.to_dict()) == now
