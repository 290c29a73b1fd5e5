"""The estimand statement: the review's six axes in sentences a skill author understands.

"Skill Lift +0.21" means something only with what was compared, over which tasks, how the
conditions were coupled and how often run, under which budget, summarised how, and under which
assumptions it is a causal quantity (review §3.3, Table 4). The trial verb gathers those facts
from its protocol and passes them here; this module only turns them into text, so the wording
lives in one place and is tested.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ._data import Coupling

Contrast = Literal["with-without", "against-ref", "aa", "metadata-only"]


@dataclass(frozen=True)
class ProtocolFacts:
    """What the trial did, as data.

    ``contrast``: ``with-without`` (skill present vs absent), ``against-ref`` (this version vs the
    version at ``control_ref``), ``aa`` (the same condition twice: a noise floor), ``metadata-only``
    (the full skill vs only its name and description listed). ``mode``: ``isolation`` (only the
    target skill staged) or ``group`` (with ``decoys`` other skills in both conditions).
    """

    skill: str
    contrast: Contrast
    metric: str
    eval_source: str
    n_cases: int
    runs_per_arm: int
    coupling: Coupling
    mode: Literal["isolation", "group"] = "isolation"
    decoys: int = 0
    control_ref: str | None = None
    harness: str | None = None
    model: str | None = None
    budget_cap_dollars: float | None = None
    budget_cap_tokens: int | None = None
    alpha: float = 0.05
    trigger_event: str | None = None


@dataclass(frozen=True)
class EstimandStatement:
    """One sentence per axis; ``sentences`` in the order a report prints them."""

    contrast: str
    population: str
    unit: str
    budget: str
    summary: str
    identification: str

    @property
    def sentences(self) -> tuple[str, ...]:
        return (self.contrast, self.population, self.unit, self.budget, self.summary, self.identification)


def estimand_statement(facts: ProtocolFacts) -> EstimandStatement:
    """The six-axis statement of one skill's trial on one metric."""
    return EstimandStatement(
        contrast=_contrast(facts),
        population=(
            f"Population: tasks like the {facts.n_cases} case(s) in {facts.eval_source}. The lift is the average over "
            "tasks of that kind, each case counting once; it says nothing about tasks unlike them."
        ),
        unit=_unit(facts),
        budget=_budget(facts),
        summary=(
            f"Summary: the difference in mean {facts.metric} score{_METRIC_MEANING.get(facts.metric, '')} (with minus "
            f"control, on a 0–1 scale), with a {100 * (1 - facts.alpha):g}% interval that treats each case, not each "
            "run, as one observation; as a statement about only these very cases the interval is conservative."
        ),
        identification=_identification(facts),
    )


_METRIC_MEANING = {
    "outcome": (
        " (accuracy and goal accuracy: did the agent get the task right; the composite is reported beside it and "
        "skill efficiency as a cost line of tokens, turns and dollars per arm, never inside this number)"
    ),
    "composite": (
        " (ACES' composite: the mean of the six metrics that apply, skill efficiency included, so a skill that costs "
        "tokens pays for them here)"
    ),
}
"""What a derived metric averages, said where the summary names it."""


def _contrast(f: ProtocolFacts) -> str:
    where = f" on {f.harness}" if f.harness else ""
    model = f" with {f.model}" if f.model else ""
    setup = (
        "only the target skill is installed"
        if f.mode == "isolation"
        else f"{f.decoys} other skill(s) are installed in both conditions, so the agent must also pick the right one"
    )
    if f.contrast == "with-without":
        what = f"the agent{where}{model} with {f.skill} installed against the same agent without it"
    elif f.contrast == "against-ref":
        ref = f.control_ref or "the reference version"
        what = f"{f.skill} as it is now against {f.skill} as it was at {ref}, same agent{where}{model}"
    elif f.contrast == "aa":
        what = f"the same condition run twice{where}{model} (an A/A control: any 'lift' is noise)"
    else:
        what = (
            f"the agent{where}{model} with {f.skill} fully available against the agent that sees only its name "
            "and description (the body cannot be loaded)"
        )
    return f"Compared: {what}; {setup}. Everything else — tasks, seeds, scorer — is the same in both."


def _unit(f: ProtocolFacts) -> str:
    coupling = (
        "run r of both conditions shares a random seed (the runs may be correlated)"
        if f.coupling == "shared-seed"
        else "every run draws its own randomness"
    )
    return (
        f"Unit: the eval case. Each case ran {f.runs_per_arm} time(s) per condition; {coupling}. Runs of one case are "
        "averaged before cases are compared, because they share the case's difficulty."
    )


def _budget(f: ProtocolFacts) -> str:
    caps = []
    if f.budget_cap_dollars is not None:
        caps.append(f"${f.budget_cap_dollars:g}")
    if f.budget_cap_tokens is not None:
        caps.append(f"{f.budget_cap_tokens:,} tokens")
    if not caps:
        return (
            "Budget: none. The lift includes whatever extra tokens and calls the skill causes; it is the total effect "
            "of installing it, not a claim about efficiency."
        )
    return (
        f"Budget: each rollout in both conditions was capped ex ante at {' and '.join(caps)}; a rollout over the cap "
        "scores 0, so the lift compares the conditions at equal budget."
    )


def _identification(f: ProtocolFacts) -> str:
    base = (
        "Assumptions: the lift is causal for this setup because both conditions ran on the same cases with only the "
        "skill changed; it holds for this harness, model and workspace, not for every agent. Unscorable runs are "
        "assumed to have failed for reasons unrelated to the skill."
    )
    if f.trigger_event:
        base += (
            f" Splits by whether {f.trigger_event} describe this protocol only: runs that used the skill may differ "
            "in difficulty from runs that did not."
        )
    return base
