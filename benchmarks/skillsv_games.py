"""Planted SkillSV games with known exact values and a noisy Bernoulli oracle.

A planted game looks like a compiled skill (a trigger ``m``, sections of list-item units, a folder of
resources, units that require resources and lead-ins) and its coalition value is written as
unanimity terms, so its μ-exact values are known at any size
(:func:`aces_ci.skillsv.unanimity_values`). The roles the SkillSV paper plants are all there:

* solo units with their own value;
* a redundant OR pair (either one gives the value, both give no more);
* a complementary AND pair (value only together);
* a harmful unit (negative value) and a dead unit (no value);
* a unit whose value needs a resource it requires (the value goes to the unit that completes it).

Scores are Bernoulli draws of ``p(S, t)``: a per-task base rate (task difficulty, which pairing
cancels) plus each term's coefficient on the tasks where it helps (so unit effects vary by task),
minus, under ρ_del, a context cost proportional to the kept units' tokens (under ρ_pad the
footprint is fixed, so the cost is the same for every coalition). Every number is seeded.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from aces_ci.skillsv import CoalitionRequest, GameStructure, OrderDistribution, Outcome, Task, unanimity_values

ACTIVE_FRACTION = 0.75
"""Share of tasks on which a term helps; its coefficient is scaled so the panel average is exact."""


@dataclass(frozen=True)
class Term:
    members: frozenset[str]
    coefficient: float
    """Panel-average effect of holding every member."""
    role: str
    group: int = 0
    """Terms of one group (an OR pair's three terms) help on the same tasks."""


@dataclass
class PlantedGame:
    structure: GameStructure
    terms: tuple[Term, ...]
    tokens: dict[str, int]
    context_cost: float
    """Score lost per kept token under ρ_del."""
    base: np.ndarray
    """Per-task base rate."""
    activity: np.ndarray
    """groups × tasks multipliers (0 or 1/active share), each row averaging exactly 1."""
    roles: dict[str, str] = field(default_factory=dict)
    term_sets: list[frozenset[str]] = field(default_factory=list)
    _memo: dict[tuple[frozenset[str], str, int], float] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.term_sets = [term.members for term in self.terms]

    @property
    def tasks(self) -> list[Task]:
        return [Task(f"t{index}", {"id": f"t{index}", "prompt": f"task {index}"}) for index in range(len(self.base))]

    def probability(self, members: frozenset[str], operator: str, task: int) -> float:
        key = (members, operator, task)
        known = self._memo.get(key)
        if known is not None:
            return known
        value = float(self.base[task])
        if members:
            for row, term in enumerate(self.term_sets):
                if term <= members:
                    value += self.terms[row].coefficient * float(self.activity[self.terms[row].group, task])
            kept = self.tokens.keys() if operator == "pad" else members
            value -= self.context_cost * sum(self.tokens.get(unit, 0) for unit in kept)
        value = min(1.0, max(0.0, value))
        self._memo[key] = value
        return value

    def probabilities(self, members: frozenset[str], operator: str) -> np.ndarray:
        """``probability`` on every task at once (not memoised: for sweeps over many coalitions)."""
        value = self.base.copy()
        if members:
            for term, members_of in zip(self.terms, self.term_sets, strict=True):
                if members_of <= members:
                    value += term.coefficient * self.activity[term.group]
            kept = self.tokens.keys() if operator == "pad" else members
            value -= self.context_cost * sum(self.tokens.get(unit, 0) for unit in kept)
        clipped: np.ndarray = np.clip(value, 0.0, 1.0)
        return clipped

    def exact(self, distribution: OrderDistribution) -> dict[str, dict[str, float]]:
        """μ-exact values per operator: ``{"pad": {unit: φ}, "del": {unit: φ}}`` (trigger excluded)."""
        content = unanimity_values(
            self.structure, distribution, [(term.members, term.coefficient) for term in self.terms]
        )
        pad = {player: content[i] for i, player in enumerate(self.structure.players) if player != "m"}
        delete = {player: pad[player] - self.context_cost * self.tokens.get(player, 0) for player in pad}
        return {"pad": pad, "del": delete}


class BernoulliOracle:
    """Scores each request with a Bernoulli draw of the planted probability.

    ``fresh``: every request is a new rollout (a new draw), as with an agent sampled at temperature
    > 0 and no cache: asking again costs again and tells something new. ``seeded``: the draw is a
    function of (coalition, operator, task, seed), as with a reproducible rollout (the embedded
    model with a seed, or the engine's rollout cache): asking again costs again and tells nothing.
    ``expected``: no draw, the score is the probability itself — what is left of an estimator's
    error without rollout noise (its order, window and surrogate parts).
    """

    def __init__(self, game: PlantedGame, seed: int, noise: str = "fresh") -> None:
        self.game = game
        self.seed = seed
        self.noise = noise
        self.rng = np.random.default_rng(seed)
        self.calls = 0
        self.task_index = {f"t{index}": index for index in range(len(game.base))}

    def _draw(self, request: CoalitionRequest) -> float:
        if self.noise == "fresh":
            return float(self.rng.random())
        text = f"{self.seed}|{request.key}|{request.task.id}|{request.seed}"
        return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") / 2**64

    @property
    def identity(self) -> str:
        return "planted-bernoulli"

    def evaluate(self, requests: Sequence[CoalitionRequest]) -> list[Outcome]:
        self.calls += len(requests)
        out = []
        for request in requests:
            p = self.game.probability(request.members, request.operator, self.task_index[request.task.id])
            out.append(Outcome(p if self.noise == "expected" else 1.0 if self._draw(request) < p else 0.0))
        return out


def planted_game(units: int, seed: int, tasks: int = 40, profile: str = "spread") -> PlantedGame:
    """A game of ``units`` execution units (plus the trigger), every planted role included.

    ``spread``: every solo unit carries some value. ``concentrated``: a fifth of the solo units carry
    most of it and the rest next to nothing, as the SkillSV paper finds in optimized skills (the top
    10% of units hold 21–100% of the value).
    """
    rng = np.random.default_rng(seed)
    resources = max(1, units // 8)
    body = units - resources
    names = [f"u{i}" for i in range(1, body + 1)]
    files = [f"r{i}" for i in range(1, resources + 1)]
    sections: list[list[str]] = []
    position = 0
    while position < body:
        size = int(rng.integers(3, 7))
        sections.append(names[position : position + size])
        position += size
    requires: dict[str, set[str]] = {unit: {"m"} for unit in names + files}
    shuffled = list(rng.permutation(names))
    roles: dict[str, str] = {}
    terms: list[Term] = [Term(frozenset({"m"}), 0.05, "trigger", 0)]

    def take() -> str:
        return str(shuffled.pop())

    # the planted roles, then solo values for the rest
    a, b = take(), take()
    terms += [Term(frozenset({a}), 1.0, "or", 1), Term(frozenset({b}), 1.0, "or", 1)]
    terms.append(Term(frozenset({a, b}), -1.0, "or", 1))
    roles.update({a: "or", b: "or"})
    c, d = take(), take()
    terms.append(Term(frozenset({c, d}), 1.0, "and", 2))
    roles.update({c: "and", d: "and"})
    harmful, dead = take(), take()
    terms.append(Term(frozenset({harmful}), -0.5, "harmful", 3))
    roles.update({harmful: "harmful", dead: "dead"})
    user = take()
    requires[user].add(files[0])
    terms.append(Term(frozenset({user, files[0]}), 1.0, "dependency", 4))
    roles.update({user: "dependency", files[0]: "dependency-target"})
    for section in sections:  # a lead-in: the section's later items need its first
        if len(section) > 3 and rng.random() < 0.5:
            for unit in section[1:3]:
                requires[unit].add(section[0])
    for unit in shuffled:
        if profile == "concentrated":
            value = float(rng.uniform(0.5, 1.0)) if rng.random() < 0.2 else float(rng.uniform(0.0, 0.03))
        else:
            value = float(rng.uniform(0.2, 1.0))
        terms.append(Term(frozenset({unit}), value, "solo", len(terms)))
        roles[unit] = "solo"
    for extra in files[1:]:
        owner = str(rng.choice(names))
        if roles.get(owner) == "solo":
            requires[owner].add(extra)
    positive = sum(term.coefficient for term in terms[1:] if term.coefficient > 0)
    scale = 0.45 / positive
    terms = [terms[0]] + [Term(t.members, t.coefficient * scale, t.role, t.group) for t in terms[1:]]
    hierarchy = ("m", *[tuple(section) if len(section) > 1 else section[0] for section in sections], tuple(files))
    tokens = {unit: int(rng.integers(20, 200)) for unit in names + files}
    players = ("m", *names, *files)
    lengths = tuple(tokens.get(player, 0) for player in players)
    structure = GameStructure(players, {key: frozenset(value) for key, value in requires.items()}, hierarchy, lengths)
    context_cost = 0.04 / sum(tokens.values())
    groups = max(term.group for term in terms) + 1
    activity = np.zeros((groups, tasks))
    for row in range(groups):
        active = rng.permutation(tasks)[: round(ACTIVE_FRACTION * tasks)]
        activity[row, active] = tasks / len(active)
    base = rng.uniform(0.1, 0.3, size=tasks)
    return PlantedGame(structure, tuple(terms), tokens, context_cost, base, activity, roles)


DEAD_SHARE = 5
"""A decidable game has one dead unit per this many units (at least three)."""


def _layout(rng: np.random.Generator, units: int) -> tuple[list[str], list[str], list[list[str]]]:
    """Body units, resource files and sections of 3–6 items, as :func:`planted_game` draws them."""
    resources = max(1, units // 8)
    names = [f"u{i}" for i in range(1, units - resources + 1)]
    sections: list[list[str]] = []
    position = 0
    while position < len(names):
        size = int(rng.integers(3, 7))
        sections.append(names[position : position + size])
        position += size
    return names, [f"r{i}" for i in range(1, resources + 1)], sections


def decidable_game(units: int, seed: int, tasks: int = 40) -> PlantedGame:
    """A game whose effects a release's budget can decide (issue 23, round four).

    The same skill shape as :func:`planted_game` (a trigger, sections with lead-ins, resources that
    units require), with effects of the size the issue's reference games have — about eight units
    with |φ| ≥ 0.05 at every size, the rest dead or minor:

    * two **load-bearing** solo units (0.10–0.14 each);
    * an **AND pair** (0.14 together, nothing alone: ≈ 0.07 each) and an **OR pair** (0.08 from
      either, no more from both: ≈ 0.04 each);
    * a **three-unit AND** (0.18 only when all three are in: ≈ 0.06 each) — the one interaction a
      pairwise model cannot represent;
    * a **harmful** unit (−0.08 to −0.12) and **dead** units (no effect: one in five units, at least 3);
    * a unit whose 0.04 needs the resource it requires; the rest **minor** (0–0.004 each).

    Effects are the same on every case (the case's base rate carries its difficulty), and the base
    rate is drawn inside the band where no coalition's probability leaves [0, 1], so the game is
    exactly its unanimity terms and :meth:`PlantedGame.exact` is its exact value at 40 units too.
    """
    rng = np.random.default_rng([seed, 23])
    names, files, sections = _layout(rng, units)
    requires: dict[str, set[str]] = {unit: {"m"} for unit in names + files}
    shuffled = [str(unit) for unit in rng.permutation(names)]
    roles: dict[str, str] = {}
    terms: list[Term] = [Term(frozenset({"m"}), 0.05, "trigger")]

    def plant(role: str, count: int) -> list[str]:
        taken = [shuffled.pop() for _ in range(count)]
        roles.update(dict.fromkeys(taken, role))
        return taken

    for unit in plant("load-bearing", 2):
        terms.append(Term(frozenset({unit}), float(rng.uniform(0.10, 0.14)), "load-bearing"))
    terms.append(Term(frozenset(plant("and", 2)), 0.14, "and"))
    terms.append(Term(frozenset(plant("and3", 3)), 0.18, "and3"))
    first, second = plant("or", 2)
    terms += [Term(frozenset({first}), 0.08, "or"), Term(frozenset({second}), 0.08, "or")]
    terms.append(Term(frozenset({first, second}), -0.08, "or"))
    terms.append(Term(frozenset(plant("harmful", 1)), -float(rng.uniform(0.08, 0.12)), "harmful"))
    (user,) = plant("dependency", 1)
    requires[user].add(files[0])
    roles[files[0]] = "dependency-target"
    terms.append(Term(frozenset({user, files[0]}), 0.04, "dependency"))
    plant("dead", max(3, units // DEAD_SHARE))
    for unit in plant("minor", len(shuffled)):
        terms.append(Term(frozenset({unit}), float(rng.uniform(0.0, 0.004)), "minor"))
    for section in sections:  # a lead-in: the section's later items need its first
        if len(section) > 3 and rng.random() < 0.5:
            for unit in section[1:3]:
                requires[unit].add(section[0])
    for extra in files[1:]:
        roles[extra] = "resource"
        requires[str(rng.choice(names))].add(extra)
    hierarchy = ("m", *[tuple(section) if len(section) > 1 else section[0] for section in sections], tuple(files))
    tokens = {unit: int(rng.integers(20, 200)) for unit in names + files}
    players = ("m", *names, *files)
    lengths = tuple(tokens.get(player, 0) for player in players)
    structure = GameStructure(players, {key: frozenset(value) for key, value in requires.items()}, hierarchy, lengths)
    context_cost = 0.02 / sum(tokens.values())
    highest = sum(term.coefficient for term in terms if term.coefficient > 0) - 0.08  # the OR pair pays once
    lowest = sum(term.coefficient for term in terms if term.coefficient < 0 and term.role != "or") - 0.02
    if 1.0 - highest <= -lowest:
        raise ValueError(f"a {units}-unit decidable game cannot keep every probability inside [0, 1]")
    base = rng.uniform(-lowest, 1.0 - highest, size=tasks)
    activity = np.ones((1, tasks))
    return PlantedGame(structure, tuple(terms), tokens, context_cost, base, activity, roles)
