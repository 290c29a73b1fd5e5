"""The trigger trial: does the agent load the right skill for a query? Only its first decision is run.

A trigger eval needs only the agent's first move, not a whole task: each query is sent once per run
with the repository's skills listed as the host would list them (:func:`aces_ci.scan.build_listing`,
so a description the host cuts or drops is measured cut or dropped) and one tool, ``Skill``, to load
one of them. The first reply decides: a ``Skill`` call names the skill that took the query; a text
answer (or a call to anything else) means no skill was loaded. One model call per query and run,
its output bounded by :data:`MAX_DECISION_TOKENS`.

Per skill under trial, over its own queries (``evals/eval_queries.json``): **trigger recall** on the
should-trigger queries (the share that loaded this skill), the **false-trigger rate** on the
should-not queries (the share that loaded it anyway), and the **confusion**: which sibling took a
should-trigger query when this skill did not. Each rate has its interval and n; the query is the
unit (its runs are averaged first), Clopper–Pearson with one run, Hoeffding with several.

A **version contrast** (:func:`recall_contrast`) runs the same queries and seeds against the
listing as it was at a git ref (the skills under trial at that ref, their siblings as today) and
pairs the two recalls on the query: the change is the mean per-query difference, with the
Student-t interval of :func:`aces_ci.stats.lift_change` (the distribution-free bound when every
query changed alike). A recall **gate** (:func:`gate_recall`) reads each recall's interval
against a floor with the trial's bands logic.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from ..evals import TriggerQuery
from ..models import Message, ModelClient, ModelRequest, ToolSpec, Usage
from ..scan import HostListing
from ..stats import CaseLift, LiftChange, lift_change, mean_interval

MAX_DECISION_TOKENS = 256
"""Output tokens of the one decision call: enough for a tool call or the start of an answer."""
SKILL_TOOL = ToolSpec(
    "Skill",
    "Load one of the listed skills by its exact name, before doing anything else, when the request matches it.",
    {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
)
NO_SKILL = "(none)"
"""The confusion table's name for a query no skill took."""
RecallVerdict = Literal["pass", "fail", "underpowered", "unmeasured"]


def listing_prompt(listing: HostListing) -> str:
    """The system prompt: the skills as ``listing`` shows them (a dropped description leaves a bare name)."""
    lines = ["You can load skills with the Skill tool. Available skills:"]
    for entry in listing.entries:
        if entry.omitted:
            continue
        shown = f": {entry.shown}" if entry.shown else ""
        lines.append(f"- {entry.skill.name}{shown}")
    return "\n".join(lines)


@dataclass(frozen=True)
class TriggerQuestion:
    skill: str
    """The skill under trial whose dataset holds the query (its directory)."""
    query: TriggerQuery


@dataclass(frozen=True)
class Decision:
    question: TriggerQuestion
    run: int
    loaded: str | None
    """The directory of the skill the agent loaded; None when it loaded none."""


@dataclass(frozen=True)
class Rate:
    value: float | None
    """None when n is 0."""
    interval: tuple[float, float] | None
    n: int
    """Queries (each averaged over its runs)."""


@dataclass(frozen=True)
class RecallContrast:
    """The skill's recall now against its recall with its description as it was at ``ref``."""

    ref: str
    commit: str
    then: Rate
    change: LiftChange
    """Now minus then, paired on the should-trigger query (``delta``, ``ci``, ``n_cases`` = queries)."""


@dataclass(frozen=True)
class SkillTriggers:
    skill: str
    recall: Rate
    false_trigger: Rate
    confusion: tuple[tuple[str, int], ...]
    """Should-trigger decisions another skill took (or none did, ``(none)``), most frequent first."""
    verdict: RecallVerdict | None = None
    """The recall gate's verdict; None when no floor was set."""
    contrast: RecallContrast | None = None


@dataclass(frozen=True)
class TriggerTrial:
    host: str
    runs: int
    skills: tuple[SkillTriggers, ...]
    decisions: tuple[Decision, ...]
    usage: Usage
    min_recall: float | None = None
    underpowered_fails: bool = False
    """aces.yml ``gate.underpowered: fail``: an underpowered recall fails the gate."""

    def failing(self, skill: SkillTriggers) -> bool:
        """Whether ``skill``'s verdict fails the gate (``fail``, or ``underpowered`` when configured so)."""
        return skill.verdict == "fail" or (skill.verdict == "underpowered" and self.underpowered_fails)


async def decide(client: ModelClient, system: str, query: str, by_name: dict[str, str]) -> tuple[str | None, Usage]:
    """The agent's first move on ``query``: the directory of the skill it loaded (None: none), and the usage."""
    request = ModelRequest(system, (Message("user", query),), (SKILL_TOOL,), max_tokens=MAX_DECISION_TOKENS)
    response = await client.generate(request)
    for call in response.tool_calls[:1]:
        name = call.arguments.get("name")
        if call.name == SKILL_TOOL.name and isinstance(name, str):
            return by_name.get(name.strip()), response.usage
    return None, response.usage


