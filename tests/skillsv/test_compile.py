"""The compiler: units, dependency rules R1–R9, normalisation and the repaired hierarchy."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from aces_ci.cli import main
from aces_ci.errors import InputError
from aces_ci.schemas import validator
from aces_ci.skillsv import CompiledSkill, HierarchyNode, compile_skill, compiled_json
from tests.skillsv.helpers import write_skill

EXAMPLES = sorted((Path(__file__).parents[2] / "examples" / "skill-repo" / "skills").iterdir())


def _leaves(node: HierarchyNode) -> list[str]:
    return [node] if isinstance(node, str) else [leaf for child in node for leaf in _leaves(child)]


def _edges(game: CompiledSkill) -> set[tuple[str, str, str]]:
    return {(e.source, e.target, e.rule) for e in game.edges if e.rule != "R6"}


def _unit(game: CompiledSkill, preview_start: str) -> str:
    matches = [u.id for u in game.players if u.preview.startswith(preview_start)]
    assert len(matches) == 1, (preview_start, [u.preview for u in game.players])
    return matches[0]


@pytest.mark.parametrize("skill_dir", EXAMPLES, ids=lambda p: p.name)
def test_every_example_skill_compiles_to_schema_valid_json(skill_dir: Path) -> None:
    game = compile_skill(skill_dir)
    document = compiled_json(game)
    errors = [e.message for e in validator("skillsv-compile").iter_errors(document)]
    assert errors == []
    leaves = _leaves(game.hierarchy)
    assert sorted(leaves) == sorted(game.player_ids), "every unit sits exactly once in the hierarchy"
    assert leaves[0] == "m"
    assert {e.source for e in game.edges if e.rule == "R6"} == set(game.player_ids) - {"m"}
    assert not [e for e in game.edges if e.source == "m"]


def test_list_items_keep_their_continuation_and_other_content_is_flagged(tmp_path: Path) -> None:
    body = (
        "\n# Guide\n\nIntro paragraph.\n\n## Steps\n\n"
        "- First step\n\n  with a continuation after a blank line\n\n  ```bash\n  echo hi\n  ```\n\n"
        "  | a | b |\n  |---|---|\n  | 1 | 2 |\n"
        "- Second step\n  - a sub-bullet\n\n---\n\n"
        "<!-- skillsv:protected -->\nAn optimizer's block.\n\n- even with a list\n<!-- /skillsv:protected -->\n"
    )
    game = compile_skill(write_skill(tmp_path, body))
    by_id = {u.id: u for u in game.players}
    first = by_id[_unit(game, "- First step")]
    assert (first.kind, first.lines, first.fallback) == ("body", (12, 22), False)
    assert by_id[_unit(game, "- Second step")].lines == (23, 24)
    intro = by_id[_unit(game, "Intro paragraph")]
    assert (intro.kind, intro.fallback) == ("protected", True)
    region = by_id[_unit(game, "<!-- skillsv:protected -->")]
    assert (region.kind, region.fallback, region.lines) == ("protected", False, (28, 32))
    headings = [s for s in compiled_json(game)["scaffold"] if s["kind"] == "heading"]
    assert [h["lines"][0] for h in headings] == [6, 10]
    assert game.hierarchy == ("m", (intro.id, (first.id, _unit(game, "- Second step"), region.id)))


def test_each_dependency_rule_emits_its_edge_with_evidence(tmp_path: Path) -> None:
    body = (
        "\n# Tool\n\n"
        "- Run `scripts/build.sh` to build.\n"  # R2 → build.sh
        "- Read [the guide](references/guide.md).\n"  # R1 → guide
        "- See [setup](#setup-and-install) first.\n"  # R1 → primary unit of the section
        "- Follow Setup and install before anything.\n"  # R3 heading-ref
        "- Write the report to `OUTPUT_PATH`.\n"  # R4 def-use (inline code) → template.py
        "- Start from the invoice-basic example.\n"  # R5 example-ref
        "\n## Setup and install\n\n"
        "1. Install the tool.\n"
        "- on macOS use brew\n"  # R8 list-cont → the ordered item
        "\nDo these three things:\n\n"  # lead-in
        "- alpha\n- beta\n"  # R9 → lead-in
        "\n| col | val |\n|---|---|\n| a | 1 |\n\n| b | 2 |\n"  # R7 table-cont
        "\n```python\ndef helper_total(rows):\n    return len(rows)\n```\n\n"
        "```python\nprint(helper_total([1, 2]))\n```\n"  # R4 def-use between code blocks
    )
    files = {
        "scripts/build.sh": "#!/bin/sh\necho build\n",
        "references/guide.md": "# Guide\n",
        "scripts/template.py": "OUTPUT_PATH = 'out.txt'\n",
        "assets/examples/invoice-basic.md": "An invoice.\n",
    }
    game = compile_skill(write_skill(tmp_path, body, files))
    resource = {game.player(p).file: p for p in game.player_ids if game.player(p).kind == "resource"}
    install = _unit(game, "1. Install the tool.")
    alpha, beta = _unit(game, "- alpha"), _unit(game, "- beta")
    edges = _edges(game)
    expected = {
        (_unit(game, "- Run `scripts/build.sh`"), resource["scripts/build.sh"], "R2"),
        (_unit(game, "- Read [the guide]"), resource["references/guide.md"], "R1"),
        (_unit(game, "- See [setup]"), install, "R1"),
        (_unit(game, "- Follow Setup and install"), install, "R3"),
        (_unit(game, "- Write the report"), resource["scripts/template.py"], "R4"),
        (_unit(game, "- Start from the invoice-basic"), resource["assets/examples/invoice-basic.md"], "R5"),
        (_unit(game, "- on macOS"), install, "R8"),
        (alpha, _unit(game, "Do these three things:"), "R9"),
        (beta, _unit(game, "Do these three things:"), "R9"),
        (_unit(game, "| b | 2 |"), _unit(game, "| col | val |"), "R7"),
        (_unit(game, "```python print(helper_total"), _unit(game, "```python def helper_total"), "R4"),
    }
    assert expected <= edges, expected - edges
    evidence = {(e.source, e.rule): e.evidence for e in game.edges}
    assert "OUTPUT_PATH" in evidence[(_unit(game, "- Write the report"), "R4")]
    assert "scripts/template.py:1" in evidence[(_unit(game, "- Write the report"), "R4")]
    assert "SKILL.md:" in evidence[(alpha, "R9")]


def test_a_dependency_cycle_is_contracted_and_recorded(tmp_path: Path) -> None:
    body = "\n- Use `scripts/a.sh` with its partner.\n- Plain item.\n"
    files = {"scripts/a.sh": "#!/bin/sh\n# see scripts/b.sh\n", "scripts/b.sh": "#!/bin/sh\n# see scripts/a.sh\n"}
    game = compile_skill(write_skill(tmp_path, body, files))
    assert len(game.contractions) == 1
    contraction = game.contractions[0]
    composite = game.player(contraction.id)
    assert sorted(m.file for m in composite.members) == ["scripts/a.sh", "scripts/b.sh"]
    assert {e.rule for e in contraction.edges} == {"R2"}
    assert (_unit(game, "- Use"), contraction.id, "R2") in _edges(game)
    assert contraction.id in _leaves(game.hierarchy)
    assert not {m.id for m in composite.members} & set(_leaves(game.hierarchy))
    assert compiled_json(game)["contractions"][0]["members"] == list(contraction.members)


def test_a_conflict_between_dependencies_and_hierarchy_is_repaired_with_its_witness(tmp_path: Path) -> None:
    # Section A's second unit needs section B's first, and B's second needs A's first: as whole
    # blocks, A and B would each have to come first. The pass opens both and records the cycle.
    body = (
        "\n## Alpha part\n\n- alpha one\n- alpha two uses [b one](#beta-part)\n"
        "\n## Beta part\n\n- beta one\n- beta two follows Alpha part\n"
    )
    game = compile_skill(write_skill(tmp_path, body))
    a1, a2 = _unit(game, "- alpha one"), _unit(game, "- alpha two")
    b1, b2 = _unit(game, "- beta one"), _unit(game, "- beta two")
    assert {(a2, b1, "R1"), (b2, a1, "R3")} <= _edges(game)
    assert len(game.repairs) == 1
    repair = game.repairs[0]
    assert set(repair.cycle) == {f"[{a1}…{a2}]", f"[{b1}…{b2}]"} == set(repair.expanded)
    assert game.hierarchy == ("m", (a1, a2, b1, b2))


def test_compile_verb_prints_units_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    skill = write_skill(tmp_path, "\nIntro.\n\n- Run `scripts/x.sh`.\n", {"scripts/x.sh": "echo x\n"})
    out_file = tmp_path / "out" / "game.json"
    assert main(["compile", str(skill), "--json", str(out_file)]) == 0
    text = capsys.readouterr().out
    assert "planted: 4 units" in text
    assert "R2 path: path 'scripts/x.sh' at SKILL.md:8" in text
    assert "* fallback" in text
    # the header and the list count the same dependencies (R6's edges to m are counted apart)
    header = re.search(r"· (\d+) dependencies \(\+(\d+) on m by R6\)", text)
    listed = re.search(r"not listed\): (\d+)", text)
    assert header is not None and listed is not None and header.group(1) == listed.group(1)
    document = json.loads(out_file.read_text())
    assert [u["id"] for u in document["units"]] == ["m", "u1", "u2", "r1"]
    assert document["units"][1]["lines"] == [6, 6]


def test_a_skill_without_frontmatter_is_refused_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    skill = tmp_path / "bare"
    skill.mkdir()
    (skill / "SKILL.md").write_text("# No frontmatter\n\n- item\n")
    with pytest.raises(InputError, match="trigger unit m is the frontmatter"):
        compile_skill(skill)
    assert main(["compile", str(skill)]) == 2
    assert "SKILL.md:1" in capsys.readouterr().err
    assert main(["compile", str(tmp_path / "missing")]) == 2


def test_compile_text_shows_hostile_headings_previews_and_names_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "\n# ::stop-commands::tok\n\n- a rule \x1b[31min red\x1b[0m\n- another\n"
    skill = write_skill(tmp_path, body, {"notes\n::error::x.md": "see\n"})
    assert main(["compile", str(skill)]) == 0
    text = capsys.readouterr().out
    assert "\x1b" not in text and "a rule \\x1b[31min red" in text
    assert "notes\\n::error::x.md" in text
    assert not [line for line in text.splitlines() if line.lstrip().startswith("::")]
