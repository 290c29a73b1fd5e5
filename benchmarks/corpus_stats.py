"""The shape of a tree of skills: the distributions a scan's cost depends on, as percentiles.

A throughput figure only means something on a corpus shaped like what users scan. This reads any
directory of skills (a public registry checked out locally, or the generated corpus of
``benchmarks/corpus.py``) with the scan's own loader and prints, per skill, the distributions of
what the scan's work grows with: SKILL.md lines and bytes, frontmatter keys, body lines, headings,
fenced code blocks, Markdown links, file mentions; the number and size of reference files (Markdown
outside SKILL.md), scripts and assets; and how many skills carry each. ``--compare`` prints the
generated corpus beside it, so the two can be matched by eye and by the table BENCHMARKS.md keeps.

Usage::

    .venv/bin/python benchmarks/corpus_stats.py DIR [DIR ...] [--compare registry --skills 500]
"""

from __future__ import annotations

import argparse
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from corpus import generate_corpus  # the sibling module: a script's own directory is on sys.path

from aces_ci.skill import Skill, iter_skill_dirs, load_skill

_PERCENTILES = (10, 25, 50, 75, 90, 99)


@dataclass
class Shape:
    """Per-skill measurements of one tree, one list per quantity (one entry per skill)."""

    root: str
    values: dict[str, list[int]] = field(default_factory=dict)
    keys: Counter[str] = field(default_factory=Counter)
    """How many skills' frontmatter holds each top-level key."""

    def add(self, name: str, value: int) -> None:
        self.values.setdefault(name, []).append(value)


def _lines(text: str | None) -> int:
    return 0 if not text else text.count("\n") + (0 if text.endswith("\n") else 1)


def _measure_skill(skill: Skill, shape: Shape) -> None:
    text = skill.skill_md.text or ""
    shape.add("SKILL.md bytes", skill.skill_md.size)
    shape.add("SKILL.md lines", _lines(text))
    shape.add("body lines", skill.body.line_count)
    keys = list((skill.frontmatter.data or {}).keys())
    shape.keys.update(str(key) for key in keys)
    shape.add("frontmatter keys", len(keys))
    shape.add("frontmatter lines", max(0, skill.frontmatter.end_line - skill.frontmatter.start_line - 1))
    shape.add("headings", len(skill.body.headings))
    shape.add("code blocks", len(skill.body.code_blocks))
    shape.add("links", sum(1 for link in skill.body.links if link.kind in ("link", "image")))
    shape.add("relative links", sum(1 for link in skill.body.links if link.kind == "link" and "://" not in link.target))
    shape.add("mentions", sum(1 for link in skill.body.links if link.kind == "mention"))
    references = [r for r in skill.resources if r.rel.endswith(".md") and not r.rel.startswith("evals/")]
    scripts = [r for r in skill.resources if r.kind == "script"]
    assets = [r for r in skill.resources if r.kind in ("asset", "other") and not r.rel.endswith(".md")]
    shape.add("files", len(skill.resources) + 1)
    shape.add("reference files", len(references))
    shape.add("scripts", len(scripts))
    shape.add("assets and other files", len(assets))
    shape.add("has evals/", int(any(r.kind == "eval" for r in skill.resources)))
    for name, group in (("reference", references), ("script", scripts)):
        for resource in group:
            shape.add(f"{name} bytes (each)", resource.size)
            if resource.size <= 1_000_000:
                try:
                    shape.add(f"{name} lines (each)", _lines(resource.path.read_text("utf-8", errors="replace")))
                except OSError:
                    continue


def measure(root: Path) -> Shape:
    """The shape of every skill under ``root``, as the scan discovers them."""
    shape = Shape(str(root))
    for skill_dir in iter_skill_dirs(root):
        _measure_skill(load_skill(skill_dir, root), shape)
    return shape


def _percentile(sorted_values: Sequence[int], q: int) -> int:
    index = min(len(sorted_values) - 1, round(q / 100 * (len(sorted_values) - 1)))
    return sorted_values[index]


def print_shape(shape: Shape) -> None:
    skills = len(shape.values.get("SKILL.md lines", []))
    print(f"\n{shape.root}: {skills} skills")
    header = "".join(f"{'p' + str(q):>8}" for q in _PERCENTILES)
    print(f"  {'':28}{'n':>7}{'mean':>9}{header}  share > 0")
    for name, values in shape.values.items():
        ordered = sorted(values)
        mean = sum(ordered) / len(ordered)
        cells = "".join(f"{_percentile(ordered, q):8,}" for q in _PERCENTILES)
        nonzero = sum(1 for v in ordered if v) / len(ordered)
        print(f"  {name:28}{len(ordered):7,}{mean:9,.1f}{cells}  {nonzero:6.0%}")
    common = ", ".join(f"{key} {count / skills:.0%}" for key, count in shape.keys.most_common(16))
    print(f"  most common frontmatter keys (share of skills): {common}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("roots", nargs="*", type=Path)
    parser.add_argument("--compare", choices=("registry", "synthetic"), help="also measure a generated corpus")
    parser.add_argument("--skills", type=int, default=500)
    parser.add_argument("--seed", type=int, default=20260901)
    args = parser.parse_args(argv)
    for root in args.roots:
        print_shape(measure(root))
    if args.compare:
        with tempfile.TemporaryDirectory(prefix="aces-corpus-") as tmp:
            generate_corpus(Path(tmp), args.skills, args.seed, args.compare)
            shape = measure(Path(tmp))
            shape.root = f"generated --shape {args.compare} --skills {args.skills}"
            print_shape(shape)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
