"""Scan throughput: skills per second of ``aces-ci scan`` against the reference validator ``skills-ref``.

Both run in this process on the same generated corpus (benchmarks/corpus.py, fixed seed), and
each figure is the best of ``--repeat`` runs. ``skills-ref`` only checks frontmatter, so it gets
its list of skill directories for free while every figure of ours includes discovery, every
rule, suppressions, scoring and the gate: the comparison is deliberately tilted toward the
reference. The ratio, not the absolute figures, is the result: it is what stays comparable
across machines. The target is ours >= 3x skills-ref.

Three ways to run a full scan are measured, as CI meets them:

(a) cold, one process: no result cache yet (an empty cache directory is filled), ``--jobs 1``;
(b) cold, one worker process per CPU: the same, ``--jobs`` = CPUs;
(c) warm: the cache holds the previous scan, then 1% of the skills are edited and the repository
    is scanned again with ``--jobs`` = CPUs: the CI-on-every-push case.

A scan without any cache (``--no-cache``) and a warm scan in one process are shown as well, so the
cache's own cost on a cold scan and the workers' share of a warm one are visible.

``--rules`` adds where the time goes: loading the skills and each rule, timed in the runner's
order with inputs shared the way the runner shares them (an input several rules use is charged
to the first rule that needs it).

Before anything is timed, the findings are checked against the previous implementation
(``benchmarks/reference.py``: a pinned commit, run in a child interpreter on the same corpus): a
faster scan that reports something else fails the benchmark. Cold scans in fresh interpreters are
timed alternating with the in-process one: this implementation, the implementation before this
round's work (``--round-rev``) and the pinned one, each of whose findings must equal this
implementation's, and ``skills-ref`` runs before every timed scan
(its best run is the reference): on a shared machine the load drifts, and figures compared with
each other must be taken under the same load. ``--rss`` measures the peak resident
memory of a fresh process scanning a quarter of the corpus and the whole of it.

The corpus is ``--shape registry`` by default (shaped like public registries' skills: long
frontmatter, bodies of hundreds of lines, references and scripts) or ``--shape synthetic`` (the
earlier, smaller skills); see benchmarks/corpus.py.

Usage::

    .venv/bin/python benchmarks/scan_throughput.py [--skills 2000] [--seed 20260901] [--repeat 3]
        [--shape registry|synthetic | --corpus DIR] [--rules] [--rss | --rss-only]
        [--round-rev REV] [--reference-rev REV | --no-reference]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# the sibling modules: a script's own directory is on sys.path
from corpus import CorpusStats, generate_corpus, skill_files
from reference import REFERENCE_REV, REPO, extract, reference_scan
from skills_ref.validator import validate

from aces_ci.app import available_cpus
from aces_ci.scan import DEFAULT_CACHE_DIR, ResultCache, RuleRegistry, ScanConfig, ScanContext, ScanResult, scan_repo
from aces_ci.scan._inputs import ScanMemo, SkillInputs
from aces_ci.scan.rules import default_registry
from aces_ci.skill import iter_skill_dirs, load_skill

TARGET = 3.0
ROUND_REV = "1ab7f9c"
"""main before round two of the cold scan (SEC004's first-word search): round one's work is in it."""
EDITED_SHARE = 0.01


@dataclass(frozen=True)
class Measured:
    label: str
    seconds: float
    note: str = ""


def _best_of(repeat: int, prepare: Callable[[], object], work: Callable[[], object]) -> float:
    """Fastest of ``repeat`` wall-clock runs of ``work`` (``prepare`` runs untimed before each)."""
    best = float("inf")
    for _ in range(repeat):
        prepare()
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def _findings(result: ScanResult) -> list[tuple[str, str, str, str, int | None]]:
    return [
        (s.skill, f.rule_id, f.message, f.location.path, f.location.line) for s in result.skills for f in s.findings
    ]


class _Runs:
    """The scans being compared, over one corpus root."""

    def __init__(self, root: Path, registry: RuleRegistry, cpus: int) -> None:
        self.root = root
        self.registry = registry
        self.cpus = cpus
        self.config = ScanConfig()
        self.cache_dir = root / DEFAULT_CACHE_DIR
        self.skill_files = skill_files(root)
        self.edits = 0
        self.last_cache: ResultCache | None = None

    def scan(self, jobs: int, cached: bool) -> ScanResult:
        self.last_cache = ResultCache(self.cache_dir) if cached else None
        return scan_repo(self.root, self.config, self.registry, jobs=jobs, cache=self.last_cache)

    def empty_cache(self) -> None:
        shutil.rmtree(self.cache_dir, ignore_errors=True)

    def edit_one_percent(self) -> None:
        """Append a line to the SKILL.md of 1% of the skills, a different 1% each time."""
        count = max(1, round(len(self.skill_files) * EDITED_SHARE))
        step = len(self.skill_files) // count
        self.edits += 1
        for index in range(count):
            path = self.skill_files[(index * step + self.edits) % len(self.skill_files)]
            with path.open("a", encoding="utf-8") as handle:
                handle.write(f"\nRevised in push {self.edits}: check the output once more.\n")


def _measure(
    runs: _Runs, repeat: int, children: dict[str, Path], expected: list[tuple[str, str, str, str, int | None]]
) -> tuple[list[Measured], float]:
    """Every scan of the table, best of ``repeat``; ``skills-ref`` (and ``children``) timed between them.

    The machine is shared, and its load drifts over minutes: timing the reference only once, at
    the end, would compare figures taken under different loads. So ``skills-ref`` runs before every
    timed scan and its best over all those runs is the reference. ``children`` (label: source tree)
    each time one cold scan in a fresh child interpreter, alternating with the in-process cold scan:
    the previous implementation, and this one under the same conditions (a long-lived benchmark
    process carries a larger heap, which the garbage collector walks, than a fresh one). Every
    child scan's findings must equal ``expected`` (this implementation's), or nothing is reported.
    """
    cpus = runs.cpus
    skill_dirs = list(iter_skill_dirs(runs.root))
    reference_times: list[float] = []
    child_times: dict[str, list[float]] = {label: [] for label in children}

    def reference() -> None:
        start = time.perf_counter()
        for skill_dir in skill_dirs:
            validate(skill_dir)
        reference_times.append(time.perf_counter() - start)

    def cold_then_previous() -> None:
        reference()
        runs.empty_cache()
        for label, tree in children.items():
            found, seconds = reference_scan(tree, runs.root)
            if found != expected:
                raise SystemExit(f"{label} finds something else than this implementation: not measured")
            child_times[label].append(seconds)

    def then(prepare: Callable[[], object]) -> Callable[[], None]:
        return lambda: (reference(), prepare())[-1]

    measured = [
        Measured(
            "(a) cold, 1 process",
            _best_of(repeat, cold_then_previous, lambda: runs.scan(1, cached=True)),
            "empty result cache, filled",
        ),
        Measured(
            f"(b) cold, {cpus} processes",
            _best_of(repeat, then(runs.empty_cache), lambda: runs.scan(cpus, cached=True)),
            "empty result cache, filled",
        ),
    ]
    runs.empty_cache()
    runs.scan(cpus, cached=True)  # the previous push's scan
    warm = _best_of(repeat, then(runs.edit_one_percent), lambda: runs.scan(cpus, cached=True))
    stats = runs.last_cache.stats if runs.last_cache else None
    reused = f"{stats.hits} reused, {stats.stored} re-scanned" if stats else ""
    measured.append(Measured(f"(c) warm, {cpus} processes", warm, f"1% of skills edited: {reused}"))
    warm_serial = _best_of(repeat, then(runs.edit_one_percent), lambda: runs.scan(1, cached=True))
    measured.append(Measured("warm, 1 process", warm_serial, "1% of skills edited"))
    no_cache = _best_of(repeat, then(lambda: None), lambda: runs.scan(1, cached=False))
    measured.append(Measured("no cache, 1 process", no_cache, "--no-cache"))
    for label, times in child_times.items():
        measured.append(Measured(label, min(times), "fresh process, cold, no cache"))
    return measured, min(reference_times)


def _print_table(measured: list[Measured], reference: float, skills: int) -> None:
    reference_rate = skills / reference
    print(f"\n{'':28} {'skills/s':>9} {'ms/skill':>9} {'vs skills-ref':>14}  target >= {TARGET:g}x")
    print(f"{'skills-ref validate':28} {reference_rate:9.0f} {reference * 1000 / skills:9.2f} {'1.00x':>14}")
    for item in measured:
        rate = skills / item.seconds
        ratio = rate / reference_rate
        verdict = "met" if ratio >= TARGET else "NOT met"
        print(
            f"{item.label:28} {rate:9.0f} {item.seconds * 1000 / skills:9.2f} {ratio:13.2f}x  {verdict:8} {item.note}"
        )


def _breakdown(root: Path, registry: RuleRegistry) -> tuple[float, dict[str, float]]:
    """Seconds to load every skill, and seconds per rule, with one shared memo per skill as the runner has."""
    skill_dirs = list(iter_skill_dirs(root))
    start = time.perf_counter()
    skills = [load_skill(skill_dir, root) for skill_dir in skill_dirs]
    load = time.perf_counter() - start
    config = ScanConfig()
    per_rule: dict[str, float] = defaultdict(float)
    memo = ScanMemo()
    for skill in skills:
        context = ScanContext(skill, config, SkillInputs(skill, memo))
        for rule in registry:
            start = time.perf_counter()
            for _ in rule.check(context):
                pass
            per_rule[rule.id] += time.perf_counter() - start
    return load, per_rule


def _print_breakdown(root: Path, registry: RuleRegistry, skills: int) -> None:
    load, per_rule = _breakdown(root, registry)
    per_skill = 1000 / skills
    print(
        f"\nwhere the time goes, one process, no cache (ms per skill):\n  {load * per_skill:6.2f}  loading the skills"
    )
    families: dict[str, float] = defaultdict(float)
    for rule in registry:
        families[rule.family] += per_rule[rule.id]
    for family, seconds in sorted(families.items(), key=lambda pair: -pair[1]):
        print(f"  {seconds * per_skill:6.2f}  {family} rules")
    print("slowest rules (ms per skill):")
    for rule_id, seconds in sorted(per_rule.items(), key=lambda pair: -pair[1])[:10]:
        print(f"  {seconds * per_skill:6.2f}  {rule_id} {registry.get(rule_id).name}")


_PEAK_RSS = """
import resource, sys
from pathlib import Path
from aces_ci.scan import ScanConfig, scan_repo
scan_repo(Path(sys.argv[1]), ScanConfig())
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _peak_rss(root: Path) -> int:
    """Peak resident memory (KiB) of a fresh interpreter that scans ``root`` cold in one process."""
    done = subprocess.run([sys.executable, "-c", _PEAK_RSS, str(root)], capture_output=True, text=True, check=True)
    return int(done.stdout.strip())


