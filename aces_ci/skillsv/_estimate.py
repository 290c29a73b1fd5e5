"""Chain-coupled task-window estimation (paper, Algorithm 1), with measured variance reductions.

For each of K sampled feasible orders, a window of b tasks is drawn independently of the order
and every prefix of the order is scored on that same window, so each marginal is a paired
difference in which task difficulty cancels. Both operators walk the chain in lockstep and the
chain is truncated when the prefix is within τ of the full-skill anchor for *both* of them
(for ``gate_hits`` consecutive prefixes); the units after a truncation get marginal zero, counted.

What this implementation adds to the published algorithm, each switchable so the benchmark can
measure it (``benchmarks/skillsv_efficiency.py``):

* **coalition reuse** (``reuse``): scores are cached by (coalition, operator, task, seed), never
  by insertion path, so a coalition met again in another chain on a task already scored is free
  (anchors, and every prefix the hierarchy forces to repeat);
* **antithetic orders** (``antithetic``): chains come in pairs drawn from draws u and
  1 − u: each partner is marginally μ, and the pair's position effects partly cancel;
* **stratified orders** (``stratified``, off: measured without a gain, BENCHMARKS.md): the draws of
  the run's independent orders form a Latin hypercube, so each block's choice at each step is spread
  evenly over the chains;
* **balanced windows** (``windows="balanced"``): every task is used equally often across chains;
* **panel anchors** (``panel_anchors``): V(∅), V({m}), V(N) on the whole attribution panel, so the
  anchors, the trigger value and the content lift Λ are panel values, and the closure ratio Σφ/Λ
  compares chain estimates with an independent measurement rather than with itself. They are scored
  *after* the chains (each chain scores them on its own window anyway): a budget that ends first
  still leaves completed chains, whose windows then give the anchors.

A score the oracle could not produce (a rollout's timeout or infrastructure error: not fatal, not a
budget stop) is asked again once; if it fails again, the chain that needed it is left out (counted,
with the first error kept) and the valuation goes on. Only a wave in which every chain failed stops
the run as an oracle error: that is an oracle down, not one bad rollout.

Execution is in rounds: every chain in flight asks for its next prefix, and the whole round goes
to the oracle as one batch, deduplicated and filtered through the cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from ..engine import BudgetCap
from ._model import TRIGGER_ID, Operator
from ._oracle import CoalitionOracle, CoalitionRequest, Task
from ._orders import OrderDistribution, OrderSampler
from ._structure import GameStructure
from ._windows import WindowDealer, WindowDesign

ValuationStop = Literal[BudgetCap, "max_evaluations", "oracle_error"]
"""Why a valuation stopped early: one of the engine's budget caps (spelled as
:data:`~aces_ci.engine.BudgetCap` spells them), ``--max-evaluations``, or an oracle that failed.
The value JSON's ``stopped_by``."""

Pooling = Literal["pooled", "chain"]
SAMPLE_SHARE = 0.9
"""``sample_share`` of ``aces-ci value`` with the interaction model and a budget: sampled half-coalitions take
nine tenths of the scores (a third of them under ρ_pad: content values and context costs come from the
joint model), the chains the rest (anchors, the closure). On the benchmark's games at 250 rollouts per
unit this made the right keep / cut call for 97% / 98% of effective units at 16 / 24 units and called
82% of dead units negligible at 24 units (BENCHMARKS.md, round seven); with two thirds and content
values from the chains, 91% / 97% and 64%."""
PAD_SHARE = 1 / 3
"""Share of the sampled half-coalitions scored under ρ_pad (when ρ_pad is an operator), in complementary
pairs: the joint model (:class:`~aces_ci.skillsv._interaction._Design` with ``pad``) reads content values
and context costs from them, and their net-effect terms are ρ_del's, so they inform the net effects
too. A third, not a half: a unit whose length does cost score keeps its κ term, and its net effect then
rests on the ρ_del rows alone."""
SAMPLE_ROUNDS = 10
"""Rounds of half-coalition sampling: the cache serves a coalition drawn twice on one case free, so
each round draws again for what the last one left of the budget."""


