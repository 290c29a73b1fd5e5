"""The estimator on planted games: unbiasedness, coverage, caching by coalition, budgets, truncation."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pytest

from aces_ci.skillsv import (
    CoalitionRequest,
    DecisionRules,
    Estimate,
    Estimator,
    EstimatorSettings,
    GameStructure,
    Interval,
    Outcome,
    Task,
    decide,
    published_settings,
    scores_to_decide,
    summarize,
    unit_samples,
)
from aces_ci.skillsv._decisions import crossing
from aces_ci.skillsv._summary import forecast
from benchmarks.skillsv_games import BernoulliOracle, PlantedGame, planted_game


class ExpectedOracle:
    """Scores every request with its probability itself: a deterministic oracle; counts what it is asked."""

    identity = "planted-expected"

    def __init__(self, game: PlantedGame) -> None:
        self.game = game
        self.asked: Counter[tuple[frozenset[str], str, str]] = Counter()

    def evaluate(self, requests: Sequence[CoalitionRequest]) -> list[Outcome]:
        out = []
        for request in requests:
            self.asked[(request.members, request.operator, request.task.id)] += 1
            index = int(request.task.id[1:])
            out.append(Outcome(self.game.probability(request.members, request.operator, index)))
        return out


def _estimates(game: PlantedGame, settings: EstimatorSettings, oracle: object) -> dict[str, dict[str, float]]:
    run = Estimator(game.structure, game.tasks, oracle, settings).estimate()  # type: ignore[arg-type]
    players = game.structure.players
    out: dict[str, dict[str, float]] = {}
    for op in settings.operators:
        samples = unit_samples(run, op)
        assert samples.method == settings.pooling
        matrix = samples.values.mean(axis=0)
        out[op] = {players[i]: float(matrix[slot]) for slot, i in enumerate(run.execution)}
    return out


@pytest.mark.parametrize("pooling", ["pooled", "chain"])
@pytest.mark.parametrize("mu", ["layer", "uniform"])
def test_without_noise_or_truncation_the_estimate_converges_to_the_exact_values(mu: str, pooling: str) -> None:
    game = planted_game(10, seed=4, tasks=24)
    exact = game.exact(mu)  # type: ignore[arg-type]
    settings = EstimatorSettings(
        orders=600,
        seed=1,
        tolerance=None,
        distribution=mu,  # type: ignore[arg-type]
        chains_in_flight=64,
        pooling=pooling,  # type: ignore[arg-type]
    )
    estimate = _estimates(game, settings, ExpectedOracle(game))
    for op in ("del", "pad"):
        for unit, value in exact[op].items():
            assert estimate[op][unit] == pytest.approx(value, abs=0.012), (op, unit)


def test_scores_are_cached_by_coalition_never_by_insertion_path() -> None:
    game = planted_game(8, seed=2, tasks=16)
    oracle = ExpectedOracle(game)
    run = Estimator(game.structure, game.tasks, oracle, EstimatorSettings(orders=24, seed=3)).estimate()
    assert max(oracle.asked.values()) == 1  # no (coalition, operator, task) is ever asked twice
    assert run.meter.requested > run.meter.evaluated == sum(oracle.asked.values())
    # ρ_del(N) and ρ_pad(N) are the same skill: N is only ever asked under del
    full = frozenset(game.structure.players)
    assert not [key for key in oracle.asked if key[0] == full and key[1] == "pad"]
    published = ExpectedOracle(game)
    run = Estimator(game.structure, game.tasks, published, published_settings(24, seed=3)).estimate()
    assert run.meter.requested == run.meter.evaluated == sum(published.asked.values())
    assert max(published.asked.values()) > 1  # Algorithm 1 as published pays for repeats


def test_antithetic_partners_are_one_cluster_and_windows_are_balanced() -> None:
    game = planted_game(12, seed=5, tasks=40)
    settings = EstimatorSettings(orders=20, seed=2, antithetic=True, pairs_per_window=2)
    run = Estimator(game.structure, game.tasks, ExpectedOracle(game), settings).estimate()
    assert [chain.pair for chain in run.chains] == [i // 2 for i in range(20)]
    assert all(run.chains[i].order != run.chains[i + 1].order for i in range(0, 20, 2))
    # two pairs share a window: the pooled estimator learns a case's difficulty from an independent order
    assert [chain.group for chain in run.chains] == [i // 4 for i in range(20)]
    windows = [run.chains[i].window for i in range(0, 20, 4)]
    assert all(run.chains[i].window == windows[i // 4] for i in range(20))
    counts = Counter(task for window in windows for task in window)
    assert set(counts.values()) == {1} and len(counts) == 40  # 5 windows of 8 over 40 cases: each case once
    published = Estimator(game.structure, game.tasks, ExpectedOracle(game), published_settings(6)).estimate()
    assert len({chain.window for chain in published.chains}) == 6  # Algorithm 1: a window per order


def test_a_budget_stops_between_rounds_with_fewer_chains_and_wider_intervals() -> None:
    game = planted_game(8, seed=6, tasks=40)
    settings = EstimatorSettings(orders=16, seed=1)
    full = Estimator(game.structure, game.tasks, BernoulliOracle(game, 1), settings).estimate()
    capped = Estimator(
        game.structure,
        game.tasks,
        BernoulliOracle(game, 1),
        replace(settings, max_evaluations=full.meter.evaluated // 2),
    ).estimate()
    assert full.stopped_by is None and capped.stopped_by == "max_evaluations"
    assert capped.meter.evaluated <= full.meter.evaluated // 2
    assert 0 < len(capped.chains) < len(full.chains) == 16
    width = lambda v: sum(u.net_effect.ci.hi - u.net_effect.ci.lo for u in v.units)  # type: ignore[union-attr] # noqa: E731
    assert width(summarize(capped)) > width(summarize(full))
    assert summarize(capped).stopped_by == "max_evaluations"


def test_truncation_zeroes_the_suffix_and_is_counted() -> None:
    game = planted_game(16, seed=8, tasks=40)
    settings = EstimatorSettings(orders=16, seed=2, tolerance=0.2, gate_hits=1)
    run = Estimator(game.structure, game.tasks, ExpectedOracle(game), settings).estimate()
    truncated = [chain for chain in run.chains if chain.truncated_at is not None]
    assert truncated
    valuation = summarize(run)
    assert valuation.truncation_rate is not None and valuation.truncation_rate < 1
    assert sum(unit.zeroed_by_truncation for unit in valuation.units) == sum(
        len(chain.order) - (chain.truncated_at or 0) for chain in truncated
    )
    for chain in truncated:
        assert all(chain.marginals["del"][run.execution.index(p)] == 0 for p in chain.order[chain.truncated_at :])


def test_intervals_cover_the_exact_values_at_their_nominal_rate() -> None:
    covered = total = 0
    for seed in range(8):
        game = planted_game(8, seed=seed, tasks=40)
        exact = game.exact("layer")
        run = Estimator(
            game.structure, game.tasks, BernoulliOracle(game, seed), EstimatorSettings(orders=16, seed=seed)
        ).estimate()
        for unit in summarize(run, replicates=400).units:
            assert unit.net_effect is not None and unit.net_effect.ci is not None
            total += 1
            covered += unit.net_effect.ci.lo <= exact["del"][unit.unit] <= unit.net_effect.ci.hi
    assert covered / total >= 0.9


def test_closure_of_an_untruncated_run_is_exact_and_anchors_come_from_the_whole_panel() -> None:
    game = planted_game(8, seed=3, tasks=32)
    run = Estimator(
        game.structure, game.tasks, BernoulliOracle(game, 2), EstimatorSettings(orders=16, seed=1, tolerance=None)
    ).estimate()
    valuation = summarize(run)
    # 4 windows of 8 cover the 32 cases once: Σφ over the chains is the panel's Λ exactly
    assert valuation.pooling == "pooled"
    assert valuation.closure_ratio is not None and valuation.closure_ratio.value == pytest.approx(1.0)
    assert valuation.anchors["full"] is not None and valuation.anchors["full"].n == 32
    assert valuation.cost.full_audit == 2 * 16 * (game.structure.size + 1) * 32


def test_decisions_follow_the_intervals_and_the_margin() -> None:
    rules = DecisionRules(margin=0.05, compress_share=0.5)
    value = lambda v, lo, hi: Estimate(v, Interval(lo, hi), 10)  # noqa: E731
    assert decide(value(-0.1, -0.2, -0.01), None, None, rules)[0] == "delete"
    assert decide(value(0.0, 0.0, 0.0), None, None, rules)[0] == "negligible"
    assert decide(value(-0.01, -0.04, 0.03), None, None, rules)[0] == "negligible"
    assert decide(value(0.02, 0.005, 0.04), None, None, rules)[0] == "negligible"  # positive, but under δ
    assert decide(value(0.2, 0.1, 0.3), value(0.2, 0.1, 0.3), value(0.0, -0.05, 0.05), rules)[0] == "keep"
    assert decide(value(0.06, 0.01, 0.11), None, None, rules)[0] == "keep"  # above 0, reaching past δ
    assert decide(value(0.05, 0.01, 0.09), value(0.3, 0.2, 0.4), value(0.25, 0.15, 0.35), rules)[0] == "compress"
    assert decide(value(0.1, -0.05, 0.2), None, None, rules)[0] == "unresolved"
    assert decide(None, None, None, rules)[0] == "unresolved"
    # a smaller margin makes fewer units negligible
    assert decide(value(0.0, -0.04, 0.04), None, None, DecisionRules(margin=0.01))[0] == "unresolved"


def test_negligible_is_an_equivalence_test_at_five_percent_a_side() -> None:
    """The 90% interval decides ``negligible``: a 95% interval reaching just past ±δ still passes when the
    90% one (each side × 1.645/1.96) lies inside, and the reason shows the interval that was tested."""
    rules = DecisionRules(margin=0.05)
    value = lambda v, lo, hi: Estimate(v, Interval(lo, hi), 10)  # noqa: E731
    decision, reason = decide(value(0.0, -0.055, 0.055), None, None, rules)  # 90%: ±0.046
    assert decision == "negligible"
    assert "90% interval [-0.046, +0.046] lies within ±0.05" in reason
    assert decide(value(0.0, -0.062, 0.062), None, None, rules)[0] == "unresolved"  # 90%: ±0.052
    # each side on its own: the side toward +δ is what fails here (0.01 + 0.05 × 0.839 = 0.052)
    assert decide(value(0.01, -0.03, 0.06), None, None, rules)[0] == "unresolved"
    assert decide(value(0.01, -0.06, 0.055), None, None, rules)[0] == "negligible"


def test_scores_to_decide_grow_with_the_spread_and_read_each_side_of_the_interval() -> None:
    near_zero = Estimate(0.0, Interval(-0.1, 0.1), 8)
    # 8 chains of 100 scores: the equivalence interval's sides (0.1 × 0.839) must shrink to δ = 0.05,
    # 2.8× the design if the value stayed at 0 (1,440 scores more); a continued run's value wanders, so
    # its first look inside ±δ tends to come later
    assert 1_440 < scores_to_decide(near_zero, 0.05, 800.0) < 6_000
    assert scores_to_decide(Estimate(0.0, Interval(-0.2, 0.2), 8), 0.05, 800.0) > 4 * 1_440
    # far from 0 the sign decides first: the lower side 0.2 must fall to |v| = 0.15 (1.78× if it stayed
    # put), and the wandering value clears it at the first looks (1.25×, 1.56×, 1.95×) or a little later
    far = scores_to_decide(Estimate(0.15, Interval(-0.05, 0.35), 8), 0.05, 800.0)
    assert far is not None and 200 <= far <= 763
    # an asymmetric interval touching 0 from above decides at the first looks, no later than the far one
    touching = scores_to_decide(Estimate(0.15, Interval(0.0, 0.27), 8), 0.05, 800.0)
    assert touching is not None and 200 <= touching <= far
    # never less than one more chain's worth of the design
    assert scores_to_decide(Estimate(0.1, Interval(-0.0001, 0.2), 8), 0.05, 800.0) >= 100


def test_the_forecast_comes_with_the_range_most_continued_runs_decide_in() -> None:
    """A first passage is noisy: beside the point, the middle 80% of simulated continued runs."""
    narrow = Estimate(0.01, Interval(-0.05, 0.07), 8)
    point, span = forecast(narrow, 0.05, 800.0)
    assert point is not None and span is not None and span[1] is not None
    assert span[0] <= point <= span[1] and span[1] > 2 * span[0]  # wider than the point's ×2 window
    wide = forecast(Estimate(0.0, Interval(-0.2, 0.2), 8), 0.05, 800.0)[1]
    assert wide is not None and wide[0] > span[1]  # four times the spread: every run needs more
    assert forecast(Estimate(0.0, Interval(0.0, 0.0), 8), 0.05, 800.0)[1] is None  # nothing to simulate
    # a value sitting on the margin with a wide interval: more than a tenth still open at 64× the design
    stuck = forecast(Estimate(0.05, Interval(-0.25, 0.35), 8), 0.05, 800.0)[1]
    assert stuck is not None and stuck[0] > 0 and stuck[1] is None


def test_the_predicted_first_look_grows_with_the_spread_and_is_reproducible() -> None:
    """``crossing``: the growth most likely within ×2 of the first look (×1.25 apart) that decides."""

    def factor(value: float, lo: float, hi: float) -> float | None:
        found = crossing(value, lo, hi, 0.05)
        return None if found is None else found.factor

    barely = factor(0.1, -0.005, 0.205)
    wider = factor(0.1, -0.1, 0.3)
    widest = factor(0.1, -0.2, 0.4)
    assert barely is not None and barely <= 1.5  # the first or second look decides
    assert wider is not None and widest is not None and barely < wider < widest
    assert factor(0.1, -0.1, 0.3) == wider  # seeded: the report does not change run to run
    assert factor(0.0, -1.0, 1.0) is None  # open at 64× the design: the closed form answers


class _CappedOracle(ExpectedOracle):
    """Runs ``allowed`` requests, then reports the rest as stopped by its own budget (or as failed)."""

    def __init__(self, game: PlantedGame, allowed: int, budget: bool) -> None:
        super().__init__(game)
        self.allowed, self.budget = allowed, budget

    def evaluate(self, requests: Sequence[CoalitionRequest]) -> list[Outcome]:
        scored = super().evaluate(requests[: self.allowed])
        self.allowed -= len(scored)
        rest = [Outcome(None, rollouts=0, error="cap reached", budget_stop=self.budget)] * (len(requests) - len(scored))
        return scored + rest


@pytest.mark.parametrize(("budget", "reason"), [(True, "budget_usd"), (False, "oracle_error")])
def test_an_oracle_that_stops_mid_batch_ends_the_run_with_the_chains_so_far(budget: bool, reason: str) -> None:
    game = planted_game(8, seed=1, tasks=24)
    oracle = _CappedOracle(game, allowed=900, budget=budget)
    run = Estimator(game.structure, game.tasks, oracle, EstimatorSettings(orders=16, seed=1)).estimate()
    # a budget stop ends the run at once; an oracle that fails every score ends it once a whole wave failed
    assert run.stopped_by == reason and run.error is not None and run.error.endswith("cap reached")
    assert 0 < len(run.chains) < 16
    assert summarize(run).chains == len(run.chains)


class _FlakyOracle(ExpectedOracle):
    """Fails one request as a rollout timeout would: the ``fail_at``-th request, retries included; with
    ``always``, every later request for the same coalition on the same case fails too (the retry as well)."""

    def __init__(self, game: PlantedGame, fail_at: int, always: bool) -> None:
        super().__init__(game)
        self.fail_at, self.always, self.seen = fail_at, always, 0
        self.poisoned: tuple[str, str] | None = None

    def evaluate(self, requests: Sequence[CoalitionRequest]) -> list[Outcome]:
        out = []
        for request, outcome in zip(requests, super().evaluate(requests), strict=True):
            self.seen += 1
            key = (request.key, request.task.id)
            if self.seen == self.fail_at:
                self.poisoned = key
                out.append(Outcome(None, 1, error="the harness did not finish within 300s"))
            elif self.always and key == self.poisoned:
                out.append(Outcome(None, 1, error="the harness did not finish within 300s"))
            else:
                out.append(outcome)
        return out


def test_a_timed_out_rollout_is_retried_and_never_discards_the_valuation() -> None:
    game = planted_game(8, seed=1, tasks=24)
    settings = EstimatorSettings(orders=8, seed=1)
    # the first wave's anchors are 4 coalitions × 8 cases: request 40 is an intermediate prefix
    run = Estimator(game.structure, game.tasks, _FlakyOracle(game, 40, always=False), settings).estimate()
    assert run.stopped_by is None and len(run.chains) == 8 and run.left_out == 0  # the retry scored it
    assert run.failure == "the harness did not finish within 300s"
    run = Estimator(game.structure, game.tasks, _FlakyOracle(game, 40, always=True), settings).estimate()
    # only the chains that needed that score are left out (here two share it), the rest give values
    assert run.stopped_by is None and run.left_out == 2 and len(run.chains) == 6
    valuation = summarize(run)
    assert valuation.measured and valuation.left_out == 2
    assert valuation.failure == "the harness did not finish within 300s"
    assert all(unit.net_effect is not None and unit.net_effect.ci is not None for unit in valuation.units)


def test_pooled_values_add_up_to_each_chains_lift_case_by_case() -> None:
    game = planted_game(12, seed=8, tasks=40)
    settings = EstimatorSettings(orders=8, seed=2)
    run = Estimator(game.structure, game.tasks, BernoulliOracle(game, 3), settings).estimate()
    samples = unit_samples(run, "del")
    assert samples.method == "pooled" and samples.per_task is not None
    for k, chain in enumerate(run.chains):
        assert chain.levels is not None
        scored = chain.levels["del"][~np.isnan(chain.levels["del"]).any(axis=1)]
        lift = scored[-1] - scored[0]  # a truncated chain's tail adds nothing, as in Algorithm 1
        assert samples.per_task[k].sum(axis=0) == pytest.approx(lift, abs=1e-9)
        assert samples.values[k].sum() == pytest.approx(float(np.sum(chain.marginals["del"])), abs=1e-9)


def test_pooling_narrows_the_intervals_of_the_same_chains() -> None:
    """The same rollouts, two estimators: every score informs every unit, so chains scatter less."""
    game = planted_game(16, seed=1, tasks=80)
    settings = EstimatorSettings(orders=32, seed=4, tolerance=None)
    run = Estimator(game.structure, game.tasks, BernoulliOracle(game, 9), settings).estimate()
    chain_run = replace(run, settings=replace(settings, pooling="chain"))
    spread = {
        "pooled": unit_samples(run, "del").values.std(axis=0).mean(),
        "chain": unit_samples(chain_run, "del").values.std(axis=0).mean(),
    }
    assert spread["pooled"] < 0.85 * spread["chain"]  # measured 0.78: about 0.6 of the variance
    width = lambda v: np.mean([u.net_effect.ci.hi - u.net_effect.ci.lo for u in v.units])  # type: ignore[union-attr] # noqa: E731
    pooled, chain = summarize(run), summarize(chain_run)
    assert pooled.pooling == "pooled" and chain.pooling == "chain"
    assert width(pooled) < width(chain)


def test_unpaired_sampling_is_valued_by_the_chain_estimator() -> None:
    game = planted_game(8, seed=2, tasks=40)
    settings = replace(EstimatorSettings(orders=4, seed=1), paired=False)
    run = Estimator(game.structure, game.tasks, BernoulliOracle(game, 1), settings).estimate()
    assert unit_samples(run, "del").method == "chain" and summarize(run).pooling == "chain"


@pytest.mark.parametrize("antithetic", [False, True])
def test_stratified_orders_spread_each_choice_evenly_over_the_chains(antithetic: bool) -> None:
    players = ("m", "a", "b", "c", "d")
    structure = GameStructure(players, {p: frozenset({"m"}) for p in players[1:]}, players)
    tasks = [Task(f"t{i}", {"id": f"t{i}"}) for i in range(8)]
    oracle = _Constant()
    firsts = {}
    for stratified in (False, True):
        settings = EstimatorSettings(orders=16, seed=4, antithetic=antithetic, stratified=stratified)
        run = Estimator(structure, tasks, oracle, settings).estimate()
        firsts[stratified] = Counter(structure.players[chain.order[0]] for chain in run.chains)
    # 16 orders over 4 units that can come first: a Latin hypercube puts each first exactly 4 times
    assert firsts[True] == {"a": 4, "b": 4, "c": 4, "d": 4}
    assert firsts[False] != firsts[True]  # independent draws (seed 4) do not


def test_stratified_orders_still_estimate_the_exact_values() -> None:
    game = planted_game(10, seed=4, tasks=24)
    exact = game.exact("layer")
    settings = EstimatorSettings(orders=600, seed=1, tolerance=None, chains_in_flight=64, stratified=True)
    estimate = _estimates(game, settings, ExpectedOracle(game))
    for op in ("del", "pad"):
        for unit, value in exact[op].items():
            assert estimate[op][unit] == pytest.approx(value, abs=0.012), (op, unit)


class _Constant:
    identity = "constant"

    def evaluate(self, requests: Sequence[CoalitionRequest]) -> list[Outcome]:
        return [Outcome(0.5) for _ in requests]
