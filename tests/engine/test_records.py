"""Results on disk: lossless JSON (artifacts' bytes included), the content-addressed cache, the crash-safe journal."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aces_ci.agents import Artifact, ArtifactLimits, RolloutResult, SkillEvent, WorkspaceArtifacts
from aces_ci.engine import CACHE_VERSION, JOURNAL_VERSION, Journal, RolloutCache, result_from_dict, result_to_dict
from aces_ci.errors import InputError
from aces_ci.models import Usage
from aces_ci.schemas import validator

KEY = "ab" + "0" * 62
OTHER_KEY = "cd" + "1" * 62


ARTIFACTS = WorkspaceArtifacts(
    files=(
        Artifact("out/chart.png", 6, b"\x89PNG\x00\xff"),
        Artifact("out/huge.log", 9_999_999, None, "too_large"),
        Artifact("report.md", 9, b"total: 42"),
    ),
    deleted=("input.csv",),
    truncated=True,
    limits=ArtifactLimits(max_file_bytes=1000, max_total_bytes=5000, max_files=3),
)


def result(
    key: str = KEY, status: str = "completed", answer: str | None = "42", artifacts: WorkspaceArtifacts = ARTIFACTS
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
        artifacts=artifacts,
    )


json_text = st.text(max_size=30)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | json_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(json_text, inner, max_size=3),
    max_leaves=10,
)


artifact_files = st.lists(
    st.builds(
        Artifact,
        path=st.text(min_size=1, max_size=20),
        size=st.integers(0, 10**9),
        content=st.binary(max_size=64),
        redacted=st.booleans(),
    ),
    max_size=4,
)


@given(
    answer=st.none() | st.text(),
    cost=st.floats(0, 1e6, allow_nan=False),
    trajectory=st.dictionaries(json_text, json_values, max_size=4),
    files=artifact_files,
)
def test_results_survive_a_json_round_trip_exactly(
    answer: str | None, cost: float, trajectory: dict, files: list[Artifact]
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
        WorkspaceArtifacts(tuple(files), ("gone.txt",), False, ArtifactLimits()),
    )
    assert result_from_dict(json.loads(json.dumps(result_to_dict(original)))) == original


def test_artifact_bytes_are_kept_as_text_when_they_are_utf8_and_as_base64_otherwise() -> None:
    files = result_to_dict(result())["artifacts"]["files"]
    assert files == [
        {"path": "out/chart.png", "size": 6, "base64": "iVBORwD/"},
        {"path": "out/huge.log", "size": 9_999_999, "omitted": "too_large"},
        {"path": "report.md", "size": 9, "text": "total: 42"},
    ]


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
        (lambda d: d.pop("artifacts"), "'artifacts' must be an object"),
        (lambda d: d["artifacts"]["files"][0].update(base64="not base64!"), "damaged base64"),
        (lambda d: d["artifacts"]["files"][1].pop("omitted"), "either content or the reason"),
        (lambda d: d["artifacts"]["files"][1].update(omitted="lost"), "unknown omission"),
        (lambda d: d["artifacts"]["limits"].update(max_files=-1), "'max_files' is negative"),
    ],
)
def test_damaged_records_name_the_bad_field(damage, message: str) -> None:  # type: ignore[no-untyped-def]
    data = result_to_dict(result())
    damage(data)
    with pytest.raises(ValueError, match=message):
        result_from_dict(data)


# -- cache -----------------------------------------------------------------------------------------


def test_cache_stores_completed_rollouts_with_their_artifacts(tmp_path: Path) -> None:
    cache = RolloutCache(tmp_path)
    identity = {"case": "c1", "condition": "with", "replicate": 2, "seed": 0, "target": "pdf"}
    assert cache.put(result(), identity) and cache.get(KEY) == result()
    assert cache.get(KEY).artifacts.file("out/chart.png").content == b"\x89PNG\x00\xff"  # type: ignore[union-attr]
    entry = json.loads(cache.path_for(KEY).read_text())
    assert entry["rollout"] == identity and not list(validator("rollout-store").iter_errors(entry))
    assert cache.path_for(KEY) == tmp_path / "ab" / f"{KEY}.json"
    assert not cache.put(result(OTHER_KEY, status="infra_error")) and cache.get(OTHER_KEY) is None
    assert [p.name for p in (tmp_path / "ab").iterdir()] == [f"{KEY}.json"]  # no temp files left behind


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b'{"format": "other"}',
        b'{"format": "aces-ci-rollout", "version": 2, "result": {"key": 1}}',
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


def test_an_entry_of_an_older_cache_format_is_ignored_with_a_note_never_misread(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = RolloutCache(tmp_path)
    old = result_to_dict(result())
    del old["artifacts"]
    old["score"] = 1.0  # what version 1 stored: a result with its score
    for key in (KEY, OTHER_KEY):
        cache.path_for(key).parent.mkdir(parents=True, exist_ok=True)
        cache.path_for(key).write_text(json.dumps({"format": "aces-ci-rollout", "version": 1, "result": old}))
    with caplog.at_level(logging.WARNING):
        assert cache.get(KEY) is None and cache.get(OTHER_KEY) is None
    assert cache.other_versions == 2
    assert caplog.text.count("cache format 1") == 1 and f"writes {CACHE_VERSION}" in caplog.text


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


def line(record: RolloutResult, **fields: object) -> str:
    return json.dumps({"v": JOURNAL_VERSION, "key": record.key, "result": result_to_dict(record), **fields})


def test_journal_reloads_every_keys_latest_completed_record_whatever_batch_wrote_it(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    with Journal(path) as loaded:
        assert loaded == {}
    journal = Journal(path)
    journal.open()
    journal.append(result(status="infra_error"), batch="first")
    journal.append(result(OTHER_KEY), batch="first")
    journal.append(result(), batch="second")  # a retry that completed
    journal.append(result(status="infra_error"), batch="third")  # a later failure never hides a completed run
    journal.close()
    with Journal(path) as loaded:
        assert loaded == {KEY: result(), OTHER_KEY: result(OTHER_KEY)}
    assert len(path.read_text().splitlines()) == 4


def test_each_journal_line_names_its_rollout_and_batch(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    identity = {"case": "refund", "condition": "base", "replicate": 3, "seed": 7, "target": "pdf"}
    with Journal(path) as _:
        pass
    journal = Journal(path)
    journal.open()
    journal.append(result(), rollout=identity, batch="round-2")
    journal.close()
    record = json.loads(path.read_text())
    assert (record["v"], record["key"], record["batch"], record["rollout"]) == (2, KEY, "round-2", identity)
    assert not list(validator("rollout-store").iter_errors(record))


def test_a_torn_last_line_is_dropped_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "journal.jsonl"
    with Journal(path) as _:
        pass
    journal = Journal(path)
    journal.open()
    journal.append(result())
    journal.close()
    intact = path.read_bytes()
    path.write_bytes(intact + b'{"v":2,"key":"cd11')  # the crash hit mid-write
    with caplog.at_level(logging.WARNING):
        journal = Journal(path)
        assert journal.open() == {KEY: result()}
    assert "torn last line" in caplog.text
    journal.append(result(OTHER_KEY))
    journal.close()
    assert path.read_bytes().startswith(intact)
    assert Journal(path).open() == {KEY: result(), OTHER_KEY: result(OTHER_KEY)}


def test_a_complete_last_record_missing_only_its_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal(path)
    journal.open()
    journal.append(result())
    journal.close()
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    journal = Journal(path)
    assert journal.open() == {KEY: result()}
    journal.append(result(OTHER_KEY))
    journal.close()
    assert len(path.read_text().splitlines()) == 2


def test_garbage_lines_are_skipped_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "journal.jsonl"
    mislabelled = json.dumps({"v": JOURNAL_VERSION, "key": OTHER_KEY, "result": result_to_dict(result())})
    path.write_text(f'garbage\n{{"v": 2}}\n{mislabelled}\n{line(result())}\n\n')
    with caplog.at_level(logging.WARNING):
        assert Journal(path).open() == {KEY: result()}
    assert f"{path}:1" in caplog.text and f"{path}:2" in caplog.text
    assert f"{path}:3" in caplog.text and "not its result's" in caplog.text


def test_lines_of_an_older_journal_format_are_ignored_with_one_note_never_misread(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "journal.jsonl"
    old = result_to_dict(result(OTHER_KEY))
    del old["artifacts"]
    old["score"] = 1.0
    version_1 = json.dumps({"v": 1, "run": "r", "key": OTHER_KEY, "result": old})
    path.write_text(f"{version_1}\n{version_1}\n{line(result())}\n")
    with caplog.at_level(logging.WARNING):
        assert Journal(path).open() == {KEY: result()}
    assert caplog.text.count("another journal format") == 1
    assert "ignoring 2 line(s)" in caplog.text and "first at line 1" in caplog.text


def test_a_hand_edited_number_too_large_for_a_float_is_skipped_not_fatal(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "journal.jsonl"
    edited = result_to_dict(result(OTHER_KEY))
    edited["usage"]["cost_usd"] = 10**400
    damaged = json.dumps({"v": JOURNAL_VERSION, "key": OTHER_KEY, "result": edited})
    path.write_text(f"{damaged}\n{line(result())}\n")
    with caplog.at_level(logging.WARNING):
        assert Journal(path).open() == {KEY: result()}
    assert f"{path}:1" in caplog.text and "too large" in caplog.text


def test_an_unusable_journal_path_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    with pytest.raises(InputError, match="journal"):
        Journal(tmp_path / "dir").open()