def half_coalitions(
    structure: GameStructure, execution: Sequence[int], trigger: int, rng: np.random.Generator
) -> tuple[int, int]:
    """A coalition holding each execution unit with probability ½, and its complement: the trigger in
    both, each closed under the requirements so it is feasible (:meth:`Estimator._sample_halves`)."""
    present = rng.random(len(execution)) < 0.5
    inside = sum(1 << player for player, there in zip(execution, present, strict=True) if there)
    outside = sum(1 << player for player, there in zip(execution, present, strict=True) if not there)
    return structure.closure(1 << trigger | inside), structure.closure(1 << trigger | outside)


@dataclass(frozen=True)
class EstimatorSettings:
    """Knobs of the estimator; the defaults are ours, :func:`published_settings` gives Algorithm 1's."""

    orders: int = 12
    """K: orders (chains) to sample."""
    window: int = 8
    """b: tasks per window."""
    tolerance: float | None = None
    """τ: truncate when a prefix is this close to the full-skill anchor; None (the default) never truncates.
    Truncation gives every later unit of the chain marginal 0, which pulls all values toward 0: on the
    planted games, turning it off raised the slope of the estimates on the exact values from 0.55 to
    1.1 and interval coverage to 0.95–0.99 (BENCHMARKS.md, issue 23), for the rollouts it saved."""
    gate_hits: int = 1
    """Consecutive prefixes within τ before truncating (the paper: one). Two hits truncate less often
    and cost more rollouts without a measurable gain in error on the benchmark's games."""
    operators: tuple[Operator, ...] = ("del", "pad")
    distribution: OrderDistribution = "layer"
    seed: int = 0
    pooling: Pooling = "pooled"
    """How chains become unit values: ``pooled`` (:mod:`._pooled`: every scored prefix informs every
    unit, with a cross-fitted additive control variate; about half the variance of ``chain`` per
    chain on the benchmark's games) or ``chain`` (Algorithm 1: each unit's two adjacent prefixes)."""
    antithetic: bool = True
    """Draw orders in pairs from u and 1 − u. Neutral for the chain estimator, whose error is rollout
    noise; it lowers the pooled estimator's error (its control variate leaves order variance that the
    pairs cancel), so on by default."""
    stratified: bool = False
    """Latin-hypercube draws: across the run's independent draws (pairs when ``antithetic``), every
    coordinate of the order's uniform vector takes one value from each of as many equal strata, so
    each block's choice at each step is spread evenly over the chains; each order is still μ. Off:
    the benchmark's error is rollout noise, not order variance, and it measured no gain; and the
    chains are then no longer independent, which the pooled cross-fit and the bootstrap assume."""
    windows: WindowDesign = "balanced"
    pairs_per_window: int = 2
    """Chains (antithetic pairs) scored on one window. Two lets the pooled estimator learn each case's
    difficulty from a chain whose order is independent of the one it values (:mod:`._pooled`); the
    chain estimator needs no such thing (Algorithm 1: one window per order)."""
    reuse: bool = True
    panel_anchors: bool = True
    paired: bool = True
    """False scores every coalition of a chain on its own window (plain permutation sampling)."""
    chains_in_flight: int = 4
    max_evaluations: int | None = None
    max_usd: float | None = None
    sample_share: float = 0.0
    """Share of the run's scores spent on *sampled half-coalitions* (:meth:`Estimator._sample_halves`:
    each unit present with probability ½, in complementary pairs, each on one case) rather than chains;
    with ``budget_scores`` the chains are sized to the rest and the half-coalitions fill the budget.
    :data:`PAD_SHARE` of them are scored under ρ_pad (when it is an operator), and the interaction model
    then gives content values and context costs too; the chains give their rows to the model.
    """
    budget_scores: int | None = None
    """Coalition scores the design should fit in (``--max-rollouts`` ÷ runs; ``max_evaluations`` is a hard stop):
    :func:`~aces_ci.skillsv.fit_to_budget` shrinks the window, then K, then drops ρ_pad to fit it. Not a cap."""


def published_settings(
    orders: int, seed: int = 0, operators: tuple[Operator, ...] = ("del", "pad")
) -> EstimatorSettings:
    """Algorithm 1 as the paper publishes it: b = 8, τ = 0.05 on one hit, independent windows, no reuse."""
    return EstimatorSettings(
        orders=orders,
        window=8,
        tolerance=0.05,
        gate_hits=1,
        operators=operators,
        seed=seed,
        pooling="chain",
        antithetic=False,
        windows="independent",
        pairs_per_window=1,
        reuse=False,
        panel_anchors=False,
    )


