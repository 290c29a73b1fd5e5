"""The oracle seam: how the estimator asks for coalition scores, and what it gets back.

The estimator never talks to a model. It hands a *batch* of :class:`CoalitionRequest` objects to a
:class:`CoalitionOracle` and reads one :class:`Outcome` per request: a score and what it cost.
Batches let an oracle run its requests concurrently (the live engine does), and the reported cost
lets the estimator keep a budget that spans the whole valuation.

Two layers implement it for a real skill:

* :class:`RenderingOracle` renders each coalition (ρ_del or ρ_pad), looks the score up in a
  persistent :class:`~aces_ci.skillsv.EvaluationStore` keyed by the rendered bytes, and passes the
  misses to a :class:`SkillScorer`;
* a :class:`SkillScorer` scores staged file trees on tasks: the Python-callable scorer
  (``--oracle python:MODULE:FUNC``) or the live agent through the rollout engine (:class:`LiveScorer`). A scorer
  gets the rendered tree (``{}`` for the bare agent), the case as written in evals.json, the seed,
  and a *condition* label naming the coalition, which the live engine uses as its condition.

Tests and benchmarks implement :class:`CoalitionOracle` directly with planted games.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..engine import BudgetCap
from ..skill import files_digest
from ._model import CompiledSkill, Operator
from ._render import render


@dataclass(frozen=True)
class Task:
    """One eval case of a panel."""

    id: str
    case: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """The evals.json case object as written (its own ``id``, ``prompt``, …)."""
    stratum: str = ""
    """Windows are stratified by this label (the case's ``stratum`` or ``category``, when it has one)."""

    @property
    def digest(self) -> str:
        """What identifies the case's content in a cache key (its id alone could be reused for another task)."""
        text = json.dumps(self.case, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(f"{self.id}\0{text}".encode()).hexdigest()


@dataclass(frozen=True)
class CoalitionRequest:
    """Score coalition ``members`` under ``operator`` on ``task`` with ``seed``."""

    members: frozenset[str]
    operator: Operator
    task: Task
    seed: int

    @property
    def key(self) -> str:
        """The coalition's canonical label, independent of insertion order: ``del:m,u1,u3``."""
        return f"{self.operator}:{','.join(sorted(self.members))}"


@dataclass(frozen=True)
class Outcome:
    """One scored request, or why it has no score."""

    score: float | None
    """In [0, 1] for the built-in scorers; None when the request could not be scored (see ``error``)."""
    rollouts: int = 1
    """Rollouts paid for this request: 0 when the oracle served it from its own cache."""
    cost_usd: float = 0.0
    error: str | None = None
    fatal: bool = False
    """The oracle itself failed (an exception, a non-number): the valuation stops, keeping what was scored."""
    budget_stop: bool = False
    """Not run because the oracle's own budget is spent (the engine's caps): the valuation stops
    as on ``--budget-usd``. Any other unscored outcome (a rollout's infrastructure error) stops it as
    an oracle error; unscored requests are never cached, so a rerun tries them again."""
    cap: BudgetCap | None = None
    """Which of the oracle's caps stopped it, when ``budget_stop`` and the oracle knows."""


class CoalitionOracle(Protocol):
    """Scores coalitions in batches. ``identity`` names what is measured (it enters cache keys)."""

    @property
    def identity(self) -> str: ...

    def evaluate(self, requests: Sequence[CoalitionRequest]) -> list[Outcome]:
        """One outcome per request, in order. May run the requests concurrently."""
        ...


@dataclass(frozen=True)
class ScoreRequest:
    """A rendered skill to score on one task: what a :class:`SkillScorer` receives."""

    skill_name: str
    files: Mapping[str, bytes]
    """The staged tree, path inside the skill → bytes; empty for the bare agent (ρ_del(∅))."""
    condition: str
    """A label naming the rendered tree (``skillsv-<digest16>``): the live engine's condition, so equal
    trees share rollouts whichever operator or insertion path produced them."""
    task: Task
    seed: int
    render_digest: str
    """sha256 of the staged tree: equal trees (ρ_del(N) and ρ_pad(N)) share it."""


class SkillScorer(Protocol):
    """Scores rendered skills; ``identity`` changes whenever what it measures changes."""

    @property
    def identity(self) -> str: ...

    def score(self, requests: Sequence[ScoreRequest]) -> list[Outcome]: ...


class ScoreStore(Protocol):
    """Where scored requests persist between runs (see :class:`~aces_ci.skillsv.EvaluationStore`)."""

    def get(self, key: str) -> float | None: ...

    def put(self, entries: Sequence[tuple[str, float, Mapping[str, Any]]]) -> None: ...


def store_key(scorer_identity: str, render_digest: str, task: Task, seed: int) -> str:
    """The persistent key of one score: scorer, rendered bytes, case content, seed — never an insertion path."""
    text = f"{scorer_identity}\0{render_digest}\0{task.digest}\0{seed}"
    return hashlib.sha256(text.encode()).hexdigest()


class RenderingOracle:
    """A :class:`CoalitionOracle` for a compiled skill: render, look up, score the misses, store them."""

    def __init__(self, game: CompiledSkill, scorer: SkillScorer, store: ScoreStore | None = None) -> None:
        self.game = game
        self.scorer = scorer
        self.store = store
        self._renders: dict[tuple[frozenset[str], Operator], tuple[dict[str, bytes], str]] = {}

    @property
    def identity(self) -> str:
        return self.scorer.identity

    def _rendered(self, members: frozenset[str], operator: Operator) -> tuple[dict[str, bytes], str]:
        key = (members, operator)
        if key not in self._renders:
            files = render(self.game, members, operator)
            self._renders[key] = (files, files_digest(files))
        return self._renders[key]

    def evaluate(self, requests: Sequence[CoalitionRequest]) -> list[Outcome]:
        outcomes: list[Outcome | None] = [None] * len(requests)
        pending: list[tuple[int, ScoreRequest, str]] = []
        for position, request in enumerate(requests):
            files, digest = self._rendered(request.members, request.operator)
            key = store_key(self.scorer.identity, digest, request.task, request.seed)
            stored = self.store.get(key) if self.store is not None else None
            if stored is not None:
                outcomes[position] = Outcome(stored, rollouts=0)
                continue
            condition = f"skillsv-{digest[:16]}"
            pending.append(
                (position, ScoreRequest(self.game.name, files, condition, request.task, request.seed, digest), key)
            )
        if pending:
            scored = self.scorer.score([score_request for _, score_request, _ in pending])
            fresh: list[tuple[str, float, Mapping[str, Any]]] = []
            for (position, _score_request, key), outcome in zip(pending, scored, strict=True):
                outcomes[position] = outcome
                if outcome.score is not None:
                    request = requests[position]
                    record = {"coalition": request.key, "task": request.task.id, "seed": request.seed}
                    fresh.append((key, outcome.score, record))
            if fresh and self.store is not None:
                self.store.put(fresh)
        return [outcome if outcome is not None else Outcome(None, 0, error="not scored") for outcome in outcomes]
