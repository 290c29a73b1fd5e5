"""Copy a seeded sample of the skills under some trees into one folder: a real-shaped corpus to time.

The generated corpus (benchmarks/corpus.py) is heavier than what registries hold (corpus_stats.py
compares them), so figures on real skills are taken on a sample of public registries checked out
locally. Nothing of them is committed; this makes the sample reproducible from the same checkouts:
every folder holding a SKILL.md (or skill.md) under the given roots, sorted, ``random.Random(seed)
.sample``'d, each copied to ``OUT/skills/NNN/<its own folder name>`` (the name stays, so the
frontmatter ``name`` still matches its folder, as ``skills-ref`` checks; ``.git`` is left out).

Usage::

    .venv/bin/python benchmarks/sample_skills.py ROOT [ROOT ...] --out DIR [--skills 300] [--seed 20261201]
    .venv/bin/python benchmarks/scan_throughput.py --corpus DIR --repeat 5 --rules
"""

from __future__ import annotations

import argparse
import random
import shutil
from pathlib import Path

from aces_ci.skill import iter_skill_dirs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("roots", type=Path, nargs="+", help="trees holding skills (registry checkouts)")
    parser.add_argument("--out", type=Path, required=True, help="an empty or missing folder to copy the sample to")
    parser.add_argument("--skills", type=int, default=300)
    parser.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args(argv)
    if args.out.exists() and any(args.out.iterdir()):
        raise SystemExit(f"{args.out} is not empty: give a new folder")
    found = sorted({skill_dir.resolve() for root in args.roots for skill_dir in iter_skill_dirs(root)})
    if len(found) < args.skills:
        raise SystemExit(f"only {len(found)} skills under {', '.join(map(str, args.roots))}: ask for fewer")
    for index, skill_dir in enumerate(random.Random(args.seed).sample(found, args.skills)):
        target = args.out / "skills" / f"{index:03d}" / skill_dir.name
        shutil.copytree(skill_dir, target, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    print(f"{args.skills} of {len(found)} skills copied to {args.out} (seed {args.seed})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