@dataclass
class Meter:
    """What the valuation asked for and what it paid."""

    requested: int = 0
    """Coalition scores the algorithm used (repeats included): Algorithm 1's rollout count without reuse."""
    evaluated: int = 0
    """Requests sent to the oracle (after the coalition cache)."""
    rollouts: int = 0
    """Rollouts the oracle reports as paid (its own persistent cache serves the rest for free)."""
    cost_usd: float = 0.0
    served: int = 0
    """Scores the oracle served from its persistent caches: no rollout paid for them."""


@dataclass
class ChainRecord:
    """One finished chain: its order, window and the marginal of every execution unit per operator."""

    order: tuple[int, ...]
    window: tuple[int, ...]
    marginals: dict[Operator, np.ndarray]
    """Aligned with the structure's execution players (not with the order)."""
    per_task: dict[Operator, np.ndarray] | None
    """Per operator, units × window tasks: each unit's paired score difference on each task of the
    window (its mean over the window is the marginal); None when the chain was not paired."""
    levels: dict[Operator, np.ndarray] | None
    """Per operator, prefixes S_0 = {m} … S_{n−1} = N × window tasks: the scores themselves, NaN for
    the prefixes a truncation left unscored; None when the chain was not paired."""
    anchors: dict[str, float]
    """Window means: ``empty`` (ρ_del(∅)), ``trigger_del``, ``trigger_pad``, ``full``."""
    truncated_at: int | None
    """How many execution units were inserted before truncation; None when the walk went to N."""
    intermediate_evaluated: int
    pair: int
    """Chains with the same ``pair`` are antithetic partners (resampled together)."""
    group: int
    """Chains with the same ``group`` are scored on the same window (``pairs_per_window``)."""


@dataclass
class EstimateRun:
    """Everything the estimator measured, before summarising."""

    structure: GameStructure
    execution: tuple[int, ...]
    """Player indices of the execution units (every player but the trigger)."""
    settings: EstimatorSettings
    tasks: tuple[Task, ...]
    chains: list[ChainRecord] = field(default_factory=list)
    panel: dict[str, np.ndarray] = field(default_factory=dict)
    """Per-task scores on the whole panel: ``empty``, ``trigger_del``, ``trigger_pad``, ``full``."""
    meter: Meter = field(default_factory=Meter)
    planned_chains: int = 0
    stopped_by: ValuationStop | None = None
    error: str | None = None
    incomplete_chains: int = 0
    left_out: int = 0
    """Chains left out because a score they needed failed twice (a rollout's timeout or infrastructure error)."""
    failure: str | None = None
    """The first such failure, as the oracle reported it."""
    sampled: dict[tuple[int, int], float] = field(default_factory=dict)
    """ρ_del scores of the sampled half-coalitions (``sample_share``), by (coalition mask, case index)."""
    sampled_pad: dict[tuple[int, int], float] = field(default_factory=dict)
    """ρ_pad scores of the sampled half-coalitions (:data:`PAD_SHARE` of them), by (coalition mask, case index)."""
    case_scores: dict[str, dict[int, float]] = field(default_factory=dict)
    """Per anchor (``empty``, ``trigger_only``, ``full``, all ρ_del), its score on each case it was scored on."""


class _BudgetStop(Exception):
    def __init__(self, reason: ValuationStop, detail: str | None = None) -> None:
        super().__init__(reason)
        self.reason: ValuationStop = reason
        self.detail = detail


_Key = tuple[int, Operator, int]


