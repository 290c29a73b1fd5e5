"""A valuation split over a workflow matrix: each shard pays part of the design, the merge replays the whole.

Why it can be split: without truncation (``--tolerance``), adaptive looks (``value.adaptive``), the
pruning test (``--holdout``) or the estimator's own dollar cap (``--budget-usd``), which coalition scores
a valuation asks for is a function of the seed, the compiled skill, the cases and the settings, never of
a score. :func:`shard_design` finds them by running the very code :func:`~aces_ci.skillsv.valuate`
runs (the estimator's rounds, or exact mode's enumeration) against an oracle that pays nothing, as
:func:`~aces_ci.skillsv.planned_scores` counts a plan; every shard computes the same design from its
own inputs, without seeing another shard's outcome. :func:`unshardable` names the settings for which
that is not true; the command refuses them with ``--shard``.

The unit of the split is a coalition (operator and members) with every case the design scores it on,
not a chain: chains share coalitions (∅, {m} and N on every window, each prefix the hierarchy forces),
so a split by chain would pay a shared score once per shard that meets it. Split by coalition, every
score of the design is paid by exactly one shard, and the merged valuation's accounting is the one of
an unsharded run. Units go longest expected cost first to the least loaded shard; a unit's expected
cost is its cases times (:data:`ROLLOUT_BASE_TOKENS` + the tokens of the rendered coalition).

The merge replays the ordinary valuation with a :class:`RecordedOracle`, which answers only from the
shards' records: the same requests in the same order as an unsharded run, so the same values,
intervals and decisions by construction.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from ._budget import Plan
from ._estimate import Estimator, ValuationStop
from ._exact_run import exact_valuation
from ._model import CompiledSkill, Operator
from ._oracle import CoalitionOracle, CoalitionRequest, Outcome, Task
from ._render import render, tree_tokens
from ._structure import GameStructure
from ._tasks import split_panels
from ._valuate import ValueSettings

ScoreKey = tuple[Operator, frozenset[str], str, int]
"""What one score is of: (operator, coalition members, case id, seed)."""

ROLLOUT_BASE_TOKENS = 1_000
"""What a rollout costs beyond the staged skill (system prompt, the case, the answer), in the tokens
the split weighs by. It only balances the shards; no result depends on it."""

BATCH_SCORES = 64
"""Scores a shard sends to the oracle at once: one estimator round of four chains on a window of eight
under both operators. Each batch's scores are stored when it returns, so a killed shard loses at most one."""


def score_key(request: CoalitionRequest) -> ScoreKey:
    return (request.operator, request.members, request.task.id, request.seed)


def key_text(key: ScoreKey) -> str:
    """``del:m,u1 on case 'c3' (seed 0)``: how an error names a score."""
    operator, members, case, seed = key
    return f"{operator}:{','.join(sorted(members))} on case {case!r} (seed {seed})"


def unshardable(settings: ValueSettings) -> str | None:
    """Why a valuation with ``settings`` (the plan's estimator settings) cannot be split; None if it can."""
    estimator = settings.estimator
    if settings.adaptive and settings.values_from == "interaction" and estimator.budget_scores is not None:
        return (
            "value.adaptive decides from the first look's intervals whether to pay the second half, which needs "
            "every shard's scores; "
            "set value.adaptive: false in aces.yml to shard this valuation"
        )
    if settings.holdout > 0:
        return "the pruning test (--holdout) removes units in the order the values rank them, known only at the merge"
    if settings.exact:
        return None
    if estimator.tolerance is not None:
        return "truncation (--tolerance) decides a chain's next prefix from its scores; shard without it"
    if estimator.max_usd is not None:
        return (
            "--budget-usd stops the valuation when its dollars run out, in the order scores arrive across every "
            "shard; size the design with --max-rollouts, or cap each shard's engine with aces.yml run.budget_usd"
        )
    if not (estimator.reuse and estimator.paired):
        return "only the paired design with coalition reuse can be split"
    return None


class _Recorder:
    """An oracle that pays nothing and notes every distinct request, in the order it is first asked."""

    identity = "design"

    def __init__(self) -> None:
        self.requests: dict[ScoreKey, CoalitionRequest] = {}

    def evaluate(self, requests: Sequence[CoalitionRequest]) -> list[Outcome]:
        for request in requests:
            self.requests.setdefault(score_key(request), request)
        return [Outcome(0.0, rollouts=0) for _ in requests]


@dataclass(frozen=True)
class ShardDesign:
    """Every score of a valuation's design and the shard (1-based) that pays for it."""

    requests: tuple[CoalitionRequest, ...]
    """Distinct requests, in the order the valuation first asks for them."""
    owner: Mapping[ScoreKey, int]
    count: int

    @property
    def digest(self) -> str:
        """sha256 over the design's scores in order: equal exactly when two processes drew the same design."""
        rows = [[op, sorted(members), case, seed] for op, members, case, seed in map(score_key, self.requests)]
        return hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode()).hexdigest()

    def owned(self, index: int) -> list[CoalitionRequest]:
        """Shard ``index``'s requests, unit by unit."""
        mine = [request for request in self.requests if self.owner[score_key(request)] == index]
        return sorted(mine, key=lambda request: (request.operator, sorted(request.members)))


