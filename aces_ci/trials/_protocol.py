"""The protocol of a paired trial: which conditions run, how they are coupled, which contrasts are reported.

A :class:`TrialDesign` is what the user asked for (flags and aces.yml); :func:`plan_skill` turns
it, for one skill, into its :class:`~aces_ci.trials.Condition` set and the :class:`Contrast` list
the report states, and :func:`requests_for` into the engine's requests:

* the **primary contrast** — ``with`` against ``without`` (or against ``base``, the skill at the
  ``--against`` ref), in the chosen mode: *isolation* stages the skill with its supporting skills
  only; *group* adds the decoys to both conditions, and also runs the isolation pair so the gap
  between the two lifts, the **routing premium**, gets its own interval;
* optional contrasts: the **A/A control** (``with`` against ``aa``, identical staging: the noise
  floor), the **metadata-only** split (presence value θ_m = metadata-only − control and content
  lift Λ = with − metadata-only, which add up to the total lift), and the **routing stress test**
  (with/without at each number of visible decoys).

**Coupling.** The model's sampling seed comes from the request's seed and replicate. Under
``shared-seed`` every condition of a (case, replicate) gets the trial's seed, so run r of both
conditions shares its draws; under ``independent`` each condition gets a seed derived from the
trial's seed and its label, so runs share nothing but the case. Either way every seed is a pure
function of the trial's seed, so a rerun reproduces every request (and finds it in the cache).

**Order.** Requests come case by case, replicate by replicate, with every condition of a
(case, replicate) adjacent (the engine's :func:`~aces_ci.engine.paired_schedule` keeps them so),
so the conditions of a pair meet the same API load and a budget stop leaves whole pairs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..agents import HarnessSpec, RolloutRequest, SkillSet
from ..errors import InputError
from ..evals import EvalCase
from ..models import ModelSpec
from ..skill import RenderedSkill
from ..stats import BudgetCap, Coupling
from ._conditions import (
    AA,
    BASE,
    METADATA_ONLY,
    WITH,
    WITH_DECOYS,
    WITHOUT,
    Condition,
    metadata_only,
    settings_of,
    stress_labels,
)

Mode = Literal["isolation", "group"]
ContrastKind = Literal["primary", "isolation", "aa", "presence", "content", "stress"]
DEFAULT_RUNS = 3


@dataclass(frozen=True)
class TrialDesign:
    """The protocol the user chose, the same for every skill of one command."""

    runs: int = DEFAULT_RUNS
    """Runs per case and condition (the most a sequential trial may reach)."""
    seed: int = 0
    coupling: Coupling = "independent"
    mode: Mode = "isolation"
    against: str | None = None
    """The git ref whose version of the skill is the control; None: the control lacks the skill."""
    aa: bool = False
    metadata_only: bool = False
    stress: tuple[int, ...] = ()
    """Numbers of visible decoys for the routing stress test (empty: no stress test)."""
    sequential: bool = False
    budget_cap: BudgetCap | None = None
    """An ex-ante cap per rollout, the same in every condition, for efficiency claims (``--cap-tokens/--cap-usd``)."""

    def __post_init__(self) -> None:
        if self.runs < 1:
            raise InputError(f"runs must be at least 1, got {self.runs}", field="--runs")
        if any(n < 1 for n in self.stress) or list(self.stress) != sorted(set(self.stress)):
            raise InputError(
                f"--stress takes increasing numbers of visible decoys, each at least 1, got {list(self.stress)}",
                field="--stress",
            )

    @property
    def control_label(self) -> str:
        return BASE if self.against is not None else WITHOUT


@dataclass(frozen=True)
class Contrast:
    """One with-minus-control comparison the report states with its interval."""

    kind: ContrastKind
    treatment: str
    control: str
    visible_decoys: int = 0
    """Decoys both conditions stage (the stress test's N; the decoy count in group mode)."""


@dataclass(frozen=True)
class SkillPlan:
    """One skill's conditions (by label) and contrasts, the primary contrast first."""

    skill: RenderedSkill
    conditions: Mapping[str, Condition]
    contrasts: tuple[Contrast, ...]
    base: RenderedSkill | None = None
    """The ``--against`` version, when the control is one."""
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def primary(self) -> Contrast:
        return self.contrasts[0]

    def contrast(self, kind: ContrastKind) -> Contrast | None:
        return next((c for c in self.contrasts if c.kind == kind), None)


def _pair(
    conditions: dict[str, Condition],
    treatment: tuple[str, RenderedSkill],
    control: tuple[str, RenderedSkill | None],
    others: tuple[RenderedSkill, ...],
    base: bool,
) -> None:
    conditions[treatment[0]] = Condition(treatment[0], "current", treatment[1], others)
    label, version = control
    if version is None:
        conditions[label] = Condition(label, "absent", None, others)
    else:
        conditions[label] = Condition(label, "base" if base else "current", version, others)


def plan_skill(
    skill: RenderedSkill,
    design: TrialDesign,
    *,
    supporting: Sequence[RenderedSkill] = (),
    decoys: Sequence[RenderedSkill] = (),
    base: RenderedSkill | None = None,
) -> SkillPlan:
    """The conditions and contrasts of one skill's trial under ``design``.

    ``decoys`` are the candidates for group mode and the stress test (the skill itself and repeated
    names are dropped); ``base`` is the skill at the ``--against`` ref, required exactly when the
    design names one.
    """
    if (base is None) != (design.against is None):
        raise ValueError("a base version is given exactly when the design has an --against ref")
    support = settings_of(skill, supporting)
    pool = tuple(d for d in settings_of(skill, decoys) if d.name not in {s.name for s in support})
    control: tuple[str, RenderedSkill | None] = (design.control_label, base)
    conditions: dict[str, Condition] = {}
    contrasts: list[Contrast] = []
    notes: list[str] = []
    if design.mode == "group" and not pool:
        raise InputError("group mode needs decoys: pass --decoys or list trial.decoys in aces.yml", field="--decoys")
    primary_others = support + pool if design.mode == "group" else support
    if design.mode == "group":
        with_label = WITH_DECOYS
        control_label = f"{design.control_label}+decoys"
        _pair(conditions, (with_label, skill), (control_label, base), primary_others, base is not None)
        contrasts.append(Contrast("primary", with_label, control_label, len(pool)))
        _pair(conditions, (WITH, skill), control, support, base is not None)
        contrasts.append(Contrast("isolation", WITH, design.control_label))
    else:
        with_label, control_label = WITH, design.control_label
        _pair(conditions, (WITH, skill), control, support, base is not None)
        contrasts.append(Contrast("primary", WITH, design.control_label))
    visible = len(primary_others) - len(support)
    if design.aa:
        aa_label = AA if design.mode == "isolation" else f"{AA}+decoys"
        conditions[aa_label] = Condition(aa_label, "current", skill, primary_others)
        contrasts.append(Contrast("aa", with_label, aa_label, visible))
    if design.metadata_only:
        stub_label = METADATA_ONLY if design.mode == "isolation" else f"{METADATA_ONLY}+decoys"
        conditions[stub_label] = Condition(stub_label, "metadata-only", metadata_only(skill), primary_others)
        contrasts.append(Contrast("presence", stub_label, control_label, visible))
        contrasts.append(Contrast("content", with_label, stub_label, visible))
    for count in design.stress:
        if count > len(pool):
            raise InputError(
                f"the stress test asks for {count} visible decoys, but only {len(pool)} decoy skill(s) are available "
                f"for {skill.name}: add decoys with --decoys or trial.decoys, or lower --stress",
                field="--stress",
            )
        stress_with, stress_without = stress_labels(count)
        _pair(conditions, (stress_with, skill), (stress_without, None), support + pool[:count], False)
        contrasts.append(Contrast("stress", stress_with, stress_without, count))
    if base is not None and base.digest == skill.digest:
        notes.append(
            f"{skill.name} is unchanged since {design.against}: both conditions stage identical files, so this "
            "trial is an A/A control and its lift measures noise only"
        )
    return SkillPlan(skill, conditions, tuple(contrasts), base, tuple(notes))


def condition_seed(design: TrialDesign, label: str) -> int:
    """The request seed of a condition: the trial's seed, or under independent coupling one derived per label."""
    if design.coupling == "shared-seed":
        return design.seed
    digest = hashlib.sha256(f"aces-trial:{design.seed}:{label}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def requests_for(
    plan: SkillPlan,
    cases: Sequence[EvalCase],
    fixtures: Mapping[str, Mapping[str, bytes]],
    design: TrialDesign,
    *,
    harness: HarnessSpec,
    model: ModelSpec,
    replicates: Sequence[int],
    labels: Sequence[str] | None = None,
) -> list[RolloutRequest]:
    """The requests of ``replicates`` of every case, conditions of a (case, replicate) adjacent.

    ``labels`` limits the conditions (default: all of the plan's, in plan order).
    """
    chosen = list(plan.conditions) if labels is None else [label for label in plan.conditions if label in labels]
    sets = {label: SkillSet(skills=plan.conditions[label].staged(), target=plan.skill.name) for label in chosen}
    return [
        RolloutRequest(
            case=case,
            skills=sets[label],
            condition=label,
            harness=harness,
            model=model,
            seed=condition_seed(design, label),
            replicate=replicate,
            fixtures=fixtures.get(case.id, {}),
        )
        for case in cases
        for replicate in replicates
        for label in chosen
    ]