def _print_rss(skills: int, seed: int, shape: str) -> None:
    print("\npeak resident memory of a fresh process, cold scan, one process:")
    for count in (max(1, skills // 4), skills):
        with tempfile.TemporaryDirectory(prefix="aces-bench-rss-") as tmp:
            generate_corpus(Path(tmp), count, seed, shape)
            print(f"  {count:6,} skills: {_peak_rss(Path(tmp)) / 1024:7.1f} MiB")


def _check_against_reference(tree: Path, root: Path, serial: ScanResult, rev: str) -> None:
    """Fail unless the previous implementation (extracted at ``tree``) finds exactly what this one does."""
    found, _ = reference_scan(tree, root)
    if found != _findings(serial):
        raise SystemExit(f"the scan finds something else than {rev} did on this corpus: not measured")
    print(f"findings identical to {rev}: {len(found)} findings")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skills", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20260901)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rules", action="store_true", help="also time loading and each rule over the corpus")
    parser.add_argument("--shape", choices=("registry", "synthetic"), default="registry")
    parser.add_argument("--corpus", type=Path, help="scan a copy of this tree of skills instead of a generated one")
    parser.add_argument("--rss", action="store_true", help="also measure peak memory at a quarter and all of --skills")
    parser.add_argument("--rss-only", action="store_true", help="measure only the peak memory")
    parser.add_argument("--reference-rev", default=REFERENCE_REV, help="the previous implementation to compare with")
    parser.add_argument("--round-rev", default=ROUND_REV, help="main before this round's work")
    parser.add_argument("--no-reference", action="store_true", help="skip the comparison (no git history here)")
    args = parser.parse_args(argv)
    if args.rss_only:
        _print_rss(args.skills, args.seed, args.shape)
        return 0

    with tempfile.TemporaryDirectory(prefix="aces-bench-") as tmp, tempfile.TemporaryDirectory() as old:
        root = Path(tmp)
        if args.corpus is not None:  # a copy: the benchmark writes its cache there and edits SKILL.md files
            shutil.copytree(args.corpus, root, dirs_exist_ok=True, symlinks=True)
            files = [path for path in root.rglob("*") if path.is_file()]
            stats = CorpusStats(len(list(iter_skill_dirs(root))), 0, len(files), sum(p.stat().st_size for p in files))
            args.shape = f"copy of {args.corpus}"
        else:
            stats = generate_corpus(root, args.skills, args.seed, args.shape)
        cpus = available_cpus()
        clean = f" ({stats.clean} clean)" if args.corpus is None else ""  # known only of a generated corpus
        print(
            f"corpus ({args.shape}): {stats.skills} skills{clean}, {stats.files} files, "
            f"{stats.bytes / 1e6:.1f} MB, seed {args.seed}; {cpus} CPUs, load average "
            f"{os.getloadavg()[0]:.1f}; best of {args.repeat}"
        )
        registry = default_registry()
        runs = _Runs(root, registry, cpus)
        serial = runs.scan(1, cached=False)  # warm-up: imports, regex compilation, disk cache
        if _findings(runs.scan(cpus, cached=False)) != _findings(serial):
            raise SystemExit("a scan in worker processes found something else than a scan in one process")
        children: dict[str, Path] = {"this implementation": REPO}
        if not args.no_reference:
            for rev in dict.fromkeys((args.round_rev, args.reference_rev)):
                tree = extract(rev, Path(old) / rev)
                _check_against_reference(tree, root, serial, rev)
                children[f"previous ({rev})"] = tree
        findings = sum(len(report.findings) for report in serial.skills)
        reference_errors = sum(1 for skill_dir in iter_skill_dirs(root) if validate(skill_dir))
        print(f"aces-ci: {len(registry)} rules, {findings} findings; skills-ref: {reference_errors} skills with errors")
        measured, reference = _measure(runs, args.repeat, children, _findings(serial))
        _print_table(measured, reference, stats.skills)
        print(f"load average at the end: {os.getloadavg()[0]:.1f}")
        if args.rules:
            _print_breakdown(root, registry, stats.skills)
    if args.rss:
        _print_rss(args.skills, args.seed, args.shape)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
