"""ρ_del and ρ_pad: local, exact at N, length-neutral, refusing infeasible coalitions."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aces_ci.skillsv import (
    CompiledSkill,
    GameStructure,
    InfeasibleCoalition,
    OrderSampler,
    compile_skill,
    render,
    tree_tokens,
)
from tests.skillsv.test_compile import EXAMPLES


def _prefixes(game: CompiledSkill, seed: int, count: int = 6) -> list[frozenset[str]]:
    """Feasible coalitions: prefixes of sampled feasible orders."""
    structure = GameStructure.of(game)
    sampler = OrderSampler(structure, "layer")
    rng = np.random.default_rng(seed)
    found: list[frozenset[str]] = []
    for _ in range(count):
        order = sampler.sample(rng)
        cut = int(rng.integers(1, len(order) + 1))
        found.append(frozenset(structure.players[i] for i in order[:cut]))
    return found


def _check_invariants(game: CompiledSkill, seed: int) -> None:
    full = frozenset(game.player_ids)
    assert render(game, full, "del") == dict(game.source)
    assert render(game, full, "pad") == dict(game.source)
    assert render(game, frozenset(), "del") == {}
    original_tokens = tree_tokens(game.source)
    skill_lines = game.source[game.skill_file].splitlines(keepends=True)
    for coalition in _prefixes(game, seed):
        padded = render(game, coalition, "pad")
        assert tree_tokens(padded) == original_tokens
        deleted = render(game, coalition, "del")
        for player in coalition:
            unit = game.player(player)
            for span in unit.spans:
                if span.file == game.skill_file:
                    kept = b"".join(skill_lines[span.start - 1 : span.end])
                    assert kept in deleted[game.skill_file] and kept in padded[game.skill_file]
                else:
                    assert deleted[span.file] == padded[span.file] == game.source[span.file]
        for path in game.resource_files:
            if game.resource_files[path] not in coalition:
                assert path not in deleted


@pytest.mark.parametrize("skill_dir", EXAMPLES, ids=lambda p: p.name)
def test_renderers_on_every_example_skill(skill_dir: Path) -> None:
    _check_invariants(compile_skill(skill_dir), seed=7)


def test_infeasible_coalitions_are_refused(tmp_path: Path) -> None:
    skill = tmp_path / "s"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\n\n- Run `scripts/x.sh`.\n- Other.\n")
    (skill / "scripts" / "x.sh").write_text("echo\n")
    game = compile_skill(skill)
    with pytest.raises(InfeasibleCoalition, match="u1 requires r1"):
        render(game, {"m", "u1"}, "del")
    with pytest.raises(InfeasibleCoalition, match="requires m"):
        render(game, {"u2"}, "pad")
    with pytest.raises(InfeasibleCoalition, match="not units"):
        render(game, {"m", "u9"}, "del")
    with pytest.raises(InfeasibleCoalition, match="bare agent"):
        render(game, set(), "pad")
    padded = render(game, {"m", "u2"}, "pad")
    assert padded["scripts/x.sh"] == b".\n"  # the script's one word, as a neutral token
    assert b"- Other.\n" in padded["SKILL.md"] and b"Run" not in padded["SKILL.md"]


_WORDS = st.text(alphabet="abcdefghij XYZ_`.:/-#", min_size=1, max_size=30).map(str.strip).filter(bool)


@st.composite
def _blocks(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["heading", "item", "ordered", "para", "code", "table", "hr", "nested", "blank"]))
    words = draw(_WORDS)
    if kind == "heading":
        return "#" * draw(st.integers(1, 4)) + " " + words + "\n"
    if kind == "item":
        tail = draw(st.sampled_from(["", "\n  continued text\n", "  ```sh\n  run scripts/a.sh\n  ```\n"]))
        return f"- {words}\n" + tail
    if kind == "ordered":
        return f"{draw(st.integers(1, 9))}. {words}\n"
    if kind == "para":
        return f"{words}\n{draw(_WORDS)}:\n"
    if kind == "code":
        return "```python\nx = 1\n```\n"
    if kind == "table":
        return "| a | b |\n|---|---|\n| 1 | 2 |\n"
    if kind == "hr":
        return "---\n"
    if kind == "nested":
        return f"- {words}\n  - sub {words}\n"
    return "\n"


@given(
    body=st.lists(_blocks(), min_size=0, max_size=14).map("".join),
    crlf=st.booleans(),
    final_newline=st.booleans(),
    with_script=st.booleans(),
    seed=st.integers(0, 2**16),
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_renderer_invariants_hold_on_fuzzed_skills(
    body: str, crlf: bool, final_newline: bool, with_script: bool, seed: int
) -> None:
    text = "---\nname: fuzz\ndescription: a fuzzed skill\n---\n" + body
    if not final_newline:
        text = text.rstrip("\n")
    if crlf:
        text = text.replace("\n", "\r\n")
    with tempfile.TemporaryDirectory() as tmp:
        skill = Path(tmp) / "fuzz"
        skill.mkdir()
        (skill / "SKILL.md").write_bytes(text.encode("utf-8"))
        if with_script:
            (skill / "scripts").mkdir()
            (skill / "scripts" / "a.sh").write_bytes(b"#!/bin/sh\r\necho a\n")
            (skill / "assets").mkdir()
            (skill / "assets" / "logo.png").write_bytes(b"\x89PNG\x00\x01")
        game = compile_skill(skill)
        _check_invariants(game, seed)
