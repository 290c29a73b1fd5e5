"""Scan throughput: skills per second of ``aces-ci scan`` against the reference validator ``skills-ref``.

Both run in this process on the same generated corpus (benchmarks/corpus.py, fixed seed).
``skills-ref`` only checks frontmatter, so it gets its list of skill directories for free while
our figure includes discovery, every rule, suppressions, scoring and the gate: the comparison
is deliberately tilted toward the reference. The ratio, not the absolute figures, is the result:
it is what stays comparable across machines. The target is ours >= 3x skills-ref.

``--rules`` adds where the time goes: parsing the skills, each rule family, the slowest rules.

Usage::

    .venv/bin/python benchmarks/scan_throughput.py [--skills 2000] [--seed 20260901] [--repeat 3] [--rules]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from corpus import generate_corpus  # the sibling module: a script's own directory is on sys.path
from skills_ref.validator import validate

from aces_ci.config import AcesConfig
from aces_ci.scan import Rule, RuleRegistry, ScanConfig, ScanContext
from aces_ci.scan._runner import scan_repo
from aces_ci.scan.rules import default_registry
from aces_ci.skill import discover_skills, iter_skill_dirs


def _best_of(repeat: int, work: Callable[[], object]) -> float:
    """Fastest of ``repeat`` wall-clock runs: the least disturbed by other load on the machine."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def _breakdown(root: Path, registry: RuleRegistry) -> tuple[float, list[tuple[float, Rule]]]:
    """Seconds to load every skill (parse), and seconds each rule takes over all of them."""
    start = time.perf_counter()
    skills = discover_skills(root)
    load = time.perf_counter() - start
    config = ScanConfig()
    timings = []
    for rule in registry:
        start = time.perf_counter()
        for skill in skills:
            for _ in rule.check(ScanContext(skill, config)):
                pass
        timings.append((time.perf_counter() - start, rule))
    return load, sorted(timings, key=lambda pair: -pair[0])


def _print_breakdown(root: Path, registry: RuleRegistry, skills: int) -> None:
    load, timings = _breakdown(root, registry)
    per_skill = 1000 / skills
    print(f"\nwhere the time goes (ms per skill):\n  {load * per_skill:6.2f}  loading and parsing the skills")
    families: dict[str, float] = defaultdict(float)
    for seconds, rule in timings:
        families[rule.family] += seconds
    for family, seconds in sorted(families.items(), key=lambda pair: -pair[1]):
        print(f"  {seconds * per_skill:6.2f}  {family} rules")
    print("slowest rules (ms per skill):")
    for seconds, rule in timings[:10]:
        print(f"  {seconds * per_skill:6.2f}  {rule.id} {rule.name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skills", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20260901)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rules", action="store_true", help="also time each rule over the corpus")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="aces-bench-") as tmp:
        root = Path(tmp)
        stats = generate_corpus(root, args.skills, args.seed)
        print(
            f"corpus: {stats.skills} skills ({stats.clean} clean), {stats.files} files, "
            f"{stats.bytes / 1e6:.1f} MB, seed {args.seed}"
        )
        registry = default_registry()
        config = AcesConfig()
        skill_dirs = list(iter_skill_dirs(root))
        result = scan_repo(root, config, registry)  # warm-up: imports, regex compilation, disk cache
        findings = sum(len(report.findings) for report in result.skills)
        reference_errors = sum(1 for skill_dir in skill_dirs if validate(skill_dir))

        ours = _best_of(args.repeat, lambda: scan_repo(root, config, registry))
        reference = _best_of(args.repeat, lambda: [validate(skill_dir) for skill_dir in skill_dirs])
        ours_rate, reference_rate = stats.skills / ours, stats.skills / reference
        print(f"aces-ci scan: {ours_rate:8.0f} skills/s  ({len(registry)} rules, {findings} findings)")
        print(f"skills-ref:   {reference_rate:8.0f} skills/s  ({reference_errors} skills with errors)")
        print(f"ratio:        {ours_rate / reference_rate:8.2f}x  (target >= 3x)")
        if args.rules:
            _print_breakdown(root, registry, stats.skills)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
