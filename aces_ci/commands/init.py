"""``aces-ci init SKILL_DIR``: scaffold ``evals/evals.json`` from the skill, never over an existing dataset.

The cases come from the skill's description and sections, with at least one case the skill must
not handle; what the skill's text cannot tell (expected outputs, real user phrasings) is left
``null`` and marked ``_fill_in`` (see :mod:`aces_ci.evals`'s scaffold). The file is checked
against the dataset schema before it is written; ``aces-ci scan`` fails each case still marked
(EVAL011) and ``aces-ci trial`` refuses it, until the author has filled them in.

Exit codes: 0 written (or printed with ``--stdout``); 2 no SKILL.md, or a dataset already exists.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..atomic import write_new
from ..config import repository_root
from ..errors import EXIT_PASS, InfraError, InputError
from ..evals import DRAFT_KEY, canonicalise, find_datasets, parse_json, scaffold_dataset, schema_problems
from ..skill import LOWERCASE_SKILL_FILE, SKILL_FILE, load_skill

DATASET = Path("evals") / "evals.json"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "init",
        help="scaffold evals/evals.json for a skill from its SKILL.md",
        description="Write SKILL_DIR/evals/evals.json with cases drawn from the skill's description and sections, "
        "including one the skill should not handle. Expected outputs are left for you (marked _fill_in); an "
        "existing dataset is never overwritten.",
    )
    parser.add_argument("skill_dir", type=Path, metavar="SKILL_DIR", help="folder holding SKILL.md")
    parser.add_argument("--stdout", action="store_true", help="print the scaffold instead of writing it")
    parser.set_defaults(run=run)


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def render(skill_dir: Path, root: Path) -> tuple[str, dict[str, object]]:
    """The scaffold's JSON text for the skill in ``skill_dir``, checked as the loader will check it."""
    skill = load_skill(skill_dir, root)
    document = scaffold_dataset(skill)
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    parsed = parse_json(text)
    problems = [*parsed.problems, *schema_problems(parsed), *canonicalise(parsed, skill_dir).problems]
    if problems:  # our own output: a failure here is a bug, not the user's input
        raise InfraError(f"the scaffold for {skill.name} does not fit the dataset schema: {problems[0].message}")
    return text, document


def run(args: argparse.Namespace) -> int:
    skill_dir = args.skill_dir.resolve()
    if not (skill_dir / SKILL_FILE).is_file() and not (skill_dir / LOWERCASE_SKILL_FILE).is_file():
        raise InputError(f"no {SKILL_FILE} here: SKILL_DIR must be a skill's folder", path=str(args.skill_dir))
    root = repository_root(skill_dir) or skill_dir.parent
    existing = find_datasets(skill_dir)
    if existing and not args.stdout:
        others = f" (so do {', '.join(p.name for p in existing[1:])})" if len(existing) > 1 else ""
        raise InputError(
            f"already exists{others}: aces-ci init never overwrites a dataset; edit it, or move it away to scaffold "
            "again",
            path=_rel(existing[0], root),
        )
    text, document = render(skill_dir, root)
    if args.stdout:
        sys.stdout.write(text)
        return EXIT_PASS
    target = skill_dir / DATASET
    if not write_new(target, text.encode("utf-8")):
        raise InputError("a dataset appeared while scaffolding; nothing was written", path=_rel(target, root))
    cases = document["evals"]
    assert isinstance(cases, list)
    negative = sum(1 for case in cases if case.get("should_trigger") is False)
    print(
        f"wrote {_rel(target, root)}: {len(cases)} cases ({len(cases) - negative} should trigger the skill, "
        f"{negative} should not)\n"
        f"next: in each case write what its {DRAFT_KEY} names (expected_output, a real user's prompt), then delete "
        f"{DRAFT_KEY}; until then `aces-ci scan {args.skill_dir}` fails each draft case (EVAL011) and a trial "
        "refuses it"
    )
    return EXIT_PASS
