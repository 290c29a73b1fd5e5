"""``aces-ci value`` end to end on the embedded model: the example knowledge skill, keyless.

SmolLM2-135M cannot know Acme's fictional facts, so what it answers right it answers from the
preloaded skill: the fact units carry the lift. Greedy decoding keeps the run repeatable, and the
example's aces.yml caps each answer at 64 tokens, so the work is bounded by tokens (two cases,
two orders, deletion only), not by a clock.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aces_ci.cli import main
from aces_ci.schemas import validator
from tests.skillsv.helpers import example_knowledge_skill

CASES = ("free-tier-projects", "refund-window")
FACTS = ("Free tier", "Refunds", "Support")


@pytest.mark.local_model
def test_the_embedded_model_values_the_knowledge_skill_and_names_the_facts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = example_knowledge_skill(tmp_path, CASES)
    out = tmp_path / "value.json"
    args = ["value", str(skill), "--config", str(tmp_path / "aces.yml"), "--operators", "del", "-K", "2"]
    code = main([*args, "--window", "2", "--json", str(out)])
    assert code == 0, capsys.readouterr().err
    report = json.loads(out.read_text())
    assert [e.message for e in validator("skillsv-value").iter_errors(report)] == []
    assert report["oracle"].startswith("live:local/smollm2-135m-instruct:builtin:accuracy:")
    assert report["content_lift"]["value"] > 0  # the facts help the model that cannot know them
    body = {unit["preview"].split(":")[0].lstrip("- "): unit for unit in report["units"] if unit["kind"] == "body"}
    assert set(body) == set(FACTS)
    valued = [unit for unit in report["units"] if unit.get("net_effect") is not None]  # the trigger has none
    best = max(valued, key=lambda unit: unit["net_effect"])
    assert best["kind"] == "body", best  # the unit carrying the most lift is a fact, not an instruction
    paid = report["rollouts"]["valuation"]
    assert paid > 0
    code = main([*args, "--window", "2", "--json", str(out)])
    assert code == 0 and json.loads(out.read_text())["rollouts"]["this_run"] == 0  # the rerun calls no model
