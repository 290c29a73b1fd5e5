"""The rollout cache key, pinned: a silent change would throw away every paid rollout in every cache.

If a change to what a key covers is intended (a new input that changes what the agent sees),
bump the key's ``"v"`` in :meth:`RolloutRequest.cache_key`, the cache and journal format versions,
and this golden value, in the same commit, and say so in the release notes.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from aces_ci import __version__
from aces_ci.agents import HarnessSpec, RolloutRequest, SkillSet
from aces_ci.agents.builtin import LOOP_PROTOCOL_VERSION, BuiltinHarness
from aces_ci.errors import InputError
from aces_ci.evals import EvalCase
from aces_ci.models import ModelSpec
from aces_ci.skill import RenderedSkill
from tests.engine.helpers import ScriptedClient

SKILL = RenderedSkill(
    "pdf",
    {
        "SKILL.md": b"---\nname: pdf\ndescription: Fill PDF forms.\n---\n\nUse scripts/fill.py.\n",
        "scripts/fill.py": b"print('filled')\n",
    },
)
REQUEST = RolloutRequest(
    case=EvalCase(id="fill-w9", prompt="Fill in form.pdf with the data in data.json."),
    skills=SkillSet(skills=(SKILL,), target="pdf"),
    condition="with",
    harness=HarnessSpec(name="builtin", disclosure="on-demand", max_turns=12, max_total_tokens=100_000),
    model=ModelSpec(provider="anthropic", model="claude-haiku-4-5", temperature=0.0, max_tokens=2048),
    seed=7,
    replicate=2,
    fixtures={"form.pdf": b"%PDF-1.4 fake", "data.json": b'{"name": "Ada"}'},
)
GOLDEN = "66b3e7d2e17b522c3919c0e49c007e67acd36c0bad1bdc12480d6fdb40f88b6d"


def test_a_fixed_request_has_a_fixed_key() -> None:
    assert REQUEST.cache_key("builtin-loop1") == GOLDEN


def test_the_builtin_harness_is_keyed_by_its_loop_protocol_not_the_release() -> None:
    identity = BuiltinHarness(lambda _s: ScriptedClient()).cache_identity()
    assert identity == f"builtin-loop{LOOP_PROTOCOL_VERSION}" == "builtin-loop1"
    assert __version__ not in identity
    assert REQUEST.cache_key(identity) == GOLDEN


@pytest.mark.parametrize(
    "change",
    [
        {"condition": "with-again"},  # an A/A control
        {"replicate": 3},
        {"seed": 8},
        {"skills": SkillSet(skills=(), target="pdf")},
        {"skills": SkillSet(skills=(SKILL,), target="other")},
        {"fixtures": {"form.pdf": b"%PDF-1.4 other"}},
        {"case": EvalCase(id="fill-w9", prompt="Fill in form.pdf.")},
        {"harness": HarnessSpec(name="builtin", disclosure="preload", max_turns=12, max_total_tokens=100_000)},
        {"model": ModelSpec(provider="anthropic", model="claude-haiku-4-5", temperature=0.5, max_tokens=2048)},
    ],
)
def test_everything_the_agent_sees_changes_the_key(change: dict[str, Any]) -> None:
    assert dataclasses.replace(REQUEST, **change).cache_key("builtin-loop1") != GOLDEN


def test_what_the_agent_does_not_see_leaves_the_key_alone() -> None:
    slower = HarnessSpec(name="builtin", disclosure="on-demand", max_turns=12, max_total_tokens=100_000, timeout_s=9)
    graded_differently = EvalCase(id="fill-w9", prompt=REQUEST.case.prompt, expected_output="done")
    assert dataclasses.replace(REQUEST, harness=slower, case=graded_differently).cache_key("builtin-loop1") == GOLDEN
    assert REQUEST.cache_key("builtin-loop2") != GOLDEN


def test_a_request_is_hashable_and_equal_requests_hash_alike() -> None:
    twin = dataclasses.replace(REQUEST, fixtures=dict(REQUEST.fixtures))
    assert twin == REQUEST and hash(twin) == hash(REQUEST)
    assert len({REQUEST, twin, dataclasses.replace(REQUEST, replicate=0)}) == 2
    with pytest.raises(TypeError):
        REQUEST.fixtures["form.pdf"] = b"edited"  # type: ignore[index]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"condition": ""}, "condition"),
        ({"condition": " with"}, "condition"),
        ({"condition": "with\n"}, "condition"),
        ({"replicate": -1}, "replicate"),
        ({"replicate": True}, "replicate"),
        ({"seed": 1.5}, "seed"),
    ],
)
def test_a_bad_condition_replicate_or_seed_is_refused(change: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message):
        dataclasses.replace(REQUEST, **change)