def shard_design(
    game: CompiledSkill, tasks: Sequence[Task], settings: ValueSettings, plan: Plan | None, count: int
) -> ShardDesign:
    """The design :func:`~aces_ci.skillsv.valuate` runs on ``settings`` and ``plan``, split into ``count`` shards."""
    if plan is not None:
        settings = replace(settings, estimator=plan.settings)
    structure = GameStructure.of(game)
    estimator = settings.estimator
    panel, _ = split_panels(tasks, settings.holdout, estimator.seed)
    recorder = _Recorder()
    if settings.exact:
        exact_valuation(
            structure,
            recorder,
            panel,
            operators=estimator.operators,
            distribution=estimator.distribution,
            seed=estimator.seed,
            groups=game.groups,
            rules=settings.rules,
        )
    else:
        Estimator(structure, panel, recorder, estimator).estimate()
    requests = tuple(recorder.requests.values())
    return ShardDesign(requests, _split(game, requests, count), count)


def _split(game: CompiledSkill, requests: Sequence[CoalitionRequest], count: int) -> dict[ScoreKey, int]:
    units: dict[tuple[Operator, frozenset[str]], list[CoalitionRequest]] = {}
    for request in requests:
        units.setdefault((request.operator, request.members), []).append(request)
    cost = {
        unit: len(members_requests) * (ROLLOUT_BASE_TOKENS + tree_tokens(render(game, unit[1], unit[0])))
        for unit, members_requests in units.items()
    }
    # Longest first onto the least loaded shard; ties by first use, then by the lowest shard.
    ordered = sorted(units, key=lambda unit: -cost[unit])
    load = [0] * count
    owner: dict[ScoreKey, int] = {}
    for unit in ordered:
        shard = min(range(count), key=lambda index: (load[index], index))
        load[shard] += cost[unit]
        for request in units[unit]:
            owner[score_key(request)] = shard + 1
    return owner


@dataclass(frozen=True)
class Attempt:
    """One answer of the oracle to a request: a score, or why not; what it paid."""

    score: float | None
    rollouts: int
    cost_usd: float
    error: str | None = None

    def outcome(self) -> Outcome:
        return Outcome(self.score, rollouts=self.rollouts, cost_usd=self.cost_usd, error=self.error)


@dataclass(frozen=True)
class ScoreRecord:
    """What a shard measured for one score of the design: its attempts (a failed one is asked once more)."""

    operator: Operator
    members: frozenset[str]
    case: str
    seed: int
    attempts: tuple[Attempt, ...]

    @property
    def key(self) -> ScoreKey:
        return (self.operator, self.members, self.case, self.seed)


@dataclass(frozen=True)
class ShardScores:
    """What a shard scored of its requests, and why it stopped early (None: it scored every one)."""

    records: tuple[ScoreRecord, ...]
    stopped_by: ValuationStop | None = None
    error: str | None = None


def _attempt(outcome: Outcome) -> Attempt:
    return Attempt(outcome.score, outcome.rollouts, outcome.cost_usd, outcome.error)


def _stop(outcome: Outcome) -> ValuationStop | None:
    if outcome.score is not None or not (outcome.fatal or outcome.budget_stop):
        return None
    return "oracle_error" if outcome.fatal else (outcome.cap or "budget_usd")


def score_shard(oracle: CoalitionOracle, requests: Sequence[CoalitionRequest]) -> ShardScores:
    """Score ``requests`` in batches, a failed score asked once more as the estimator does; a fatal or budget
    outcome stops the shard (what was scored is kept)."""
    records: list[ScoreRecord] = []
    for start in range(0, len(requests), BATCH_SCORES):
        batch = list(requests[start : start + BATCH_SCORES])
        first = oracle.evaluate(batch)
        stop = next(((reason, o.error) for o in first if (reason := _stop(o)) is not None), None)
        retry = [(request, outcome) for request, outcome in zip(batch, first, strict=True) if outcome.score is None]
        for request, outcome in zip(batch, first, strict=True):
            if outcome.score is not None:
                records.append(_record(request, (_attempt(outcome),)))
        if stop is None and retry:
            second = oracle.evaluate([request for request, _ in retry])
            stop = next(((reason, o.error) for o in second if (reason := _stop(o)) is not None), None)
            if stop is None:
                for (request, outcome), again in zip(retry, second, strict=True):
                    records.append(_record(request, (_attempt(outcome), _attempt(again))))
        if stop is not None:
            return ShardScores(tuple(records), stop[0], stop[1])
    return ShardScores(tuple(records))


def _record(request: CoalitionRequest, attempts: tuple[Attempt, ...]) -> ScoreRecord:
    return ScoreRecord(request.operator, request.members, request.task.id, request.seed, attempts)


class RecordedOracle:
    """The shards' records as an oracle: the k-th request for a score gets its k-th attempt.

    A request asked more often than the shard asked it (a chain left out, met again) gets the last
    attempt again, free. A score with no record goes to ``missing``, which either answers (a shard
    that stopped early: the valuation stops as an unsharded one would) or raises.
    """

    def __init__(
        self,
        identity: str,
        records: Mapping[ScoreKey, ScoreRecord],
        missing: Callable[[ScoreKey], Outcome],
    ) -> None:
        self._identity = identity
        self.records = records
        self.missing = missing
        self.asked: dict[ScoreKey, int] = {}

    @property
    def identity(self) -> str:
        return self._identity

    def evaluate(self, requests: Sequence[CoalitionRequest]) -> list[Outcome]:
        outcomes = []
        for request in requests:
            key = score_key(request)
            record = self.records.get(key)
            if record is None:
                outcomes.append(self.missing(key))
                continue
            asked = self.asked.get(key, 0)
            self.asked[key] = asked + 1
            if asked < len(record.attempts):
                outcomes.append(record.attempts[asked].outcome())
            else:
                last = record.attempts[-1]
                outcomes.append(Outcome(last.score, rollouts=0, error=last.error))
        return outcomes