def recall_verdict(rate: Rate, floor: float) -> RecallVerdict:
    """``pass``, ``fail`` or ``underpowered`` for a recall interval against ``floor``; ``unmeasured`` with n = 0."""
    if rate.interval is None:
        return "unmeasured"
    low, high = rate.interval
    if low >= floor:
        return "pass"
    if high < floor:
        return "fail"
    return "underpowered"


def gate_recall(trial: TriggerTrial, floor: float, underpowered_fails: bool) -> TriggerTrial:
    """``trial`` with each skill's recall verdict against ``floor``."""
    skills = tuple(replace(skill, verdict=recall_verdict(skill.recall, floor)) for skill in trial.skills)
    return replace(trial, skills=skills, min_recall=floor, underpowered_fails=underpowered_fails)


def _recall_by_query(skill: str, decisions: Sequence[Decision]) -> list[CaseLift]:
    """Each should-trigger query of ``skill``: the share of its runs that loaded ``skill``."""
    by_query: dict[str, list[bool]] = {}
    for decision in decisions:
        if decision.question.skill == skill and decision.question.query.should_trigger:
            by_query.setdefault(decision.question.query.pointer, []).append(decision.loaded == skill)
    return [CaseLift(pointer, sum(took) / len(took)) for pointer, took in by_query.items()]


def recall_contrast(now: TriggerTrial, then: TriggerTrial, ref: str, commit: str, alpha: float = 0.05) -> TriggerTrial:
    """``now`` with each skill's recall at ``then`` (the same queries against the listing at ``ref``) beside it.

    The usage is both trials'; the decisions stay ``now``'s (``then``'s live on in the contrast's figures).
    """
    earlier = {skill.skill: skill for skill in then.skills}
    skills = []
    for skill in now.skills:
        change = lift_change(
            _recall_by_query(skill.skill, now.decisions), _recall_by_query(skill.skill, then.decisions), alpha
        )
        contrast = RecallContrast(ref, commit, earlier[skill.skill].recall, change)
        skills.append(replace(skill, contrast=contrast))
    return replace(now, skills=tuple(skills), usage=now.usage + then.usage)


def _rate(per_query: list[float], alpha: float) -> Rate:
    if not per_query:
        return Rate(None, None, 0)
    scores = np.asarray(per_query, dtype=float)
    low, high = mean_interval(scores, alpha)
    return Rate(float(scores.mean()), (float(low), float(high)), len(per_query))


def summarise(skill: str, decisions: Sequence[Decision], alpha: float = 0.05) -> SkillTriggers:
    """Recall, false-trigger rate and confusion of ``skill`` over the decisions on its own queries."""
    by_query: dict[str, list[Decision]] = {}
    for decision in decisions:
        if decision.question.skill == skill:
            by_query.setdefault(decision.question.query.pointer, []).append(decision)
    positive, negative = [], []
    confusion: Counter[str] = Counter()
    for runs in by_query.values():
        took = [decision.loaded == skill for decision in runs]
        share = sum(took) / len(took)
        if runs[0].question.query.should_trigger:
            positive.append(share)
            confusion.update(decision.loaded or NO_SKILL for decision in runs if decision.loaded != skill)
        else:
            negative.append(share)
    ordered = tuple(sorted(confusion.items(), key=lambda item: (-item[1], item[0])))
    return SkillTriggers(skill, _rate(positive, alpha), _rate(negative, alpha), ordered)


async def run_trigger_trial(
    client: ModelClient,
    listing: HostListing,
    questions: Sequence[TriggerQuestion],
    runs: int,
    concurrency: int = 4,
) -> TriggerTrial:
    """Every question ``runs`` times, at most ``concurrency`` calls at once; the per-skill summary."""
    system = listing_prompt(listing)
    by_name = {entry.skill.name: entry.skill.rel_dir for entry in listing.entries if not entry.omitted}
    gate = asyncio.Semaphore(concurrency)

    async def one(question: TriggerQuestion, run: int) -> tuple[Decision, Usage]:
        async with gate:
            loaded, usage = await decide(client, system, question.query.query, by_name)
        return Decision(question, run, loaded), usage

    results = await asyncio.gather(*(one(question, run) for question in questions for run in range(runs)))
    decisions = tuple(decision for decision, _ in results)
    usage = sum((usage for _, usage in results), Usage())
    skills = tuple(dict.fromkeys(question.skill for question in questions))
    summaries = tuple(summarise(skill, decisions) for skill in skills)
    return TriggerTrial(listing.profile.name, runs, summaries, decisions, usage)