class _Scores:
    """The coalition cache in front of the oracle, with the budget."""

    def __init__(self, oracle: CoalitionOracle, run: EstimateRun, seed: int) -> None:
        self.oracle = oracle
        self.run = run
        self.seed = seed
        self.cache: dict[_Key, float] = {}
        self.pending_stop: ValuationStop | None = None
        """Set when a batch spent the dollar budget: the wave finishes, no new wave starts."""
        self.last_failure: str | None = None
        """The latest error of a score that failed (retried, then left out)."""

    def canonical(self, mask: int, operator: Operator) -> tuple[int, Operator]:
        """ρ_del(N) = ρ_pad(N) (the same bytes) and ρ_pad(∅) is not a skill: both are scored as del."""
        return mask, "del" if mask in (0, self.run.structure.full) else operator

    def fetch(self, wanted: Sequence[_Key]) -> dict[_Key, float]:
        """Scores of ``wanted`` keys (mask, operator, task index); raises :class:`_BudgetStop`.

        A key whose score failed twice (not fatally, not for budget) is missing from the answer: the
        caller leaves out whatever needed it.
        """
        settings = self.run.settings
        meter = self.run.meter
        keys = [(*self.canonical(mask, op), task) for mask, op, task in wanted]
        meter.requested += len(keys)
        missing = list(dict.fromkeys(key for key in keys if key not in self.cache)) if settings.reuse else keys
        if settings.max_evaluations is not None and meter.evaluated + len(missing) > settings.max_evaluations:
            meter.requested -= len(keys)
            raise _BudgetStop("max_evaluations")
        found: dict[_Key, float] = {key: self.cache[key] for key in keys if key in self.cache} if settings.reuse else {}
        failed = self._ask(missing, found)
        if failed:
            self._ask(failed, found)  # a timed-out or crashed rollout is tried once more
        if settings.max_usd is not None and meter.cost_usd >= settings.max_usd:
            self.pending_stop = "budget_usd"
        return found

    def _ask(self, missing: Sequence[_Key], found: dict[_Key, float]) -> list[_Key]:
        """Score ``missing`` into ``found``; the keys that failed (not fatally, not for budget)."""
        if not missing:
            return []
        settings, meter, structure = self.run.settings, self.run.meter, self.run.structure
        requests = [
            CoalitionRequest(structure.members(mask), op, self.run.tasks[task], self.seed) for mask, op, task in missing
        ]
        outcomes = self.oracle.evaluate(requests)
        meter.evaluated += len(missing)
        failed: list[_Key] = []
        problem: str | None = None
        fatal = budget = False
        cap: ValuationStop = "budget_usd"
        for key, outcome in zip(missing, outcomes, strict=True):
            meter.rollouts += outcome.rollouts
            meter.cost_usd += outcome.cost_usd
            meter.served += outcome.score is not None and outcome.rollouts == 0
            if outcome.score is None:
                if outcome.fatal or outcome.budget_stop:
                    problem = problem or outcome.error or "not scored"
                    fatal = fatal or outcome.fatal
                    budget = budget or outcome.budget_stop
                    if outcome.cap is not None:  # the engine names its caps as the valuation does
                        cap = outcome.cap
                else:
                    failed.append(key)
                    self.last_failure = outcome.error or "not scored"
                continue
            if settings.reuse:
                self.cache[key] = outcome.score
            found[key] = outcome.score  # without reuse a repeat overwrites: each was paid for
        if fatal:
            raise _BudgetStop("oracle_error", problem)
        if problem is not None:  # a budget reached inside the oracle
            raise _BudgetStop(cap if budget else "oracle_error", problem)
        return failed


@dataclass
class _Walk:
    """A chain in progress."""

    index: int
    pair: int
    group: int
    order: list[int]
    window: list[int]
    prefixes: list[int]
    """Coalition masks S_0 = {m}, S_1, …, S_{n−1} = N."""
    values: dict[Operator, list[np.ndarray]] = field(default_factory=dict)
    """Per operator, the score row of S_0 = {m}, S_1, … on the window."""
    full_row: np.ndarray = field(default_factory=lambda: np.zeros(0))
    anchors: dict[str, float] = field(default_factory=dict)
    step: int = 0
    hits: int = 0
    truncated_at: int | None = None
    windows_of: dict[int, list[int]] = field(default_factory=dict)
    """Per prefix, its own window (unpaired sampling only)."""
    failed: bool = False
    """A score this chain needed failed twice: the chain is left out."""


