"""Stored reruns: where each goes, which ones a trend reads, and a record that is not ours named by its path."""

from __future__ import annotations

import json

import pytest

from aces_ci.errors import InputError
from aces_ci.github import latest_reruns, parse_rerun, rerun_path


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
