"""Results on disk: lossless JSON, the content-addressed cache, and the crash-safe journal."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aces_ci.agents import RolloutResult, SkillEvent
from aces_ci.engine import Journal, RolloutCache, result_from_dict, result_to_dict
from aces_ci.errors import InputError
from aces_ci.models import Usage

KEY = "ab" + "0" * 62
OTHER_KEY = "cd" + "1" * 62


def result(
    key: str = KEY, status: str = "completed", score: float | None = 1.0, answer: str | None = "42"
) -> RolloutResult:
    return RolloutResult(
        key=key,
        status=status,
        end_reason="final_answer" if status == "completed" else "retries_exhausted",  # type: ignore[arg-type]
        final_answer=answer,
        trajectory={"schema_version": "ATIF-v1.7", "steps": [{"step_id": 1, "message": "é"}]},
        usage=Usage(120, 30, 5, 2, 0.00123, 2),
        duration_s=1.25,
        skill_events=(SkillEvent(3, "pdf", "file_read", "SKILL.md"), SkillEvent(1, "pdf", "preloaded")),
        error=None if status == "completed" else "gave up",
        score=score,
    )


json_text = st.text(max_size=30)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | json_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(json_text, inner, max_size=3),
    max_leaves=10,
)


@given(
    answer=st.none() | st.text(),
    score=st.none() | st.floats(0, 1),
    cost=st.floats(0, 1e6, allow_nan=False),
    trajectory=st.dictionaries(json_text, json_values, max_size=4),
)
def test_results_survive_a_json_round_trip_exactly(
    answer: str | None, score: float | None, cost: float, trajectory: dict
) -> None:
    original = RolloutResult(
        KEY,
        "completed",
        "final_answer",
        answer,
        trajectory,
        Usage(1, 2, 3, 4, cost, 5),
        0.5,
        (SkillEvent(2, "s", "script_run", "scripts/x.py"),),
        None,
        score,
    )
    assert result_from_dict(json.loads(json.dumps(result_to_dict(original)))) == original


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda d: d.pop("usage"), "usage"),
        (lambda d: d.update(status="done"), "unknown status"),
        (lambda d: d["usage"].update(prompt_tokens=-1), "negative"),
        (lambda d: d["usage"].update(model_calls=True), "boolean"),
        (lambda d: d.update(skill_events=[{"step_id": 1, "skill": "x", "via": "telepathy"}]), "telepathy"),
        (lambda d: d.update(trajectory=[]), "trajectory"),
        (lambda d: d["usage"].update(cost_usd=10**400), "'cost_usd' is too large"),
        (lambda d: d.update(duration_s=float("inf")), "'duration_s' is not a finite"),
        (lambda d: d.update(score=float("nan")), "'score' is not a finite"),
    ],
)
def test_damaged_records_name_the_bad_field(damage, message: str) -> None:  # type: ignore[no-untyped-def]
    data = result_to_dict(result())
    damage(data)
    with pytest.raises(ValueError, match=message):
        result_from_dict(data)


# -- cache -----------------------------------------------------------------------------------------


def test_cache_stores_completed_rollouts_without_their_score(tmp_path: Path) -> None:
    cache = RolloutCache(tmp_path)
    assert cache.put(result()) and cache.get(KEY) == result(score=None)
    assert cache.path_for(KEY) == tmp_path / "ab" / f"{KEY}.json"
    assert not cache.put(result(OTHER_KEY, status="infra_error")) and cache.get(OTHER_KEY) is None
    assert [p.name for p in (tmp_path / "ab").iterdir()] == [f"{KEY}.json"]  # no temp files left behind


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b'{"format": "other"}',
        b'{"format": "aces-ci-rollout", "version": 99, "result": {}}',
        b'{"format": "aces-ci-rollout", "version": 1, "result": {"key": 1}}',
        b"\xff\xfe",
    ],
)
def test_a_damaged_cache_entry_is_a_miss_with_a_warning(
    tmp_path: Path, content: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    cache = RolloutCache(tmp_path)
    cache.path_for(KEY).parent.mkdir(parents=True)
    cache.path_for(KEY).write_bytes(content)
    with caplog.at_level(logging.WARNING):
        assert cache.get(KEY) is None
    assert "ignoring" in caplog.text
    assert cache.put(result()) and cache.get(KEY) is not None  # and the next run repairs it


def test_a_cache_entry_for_another_key_is_not_trusted(tmp_path: Path) -> None:
    cache = RolloutCache(tmp_path)
    cache.put(result())
    cache.path_for(OTHER_KEY).parent.mkdir(parents=True)
    cache.path_for(OTHER_KEY).write_bytes(cache.path_for(KEY).read_bytes())
    assert cache.get(OTHER_KEY) is None


def test_an_unwritable_cache_warns_and_goes_on(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "file").write_text("not a directory")
    with caplog.at_level(logging.WARNING):
        assert not RolloutCache(tmp_path / "file").put(result())
    assert "cannot write" in caplog.text


# -- journal ---------------------------------------------------------------------------------------


def test_journal_reloads_the_latest_record_of_its_own_run(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    with Journal(path, "run-a") as loaded:
        assert loaded == {}
    journal = Journal(path, "run-a")
    journal.open()
    journal.append(result(status="infra_error", score=None))
    journal.append(result(OTHER_KEY))
    journal.append(result())  # a retry that completed
    journal.close()
    other = Journal(path, "run-b")
    other.open()
    other.append(result(score=0.0))
    other.close()
    with Journal(path, "run-a") as loaded:
        assert loaded == {KEY: result(), OTHER_KEY: result(OTHER_KEY)}
    assert len(path.read_text().splitlines()) == 4


def test_a_torn_last_line_is_dropped_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "journal.jsonl"
    with Journal(path, "run") as _:
        pass
    journal = Journal(path, "run")
    journal.open()
    journal.append(result())
    journal.close()
    intact = path.read_bytes()
    path.write_bytes(intact + b'{"v":1,"run":"run","key":"cd11')  # the crash hit mid-write
    with caplog.at_level(logging.WARNING):
        journal = Journal(path, "run")
        assert journal.open() == {KEY: result()}
    assert "torn last line" in caplog.text
    journal.append(result(OTHER_KEY))
    journal.close()
    assert path.read_bytes().startswith(intact)
    assert Journal(path, "run").open() == {KEY: result(), OTHER_KEY: result(OTHER_KEY)}


def test_a_complete_last_record_missing_only_its_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal(path, "run")
    journal.open()
    journal.append(result())
    journal.close()
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    journal = Journal(path, "run")
    assert journal.open() == {KEY: result()}
    journal.append(result(OTHER_KEY))
    journal.close()
    assert len(path.read_text().splitlines()) == 2


def test_garbage_lines_are_skipped_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "journal.jsonl"
    good = json.dumps({"v": 1, "run": "run", "key": KEY, "result": result_to_dict(result())})
    path.write_text(f'garbage\n{{"v": 1}}\n{good}\n\n')
    with caplog.at_level(logging.WARNING):
        assert Journal(path, "run").open() == {KEY: result()}
    assert f"{path}:1" in caplog.text and f"{path}:2" in caplog.text


def test_a_hand_edited_number_too_large_for_a_float_is_skipped_not_fatal(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "journal.jsonl"
    edited = result_to_dict(result(OTHER_KEY))
    edited["usage"]["cost_usd"] = 10**400
    good = json.dumps({"v": 1, "run": "run", "key": KEY, "result": result_to_dict(result())})
    path.write_text(json.dumps({"v": 1, "run": "run", "key": OTHER_KEY, "result": edited}) + f"\n{good}\n")
    with caplog.at_level(logging.WARNING):
        assert Journal(path, "run").open() == {KEY: result()}
    assert f"{path}:1" in caplog.text and "too large" in caplog.text


def test_an_unusable_journal_path_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    with pytest.raises(InputError, match="journal"):
        Journal(tmp_path / "dir", "run").open()
