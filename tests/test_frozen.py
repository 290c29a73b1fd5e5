"""Mapping fields of shared frozen types refuse changes, yet pickle (the scan's worker pool) and encode as JSON."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import pytest

from aces_ci.agents import RolloutResult
from aces_ci.config import load_config
from aces_ci.engine import result_from_dict, result_to_dict
from aces_ci.frozen import FrozenDict, deep_frozen
from aces_ci.models import Usage
from aces_ci.scan import ScanConfig, Severity


def _trajectory() -> dict[str, Any]:
    return {"schema_version": "ATIF-v1.7", "steps": [{"step_id": 1, "source": "agent", "message": "hi"}]}


def _result(trajectory: dict[str, Any]) -> RolloutResult:
    return RolloutResult("k" * 64, "completed", "final_answer", "42", trajectory, Usage(), 1.0)


def test_a_grader_cannot_change_a_cached_trajectory_that_other_graders_read() -> None:
    source = _trajectory()
    result = _result(source)
    source["steps"].append({"step_id": 2})  # the harness's own dict is not the result's
    assert len(result.trajectory["steps"]) == 1
    steps = result.trajectory["steps"]
    with pytest.raises(TypeError, match="read-only"):
        steps.append({"step_id": 2})
    with pytest.raises(TypeError, match="read-only"):
        steps[0]["message"] = "changed"
    with pytest.raises(TypeError, match="read-only"):
        result.trajectory.update(steps=[])  # mypy refuses this too: a Mapping has no update
    assert result.trajectory == _trajectory()


def test_a_frozen_result_round_trips_through_json_pickle_and_copy() -> None:
    result = _result(_trajectory())
    text = json.dumps(result_to_dict(result))
    again = result_from_dict(json.loads(text))
    assert again == result and isinstance(again.trajectory, FrozenDict)
    assert pickle.loads(pickle.dumps(result)) == result
    assert copy.deepcopy(result) == result


def test_refreezing_a_frozen_document_keeps_it() -> None:
    document = deep_frozen(_trajectory())
    assert deep_frozen(document) is document
    assert _result(document).trajectory is document


def test_scan_severity_overrides_are_read_only_and_cross_to_a_worker_process() -> None:
    config = ScanConfig(severity={"spec/name": Severity.WARNING, "sec/secret": "off"})
    with pytest.raises(TypeError, match="read-only"):
        config.severity["spec/name"] = Severity.ERROR  # mypy refuses this too
    shipped = pickle.loads(pickle.dumps(config))
    assert shipped == config and shipped.severity["sec/secret"] == "off"


def test_run_prices_from_aces_yml_are_read_only(tmp_path: Any) -> None:
    (tmp_path / "aces.yml").write_text("run:\n  prices:\n    my-model: {input: 1.0, output: 2.0}\n", encoding="utf-8")
    prices = load_config(tmp_path / "aces.yml", tmp_path).run.prices
    assert prices["my-model"].input == 1.0
    with pytest.raises(TypeError, match="read-only"):
        prices.pop("my-model")
