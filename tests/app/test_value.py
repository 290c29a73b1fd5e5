"""``aces_ci.app.value``: the valuation ``aces-ci value`` and ``aces-ci ci`` both call, from a resolved config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aces_ci import app
from aces_ci.config import RunFlags, ValueFlags, find_project, resolve_value
from aces_ci.errors import ConfigError
from tests.skillsv.helpers import PLANTED_BODY, write_skill

ORACLE = "python:tests.skillsv.planted_oracle:expected"
EXACT = {"ALPHA": 0.2, "BETA": 0.2, "GAMMA": 0.15, "DELTA": 0.15, "HARM": -0.2, "DEAD": 0.0, "TOOLUSE": 0.2}


def _planted(tmp_path: Path) -> tuple[Path, Path]:
    skill = write_skill(tmp_path, PLANTED_BODY, {"scripts/tool.sh": "#!/bin/sh\necho TOTALS\n"})
    evals = tmp_path / "cases.json"
    evals.write_text(json.dumps({"evals": [{"id": f"c{i}", "prompt": f"question {i}"} for i in range(3)]}))
    return skill.resolve(), evals


def test_a_planted_game_valued_in_process_gives_its_closed_form_values(tmp_path: Path) -> None:
    skill, evals = _planted(tmp_path)
    project = find_project(skill)
    flags = ValueFlags(run=RunFlags(cache_dir=tmp_path / "cache"), evals=evals, oracle=ORACLE, exact=True)
    config = resolve_value(project.config, flags, skill)
    planned: list[app.ValuePlan] = []
    report = app.value(skill, project, config, on_plan=planned.append)
    assert [plan.plan for plan in planned] == [None], "exact mode has no sampled design; the plan came first"
    game = report.game
    values = {
        game.player(unit.unit).preview.split(":")[0].lstrip("- "): unit.net_effect for unit in report.valuation.units
    }
    for marker, value in EXACT.items():
        estimate = values[marker]
        assert estimate is not None and estimate.value == pytest.approx(value, abs=1e-9)


def test_exact_mode_on_a_skill_too_large_for_it_is_a_config_error_before_any_score(tmp_path: Path) -> None:
    body = "# Many\n\n" + "\n".join(f"- rule {i}: do thing {i}." for i in range(app.MAX_EXACT_UNITS + 2)) + "\n"
    skill = write_skill(tmp_path, body, {}).resolve()
    evals = tmp_path / "cases.json"
    evals.write_text(json.dumps({"evals": [{"id": "c0", "prompt": "q"}]}))
    project = find_project(skill)
    config = resolve_value(project.config, ValueFlags(evals=evals, oracle=ORACLE, exact=True), skill)
    with pytest.raises(ConfigError, match="--exact enumerates every feasible coalition"):
        app.value_plan(skill, project, config)
