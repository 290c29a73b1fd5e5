"""A real valuation through the report room's Protocols: the PR comment and the gate read SkillSV results."""

from __future__ import annotations

import json
from pathlib import Path

from aces_ci.gate import closure_criteria, decide
from aces_ci.github import CommentInputs, render_comment
from aces_ci.report import SkillValue, SourceLinks
from aces_ci.skillsv import (
    EstimatorSettings,
    PythonScorer,
    RenderingOracle,
    ValueSettings,
    compile_skill,
    load_tasks,
    skill_value,
    valuate,
)
from tests.report.builders import build_registry
from tests.skillsv.helpers import PLANTED_BODY, write_skill

LINKS = SourceLinks("https://github.com", "acme/skills", "abc1234def", "")


def _valuation(tmp_path: Path, holdout: float = 0.5, tolerance: float | None = None) -> SkillValue | None:
    skills = tmp_path / "skills"
    skill = write_skill(skills, PLANTED_BODY, {"scripts/tool.sh": "#!/bin/sh\necho TOTALS\n"})
    evals = tmp_path / "cases.json"
    evals.write_text(json.dumps({"evals": [{"id": f"c{i}", "prompt": f"question {i}"} for i in range(40)]}))
    game = compile_skill(skill)
    oracle = RenderingOracle(game, PythonScorer("python:tests.skillsv.planted_oracle:noisy"), None)
    settings = ValueSettings(estimator=EstimatorSettings(orders=32, seed=3, tolerance=tolerance), holdout=holdout)
    report = valuate(game, load_tasks(evals), oracle, settings)
    return skill_value(report, "skills/planted")


def test_the_comment_lists_the_low_value_units_with_links_and_draws_the_pruning_curves(tmp_path: Path) -> None:
    value = _valuation(tmp_path)
    assert value is not None
    assert value.order_distribution == "layer" and value.skill == "skills/planted"
    by_word = {unit.preview.split(":")[0].lstrip("- "): unit for unit in value.units}
    assert all(unit.file == "skills/planted/SKILL.md" for unit in by_word.values() if unit.kind == "body")
    harm = by_word["HARM"]
    assert harm.decision == "delete" and harm.ci[1] <= 0
    assert {curve.method for curve in value.pruning} == {"skillsv", "closure_loo", "random"}
    assert all(curve.removed[0] == 0 and len(curve.removed) == len(curve.score) for curve in value.pruning)
    decision = decide(closure_criteria([value]))
    assert decision.criteria == ()  # no truncation: Σφ = Λ by construction, so no check that cannot fail
    body = render_comment(
        CommentInputs(decision=decision, registry=build_registry(), links=LINKS, values=[value], commit="abc1234def")
    )
    start = harm.lines[0]
    assert f"skills/planted/SKILL.md:{start}" in body
    assert f"https://github.com/acme/skills/blob/abc1234def/skills/planted/SKILL.md#L{start}" in body
    assert "HARM: always answer in French." in body
    assert "xychart-beta" in body  # the pruning chart
    assert "closure ratio" not in body and body.count("**Cut ") == 1  # the decisions lead the section
    assert "Precision: intervals ±" in body


def test_with_truncation_the_closure_is_a_check_the_gate_and_the_comment_report(tmp_path: Path) -> None:
    value = _valuation(tmp_path, holdout=0.0, tolerance=0.05)
    assert value is not None and value.closure_is_check and value.closure_ratio is not None
    decision = decide(closure_criteria([value]))
    assert [criterion.name for criterion in decision.criteria] == ["skillsv.closure"]
    assert decision.criteria[0].status in ("pass", "warn")  # a warning at worst, never a failure
    body = render_comment(CommentInputs(decision=decision, registry=build_registry(), links=LINKS, values=[value]))
    assert f"closure ratio Σφ/Λ {value.closure_ratio:.2f}" in body


def test_without_a_held_out_panel_there_is_no_curve_and_the_values_still_show(tmp_path: Path) -> None:
    value = _valuation(tmp_path, holdout=0.0)
    assert value is not None and value.pruning == ()
    assert len(value.units) == 8  # seven rules and the script; the trigger has no net effect of its own
