"""A unit others require is kept for their sake only when deleting it with them would cost score."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from aces_ci.skillsv import (
    DecisionRules,
    DecisionSummary,
    Estimator,
    EstimatorSettings,
    GameStructure,
    UnitValue,
    Valuation,
    decision_line,
    fit_to_budget,
    summarize,
    with_interaction,
)
from aces_ci.skillsv._exact_run import exact_valuation
from benchmarks.skillsv_games import BernoulliOracle, PlantedGame, Term
from tests.skillsv.test_estimator import ExpectedOracle


def _lead_in_game(instruction: float, *, harm: float = 0.10, tasks: int = 40) -> PlantedGame:
    """A trigger, a harmful lead-in ``lead`` (−``harm``), an instruction ``use`` that requires it (+``instruction``),
    a load-bearing unit and three dead ones, in two sections."""
    players = ("m", "lead", "use", "load", "d1", "d2", "d3")
    requires = {name: frozenset({"m"}) for name in players[1:]}
    requires["use"] = frozenset({"m", "lead"})
    hierarchy = ("m", ("lead", "use", "d1"), ("load", "d2", "d3"))
    structure = GameStructure(players, requires, hierarchy)  # type: ignore[arg-type]
    terms = (
        Term(frozenset({"m"}), 0.05, "trigger"),
        Term(frozenset({"lead"}), -harm, "harmful"),
        Term(frozenset({"use"}), instruction, "load-bearing"),
        Term(frozenset({"load"}), 0.20, "load-bearing"),
    )
    base = np.random.default_rng(7).uniform(0.16, 0.4, size=tasks)
    return PlantedGame(structure, terms, {}, 0.0, base, np.ones((1, tasks)))


def _exact(game: PlantedGame) -> Valuation:
    return exact_valuation(game.structure, ExpectedOracle(game), game.tasks, operators=("del",), distribution="layer")


def _unit(valuation: Valuation, name: str) -> UnitValue:
    return next(unit for unit in valuation.units if unit.unit == name)


def test_a_harmful_lead_in_is_not_kept_when_it_costs_more_than_its_instruction_gives() -> None:
    valuation = _exact(_lead_in_game(0.06, harm=0.15))
    lead, use = _unit(valuation, "lead"), _unit(valuation, "use")
    assert use.decision == "keep"
    # on its own the lead-in would be deleted, and the instruction it carries is worth keeping; but
    # deleting both raises the score by 0.09 (more than δ), so keeping the lead-in for the instruction's
    # sake would be a severe error
    assert lead.net_effect is not None and lead.net_effect.value == pytest.approx(-0.15)
    assert lead.decision == "unresolved"
    assert "scores better without it and use (together -0.090)" in lead.reason
    assert "rewrite use not to need it" in lead.reason
    (requirement,) = valuation.requirements
    assert requirement.unit == "lead" and requirement.removed == ("lead", "use")
    assert requirement.net_effect is not None and requirement.net_effect.value == pytest.approx(-0.09)


def test_a_lead_in_whose_instruction_outweighs_it_is_kept_with_the_sum_that_says_why() -> None:
    valuation = _exact(_lead_in_game(0.16))
    lead = _unit(valuation, "lead")
    assert lead.decision == "keep"
    assert lead.reason == "required by use, which carry value; deleting it with use would cost score (together +0.060)"
    within = _unit(_exact(_lead_in_game(0.07)), "lead")  # deleting both would gain 0.03: less than δ
    assert within.decision == "keep" and within.reason.endswith("would not gain 0.05 (together -0.030)")
    assert {unit.unit: unit.decision for unit in valuation.units if unit.unit.startswith("d")} == dict.fromkeys(
        ("d1", "d2", "d3"), "negligible"
    )


@pytest.mark.parametrize(("instruction", "decision"), [(0.06, "unresolved"), (0.30, "keep")])
def test_the_interaction_model_sums_the_lead_in_with_its_instruction(instruction: float, decision: str) -> None:
    """Under ``aces-ci value``'s default design the sum comes from the model, with its own interval."""
    game = _lead_in_game(instruction, tasks=60)
    wanted = EstimatorSettings(seed=0, sample_share=0.9, budget_scores=6000)
    settings = fit_to_budget(game.structure, game.tasks, wanted).settings
    run = Estimator(game.structure, game.tasks, BernoulliOracle(game, 0), settings).estimate()
    valuation = with_interaction(run, summarize(run, replicates=200), DecisionRules())
    (requirement,) = valuation.requirements
    together = requirement.net_effect
    assert together is not None and together.ci is not None
    truth = instruction - 0.10
    assert together.ci.lo <= truth <= together.ci.hi
    assert together.ci.hi - together.ci.lo < 0.12  # a sum of two units, not the chains' few windows
    lead = _unit(valuation, "lead")
    assert lead.decision == decision
    assert "together" in lead.reason


def test_the_decision_line_promises_more_rollouts_only_for_the_units_a_forecast_covers() -> None:
    """A lead-in held for its instruction may not settle with more rollouts (its group's sum can be clearly
    below 0): the line counts it apart instead of folding it into the forecast."""
    summary = DecisionSummary(
        delete=(),
        negligible=(),
        compress=(),
        keep=("use",),
        unresolved=("lead", "d1"),
        cut_tokens=0,
        scores_to_decide=700,
        forecast=1,
    )
    assert decision_line(summary, 0.05, runs=3) == (
        "cut nothing; keep 1; 2 unresolved (~2,100 more rollouts would decide 1 of them; 1 without a forecast, see why)"
    )
    held_only = replace(summary, unresolved=("lead",), scores_to_decide=None, forecast=0)
    assert decision_line(held_only, 0.05) == "cut nothing; keep 1; 1 unresolved (none with a forecast, see why)"
    every = replace(summary, unresolved=("d1",))
    assert decision_line(every, 0.05, runs=3).endswith("1 unresolved (~2,100 more rollouts would decide them)")