class Estimator:
    """Runs Algorithm 1 (with the settings' variance reductions) against an oracle."""

    def __init__(
        self, structure: GameStructure, tasks: Sequence[Task], oracle: CoalitionOracle, settings: EstimatorSettings
    ) -> None:
        if TRIGGER_ID not in structure.index:
            raise ValueError("the game has no trigger unit 'm'")
        if not tasks:
            raise ValueError("no tasks to score on")
        self.structure = structure
        self.settings = settings
        self.trigger = structure.index[TRIGGER_ID]
        execution = tuple(i for i in range(structure.size) if i != self.trigger)
        self.run = EstimateRun(structure, execution, settings, tuple(tasks))
        self.position = {player: slot for slot, player in enumerate(execution)}
        self.scores = _Scores(oracle, self.run, settings.seed)
        self.rng = np.random.default_rng(settings.seed)
        self.sampler = OrderSampler(structure, settings.distribution)
        self.dealer = WindowDealer(tasks, settings.window, settings.windows, self.rng)

    # --- plan ------------------------------------------------------------------------------------
    def _plan(self) -> list[_Walk]:
        walks: list[_Walk] = []
        settings = self.settings
        pair_draws: np.ndarray | None = None
        window: list[int] = []
        independent = (settings.orders + 1) // 2 if settings.antithetic else settings.orders
        latin = self._latin(independent) if settings.stratified else None
        for index in range(settings.orders):
            partner = settings.antithetic and index % 2 == 1
            if partner and pair_draws is not None:
                draws = 1.0 - pair_draws  # 1 − u maps each stratum onto a stratum: the pairs stay stratified
            else:
                row = index // 2 if settings.antithetic else index
                draws = self.rng.random(self.structure.draws) if latin is None else latin[row]
                pair_draws = draws
            pair = index // 2 if settings.antithetic else index
            if pair % max(1, settings.pairs_per_window) == 0 and not partner:
                window = self.dealer.next()
            order = self.sampler.order(draws)
            if order[0] != self.trigger:
                raise AssertionError("a feasible order must start with the trigger")
            prefixes = [1 << self.trigger]
            for player in order[1:]:
                prefixes.append(prefixes[-1] | 1 << player)
            group = pair // max(1, settings.pairs_per_window)
            walks.append(_Walk(index, pair, group, order[1:], list(window), prefixes))
        return walks

    def _latin(self, rows: int) -> np.ndarray:
        """rows × draws: a Latin hypercube, each column one uniform from each of ``rows`` strata."""
        columns = self.structure.draws
        ranks = np.argsort(self.rng.random((rows, columns)), axis=0)
        return (ranks + self.rng.random((rows, columns))) / max(rows, 1)

    def _window(self, walk: _Walk, prefix: int) -> list[int]:
        if self.settings.paired:
            return walk.window
        if prefix not in walk.windows_of:
            walk.windows_of[prefix] = self.dealer.next()
        return walk.windows_of[prefix]

    # --- run -------------------------------------------------------------------------------------
    def estimate(self) -> EstimateRun:
        run = self.run
        walks = self._plan()
        run.planned_chains = len(walks)
        try:
            wave = max(1, self.settings.chains_in_flight)
            if self.settings.antithetic and wave % 2:
                wave += 1
            for start in range(0, len(walks), wave):
                self._walk_wave(walks[start : start + wave])
                if self.scores.pending_stop is not None and start + wave < len(walks):
                    run.stopped_by = self.scores.pending_stop
                    break
            if self.settings.sample_share > 0 and run.stopped_by is None and self.scores.pending_stop is None:
                self._sample_halves()
            if self.settings.panel_anchors and run.stopped_by is None and self.scores.pending_stop is None:
                self._panel_anchors()
        except _BudgetStop as stop:
            run.stopped_by = stop.reason
            run.error = stop.detail
        run.incomplete_chains = run.planned_chains - len(run.chains)
        run.failure = self.scores.last_failure
        anchors = {"empty": 0, "trigger_only": 1 << self.trigger, "full": self.structure.full}
        for name, mask in anchors.items():
            cached = self.scores.cache
            run.case_scores[name] = {
                t: cached[(mask, "del", t)] for t in range(len(run.tasks)) if (mask, "del", t) in cached
            }
        return run

    def _sample_halves(self) -> None:
        """Score the sampled half-coalitions: ``sample_share`` of the run's scores, the chains having spent the rest.

        Each draw puts every execution unit in with probability ½ and pairs that coalition with its
        complement (the trigger in both), each closed under the requirements so it is feasible; each is
        scored on one case, the cases dealt evenly. Every row then informs every unit's effect at the
        best rate a single row can (Data Banzhaf / MSR): independent, balanced presence. Prefixes of
        μ-orders, the round-five design, tie the units a prefix holds to each other (a long prefix holds
        many), and that correlation, not the pair terms, set their values' spread: on the benchmark's
        16-unit games a model with no pair terms at all had an sd of 0.028 on prefix rows, against 0.020
        for the sparse model on as many half-coalitions (BENCHMARKS.md, round six). The pair terms this
        design estimates least well are what the sparse fit of :mod:`._interaction` prunes.
        """
        share = min(self.settings.sample_share, 0.95)
        budget = self.settings.budget_scores
        start = self.run.meter.evaluated
        cases = len(self.run.tasks)
        execution = self.run.execution
        pad = "pad" in self.settings.operators
        deck: list[int] = []
        for _ in range(SAMPLE_ROUNDS):  # a coalition already scored on its case is free: draw again for it
            if budget is None:
                wanted = round(start * share / (1.0 - share)) - (self.run.meter.evaluated - start)
            else:  # the budget's rest, less the panel anchors still to score
                wanted = budget - self.run.meter.evaluated - self._anchors_left()
            keys: list[tuple[int, Operator, int]] = []
            while len(keys) < wanted:
                operator: Operator = "pad" if pad and self.rng.random() < PAD_SHARE else "del"
                for mask in half_coalitions(self.structure, execution, self.trigger, self.rng)[: wanted - len(keys)]:
                    if not deck:
                        deck = [int(task) for task in self.rng.permutation(cases)]
                    keys.append((mask, operator, deck.pop()))
            if not keys:
                return
            found = self.scores.fetch(keys)
            for (mask, operator, task), score in found.items():
                (self.run.sampled_pad if operator == "pad" else self.run.sampled)[(mask, task)] = score

    def _anchors_left(self) -> int:
        """Panel-anchor scores not yet in the cache (what :meth:`_panel_anchors` will pay)."""
        if not self.settings.panel_anchors:
            return 0
        operators: list[tuple[int, Operator]] = [(0, "del"), (1 << self.trigger, "del"), (self.structure.full, "del")]
        if "pad" in self.settings.operators:
            operators.append((1 << self.trigger, "pad"))
        keys = {
            (*self.scores.canonical(mask, op), task) for mask, op in operators for task in range(len(self.run.tasks))
        }
        return sum(key not in self.scores.cache for key in keys)

    def _panel_anchors(self) -> None:
        structure = self.structure
        trigger_mask = 1 << self.trigger
        wanted: dict[str, tuple[int, Operator]] = {
            "empty": (0, "del"),
            "trigger_del": (trigger_mask, "del"),
            "full": (structure.full, "del"),
        }
        if "pad" in self.settings.operators:
            wanted["trigger_pad"] = (trigger_mask, "pad")
        tasks = range(len(self.run.tasks))
        keys = [(mask, op, task) for mask, op in wanted.values() for task in tasks]
        scores = self.scores.fetch(keys)
        if any((*self.scores.canonical(mask, op), task) not in scores for mask, op, task in keys):
            return  # a score failed twice: the anchors come from the chains' windows instead
        for name, (mask, op) in wanted.items():
            key = self.scores.canonical(mask, op)
            self.run.panel[name] = np.array([scores[(*key, task)] for task in tasks])

    def _scored(self, scores: dict[_Key, float], mask: int, op: Operator, window: list[int]) -> bool:
        key = self.scores.canonical(mask, op)
        return all((*key, task) in scores for task in window)

    def _row(self, scores: dict[_Key, float], mask: int, op: Operator, window: list[int]) -> np.ndarray:
        """The coalition's score on each task of ``window``, in window order."""
        key = self.scores.canonical(mask, op)
        return np.array([scores[(*key, task)] for task in window], dtype=float)

    def _walk_wave(self, walks: list[_Walk]) -> None:
        operators = self.settings.operators
        self._walk_anchors(walks)
        # Rounds 1…: the next intermediate prefix of every chain still walking.
        last_intermediate = len(self.run.execution) - 1
        while True:
            active = [
                walk
                for walk in walks
                if not walk.failed and walk.truncated_at is None and walk.step < last_intermediate
            ]
            if not active:
                break
            wanted: list[_Key] = []
            for walk in active:
                mask = walk.prefixes[walk.step + 1]
                for op in operators:
                    wanted.extend((mask, op, task) for task in self._window(walk, mask))
            scores = self.scores.fetch(wanted)
            for walk in active:
                mask = walk.prefixes[walk.step + 1]
                if not all(self._scored(scores, mask, op, self._window(walk, mask)) for op in operators):
                    walk.failed = True
                    continue
                walk.step += 1
                close = True
                for op in operators:
                    row = self._row(scores, mask, op, self._window(walk, mask))
                    walk.values[op].append(row)
                    current = float(row.mean())
                    tolerance = self.settings.tolerance
                    close = close and tolerance is not None and abs(current - walk.anchors["full"]) <= tolerance
                walk.hits = walk.hits + 1 if close else 0
                if walk.hits >= max(1, self.settings.gate_hits):
                    walk.truncated_at = walk.step
        failed = [walk for walk in walks if walk.failed]
        self.run.left_out += len(failed)
        if failed and len(failed) == len(walks):
            raise _BudgetStop("oracle_error", f"every chain of a wave failed: {self.scores.last_failure}")
        for walk in walks:
            if not walk.failed:
                self._finish(walk)

    def _walk_anchors(self, walks: list[_Walk]) -> None:
        """Round 0 of a wave: each chain's anchors (empty, trigger, full) on its window; a chain short of one fails."""
        operators = self.settings.operators
        trigger_mask = 1 << self.trigger
        full = self.structure.full
        wanted: list[_Key] = []
        for walk in walks:
            for mask in (0, trigger_mask, full):
                wanted.extend((mask, "del", task) for task in self._window(walk, mask))
            if "pad" in operators:
                wanted.extend((trigger_mask, "pad", task) for task in self._window(walk, trigger_mask))
        scores = self.scores.fetch(wanted)
        for walk in walks:
            needed: list[tuple[int, Operator]] = [(mask, "del") for mask in (0, trigger_mask, full)]
            needed += [(trigger_mask, op) for op in operators]
            if not all(self._scored(scores, mask, op, self._window(walk, mask)) for mask, op in needed):
                walk.failed = True
                continue
            walk.full_row = self._row(scores, full, "del", self._window(walk, full))
            walk.anchors["empty"] = float(self._row(scores, 0, "del", self._window(walk, 0)).mean())
            walk.anchors["full"] = float(walk.full_row.mean())
            for op in operators:
                row = self._row(scores, trigger_mask, op, self._window(walk, trigger_mask))
                walk.anchors[f"trigger_{op}"] = float(row.mean())
                walk.values[op] = [row]

    def _finish(self, walk: _Walk) -> None:
        count = len(self.run.execution)
        marginals: dict[Operator, np.ndarray] = {}
        per_task: dict[Operator, np.ndarray] = {}
        levels: dict[Operator, np.ndarray] = {}
        for op, rows in walk.values.items():
            series = list(rows)
            if walk.truncated_at is None:
                series.append(walk.full_row)
            table = np.full((count + 1, len(walk.full_row)), np.nan)
            table[: len(series)] = np.array(series)
            levels[op] = table
            differences = np.zeros((count, len(walk.full_row)))
            out = np.zeros(count)
            for position, player in enumerate(walk.order):
                if position + 1 < len(series):
                    slot = self.position[player]
                    out[slot] = float(series[position + 1].mean() - series[position].mean())
                    differences[slot] = series[position + 1] - series[position]
            marginals[op] = out
            per_task[op] = differences
        self.run.chains.append(
            ChainRecord(
                order=tuple(walk.order),
                window=tuple(walk.window),
                marginals=marginals,
                per_task=per_task if self.settings.paired else None,
                levels=levels if self.settings.paired else None,
                anchors=dict(walk.anchors),
                truncated_at=walk.truncated_at,
                intermediate_evaluated=walk.step,
                pair=walk.pair,
                group=walk.group,
            )
        )

    def sample_more(self, budget_scores: int) -> None:
        """Score more half-coalitions, drawn as before, until the run has spent ``budget_scores`` (adaptive
        allocation's second look, :mod:`._adaptive`). A budget stop ends the asking and is recorded on the run
        as for chains."""
        if self.run.stopped_by is not None:
            return
        self.settings = replace(self.settings, budget_scores=budget_scores)
        try:
            self._sample_halves()
        except _BudgetStop as stop:
            self.run.stopped_by = stop.reason
            self.run.error = stop.detail
