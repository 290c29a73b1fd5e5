"""One set of bands from aces.yml's ``gate:`` section to the gate: :class:`aces_ci.stats.Bands`, read once."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from aces_ci.config import load_config
from aces_ci.errors import ConfigError
from aces_ci.gate import lift_criteria
from aces_ci.stats import Bands

from ..report.live_builders import Trials, straddling_trial


def test_aces_yml_gate_section_is_the_bands_the_gate_reads(tmp_path: Path) -> None:
    (tmp_path / "aces.yml").write_text(
        "gate:\n  metric: accuracy\n  pass_band: 0.1\n  fail_band: -0.2\n  alpha: 0.1\n  underpowered: fail\n"
    )
    bands = load_config(None, tmp_path).gate
    assert bands == Bands(0.1, -0.2, "accuracy", alpha=0.1, underpowered_fails=True)
    assert bands.confidence == pytest.approx(0.9)
    trial = straddling_trial()
    accuracy = dataclasses.replace(trial, lift={"accuracy": trial.lift["outcome"]})
    assert [c.status for c in lift_criteria(Trials([accuracy], bands=bands))] == ["fail"]
    assert [c.status for c in lift_criteria(Trials([trial]))] == ["warn"]


def test_bands_in_the_wrong_order_name_the_line(tmp_path: Path) -> None:
    (tmp_path / "aces.yml").write_text("gate:\n  pass_band: 0.05\n  fail_band: 0.2\n")
    with pytest.raises(ConfigError, match="must be below the pass band") as raised:
        load_config(None, tmp_path)
    assert raised.value.field == "gate.fail_band" and raised.value.line == 3
