"""``aces-ci compile``: show how SkillSV cuts a skill into units, what needs what, and the hierarchy.

No model runs: the compiler is deterministic. The text output is for the author (which units
exist, which edges tie them, which content could not be cut and is valued whole); ``--json``
writes the game G = (N, D, H) in the shape of ``schemas/skillsv-compile.schema.json``.

Exit codes: 0 compiled; 2 the skill cannot be read or staged (no SKILL.md, no frontmatter, a
symlink leaving the skill, …), or the JSON file cannot be written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import app
from ..atomic import write_output
from ..errors import EXIT_PASS
from ..report import json_bytes, render_compile_text
from ..skillsv import compiled_json


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "compile",
        help="cut a skill into valuation units, dependencies and hierarchy (SkillSV)",
        description="Compile the skill in SKILL_DIR into SkillSV's structured game: units (the trigger m, "
        "one per top-level list item, protected and fallback blocks, one per file), the dependency edges "
        "between them with the rule and evidence of each, and the repaired document hierarchy.",
    )
    parser.add_argument("skill_dir", type=Path, metavar="SKILL_DIR", help="folder holding SKILL.md")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the compiled game as JSON to FILE")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    game = app.compile(args.skill_dir)
    render_compile_text(game, sys.stdout)
    if args.json is not None:
        write_output(args.json, json_bytes(compiled_json(game)), "compile report")
    return EXIT_PASS
