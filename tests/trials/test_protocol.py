"""The trial's protocol and conditions: what each condition stages, seeds, order, and the guard that proves it."""

from __future__ import annotations

import pytest

from aces_ci.agents import HarnessSpec, RolloutRequest, SkillSet, plan_checked
from aces_ci.agents.builtin import BuiltinHarness
from aces_ci.errors import InputError
from aces_ci.evals import EvalCase
from aces_ci.models import ModelSpec
from aces_ci.skill import skill_card
from aces_ci.trials import (
    TrialDesign,
    condition_seed,
    metadata_only,
    plan_skill,
    requests_for,
    trial_guard,
)
from tests.engine.helpers import MARKER, ScriptedClient, rendered

HARNESS = HarnessSpec(name="builtin", disclosure="preload")
MODEL = ModelSpec(provider="openai", model="scripted-model")
CASES = [EvalCase(id=f"c{i}", prompt=f"question {i}", expected_output="42") for i in range(2)]


def _requests(plan, design, replicates=range(2)):  # type: ignore[no-untyped-def]
    return requests_for(plan, CASES, {}, design, harness=HARNESS, model=MODEL, replicates=replicates)


def test_isolation_stages_the_skill_only_in_with_and_identical_supporting_skills_everywhere() -> None:
    skill, helper = rendered("marker"), rendered("helper", body="# Helper\n\nA prerequisite.")
    plan = plan_skill(skill, TrialDesign(), supporting=[helper])
    assert [(c.kind, c.treatment, c.control) for c in plan.contrasts] == [("primary", "with", "without")]
    with_, without = plan.conditions["with"], plan.conditions["without"]
    assert [s.name for s in with_.staged()] == ["helper", "marker"]
    assert [s.name for s in without.staged()] == ["helper"]
    assert with_.others == without.others


def test_group_mode_adds_decoys_to_both_and_keeps_the_isolation_pair_for_the_premium() -> None:
    skill = rendered("marker")
    decoys = [rendered("decoy-a", body="# A\n\nOther work."), rendered("decoy-b", body="# B\n\nMore work."), skill]
    plan = plan_skill(skill, TrialDesign(mode="group"), decoys=decoys)
    kinds = [(c.kind, c.treatment, c.control, c.visible_decoys) for c in plan.contrasts]
    assert kinds == [("primary", "with+decoys", "without+decoys", 2), ("isolation", "with", "without", 0)]
    assert [s.name for s in plan.conditions["without+decoys"].staged()] == ["decoy-a", "decoy-b"]
    with pytest.raises(InputError, match="group mode needs decoys"):
        plan_skill(skill, TrialDesign(mode="group"))


def test_stress_levels_need_enough_decoys() -> None:
    skill = rendered("marker")
    decoys = [rendered(f"decoy-{i}", body=f"# D{i}\n\nChores number {i}.") for i in range(3)]
    plan = plan_skill(skill, TrialDesign(stress=(1, 3)), decoys=decoys)
    assert [(c.treatment, c.visible_decoys) for c in plan.contrasts if c.kind == "stress"] == [
        ("with+1", 1),
        ("with+3", 3),
    ]
    with pytest.raises(InputError, match="only 3 decoy"):
        plan_skill(skill, TrialDesign(stress=(5,)), decoys=decoys)
    with pytest.raises(InputError, match="increasing"):
        TrialDesign(stress=(5, 1))


def test_metadata_only_keeps_name_and_description_and_drops_the_body_and_resources() -> None:
    skill = rendered("marker", files={"scripts/run.sh": "#!/bin/sh\necho hi\n"})
    stub = metadata_only(skill)
    assert set(stub.files) == {"SKILL.md"}
    card, original = skill_card(stub), skill_card(skill)
    assert (card.name, card.description) == (original.name, original.description)
    assert MARKER not in stub.files["SKILL.md"].decode() and card.body.strip() == ""


def test_seeds_are_shared_under_shared_seed_and_distinct_but_reproducible_under_independent() -> None:
    shared, independent = TrialDesign(seed=5, coupling="shared-seed"), TrialDesign(seed=5)
    assert condition_seed(shared, "with") == condition_seed(shared, "without") == 5
    assert condition_seed(independent, "with") != condition_seed(independent, "without")
    assert condition_seed(independent, "with") == condition_seed(TrialDesign(seed=5), "with")
    assert condition_seed(independent, "with") != condition_seed(TrialDesign(seed=6), "with")


def test_requests_put_the_conditions_of_a_case_and_replicate_side_by_side() -> None:
    plan = plan_skill(rendered("marker"), TrialDesign(aa=True))
    requests = _requests(plan, TrialDesign(aa=True))
    keys = [(r.case.id, r.replicate, r.condition) for r in requests]
    assert keys[:3] == [("c0", 0, "with"), ("c0", 0, "without"), ("c0", 0, "aa")]
    assert len(requests) == 2 * 2 * 3
    aa = [r for r in requests if r.condition in ("with", "aa")]
    assert len({r.cache_key("h") for r in aa}) == len(aa), "an A/A pair must be two rollouts, never one cached answer"


def _plan_of(request: RolloutRequest):  # type: ignore[no-untyped-def]
    return plan_checked(request, BuiltinHarness(lambda _spec: ScriptedClient()))


def test_the_guard_accepts_the_declared_staging_and_refuses_any_leak_or_edit() -> None:
    skill, base = rendered("marker"), rendered("marker", body="# Old\n\nAn older version of the skill's rules.")
    design = TrialDesign(against="HEAD~1", aa=True, metadata_only=True)
    plan = plan_skill(skill, design, base=base)
    guard = trial_guard({"marker": plan.conditions}, {"marker": skill})
    harness = BuiltinHarness(lambda _spec: ScriptedClient())
    for request in _requests(plan, design, [0]):
        guard(request, plan_checked(request, harness))

    def staged(condition: str, *skills) -> RolloutRequest:  # type: ignore[no-untyped-def]
        return RolloutRequest(CASES[0], SkillSet(skills=skills, target="marker"), condition, HARNESS, MODEL)

    copy = rendered("marker-copy")  # same body as the skill under test
    edited = rendered("marker", body="# Answering\n\nAn edited copy is not an A/A control.")
    cases = [
        (staged("base", copy, base), "must not carry the body"),
        (staged("aa", edited), "unchanged"),
        (staged("metadata-only", metadata_only(skill), copy), "must not carry the body"),
        (staged("with", base), "unchanged"),
        (staged("ghost", skill), "no trial condition"),
    ]
    for request, message in cases:
        with pytest.raises(InputError, match=message):
            guard(request, plan_checked(request, harness))
    no_control = plan_skill(skill, TrialDesign())
    guard = trial_guard({"marker": no_control.conditions}, {"marker": skill})
    leaked = staged("without", copy)
    with pytest.raises(InputError, match="baseline"):
        guard(leaked, _plan_of(leaked))


def test_an_unchanged_skill_against_a_ref_is_labelled_an_aa_control() -> None:
    skill = rendered("marker")
    plan = plan_skill(skill, TrialDesign(against="v1"), base=skill)
    assert any("A/A control" in note for note in plan.notes)
