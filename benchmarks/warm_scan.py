"""The warm path a push pays: a rescan of an unchanged corpus against ``skills-ref``'s cold pass over it.

CI scans on every push and most skills did not change. With the result cache, an unchanged skill
costs an ``lstat`` of each of its files and one read of its cache entry (the stat index,
:mod:`aces_ci.scan._fingerprint`). This measures, in one process and alternating so both meet
the same load:

* ``skills-ref`` (``skills_ref.validator.validate``) over every skill directory, handed the list
  for free: the reference, best of ``--repeat``;
* ``aces-ci``'s warm scan (``scan_repo`` with the cache a cold scan filled, ``--jobs``): discovery,
  the stat look at every skill, replaying findings, suppressions, scoring and the gate; best of
  ``--repeat``; its report must equal the cold scan's (and a scan without any cache);
* the same warm scan followed by the text report ``aces-ci scan`` prints (every active finding, so
  every replayed finding's row is built into a finding: :mod:`aces_ci.scan._finding_rows`);
* one SKILL.md edited: exactly that skill must be checked again;
* a copy of the tree (every inode and modification time new, and git's index copied with it, so
  it vouches for nothing): every file is hashed, nothing is rescanned;
* a fresh ``git clone`` of the committed copy with the cache restored, as a CI job gets it: git's
  index vouches for the unchanged files (:mod:`aces_ci.scan._git_index`), so they are not read.

The corpus is a tree of real skills, copied to a temporary folder and committed to a new git
repository there (nothing is written to the corpus; nothing of it is committed to aces-ci).
Figures are given as best and median of the alternating runs: the median is what a push meets.
``--profile`` prints where one warm scan spends its time.

Usage::

    .venv/bin/python benchmarks/warm_scan.py --corpus DIR [--repeat 5] [--jobs N] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import os
import pstats
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from skills_ref.validator import validate

from aces_ci.app import available_cpus
from aces_ci.report import render_text
from aces_ci.scan import ResultCache, ScanConfig, ScanResult, _fingerprint, scan_repo
from aces_ci.scan.rules import default_registry
from aces_ci.skill import iter_skill_dirs

TARGET = 10.0


def _timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def _comparable(result: ScanResult) -> ScanResult:
    return dataclasses.replace(result, generated_at="", root="")


_GIT_ENV = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env={**os.environ, **_GIT_ENV}, check=True, capture_output=True)


class _ReadCounter:
    """Counts the files the fingerprint walk reads and hashes in this process."""

    def __init__(self) -> None:
        self.reads = 0
        self._read = _fingerprint._TreeWalk._read
        counter = self

        def counted(walk: _fingerprint._TreeWalk, *args: object) -> object:
            counter.reads += 1
            return counter._read(walk, *args)  # type: ignore[arg-type]

        _fingerprint._TreeWalk._read = counted  # type: ignore[assignment,method-assign]

    def close(self) -> None:
        _fingerprint._TreeWalk._read = self._read  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, required=True, help="a tree of skills (copied, never written)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=available_cpus())
    parser.add_argument("--profile", action="store_true", help="print where one warm scan spends its time")
    args = parser.parse_args(argv)
    registry = default_registry()
    config = ScanConfig()
    with tempfile.TemporaryDirectory(prefix="aces-warm-") as work:
        root = Path(work) / "repo"
        shutil.copytree(args.corpus, root, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        _git(root, "init", "-q")
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "-m", "corpus")
        cache_dir = Path(work) / "cache"
        skill_dirs = list(iter_skill_dirs(root))

        def scan(cached: bool = True) -> ScanResult:
            cache = ResultCache(cache_dir) if cached else None
            return scan_repo(root, config, registry, jobs=args.jobs, cache=cache)

        def reference() -> None:
            for skill_dir in skill_dirs:
                validate(skill_dir)

        cold_seconds = _timed(scan)
        cold = _comparable(scan())  # replayed: the cache is full now
        assert cold == _comparable(scan(cached=False)), "a warm scan must report what a scan without cache reports"
        references, warms, printed = [], [], []
        for _ in range(args.repeat):
            references.append(_timed(reference))
            warms.append(_timed(scan))
            printed.append(_timed(lambda: render_text(scan(), registry, color=False)))
        assert _comparable(scan()) == cold
        reference_best, warm_best = min(references), min(warms)
        reference_median, warm_median = statistics.median(references), statistics.median(warms)

        edited = skill_dirs[len(skill_dirs) // 2] / "SKILL.md"
        edited.write_text(edited.read_text(encoding="utf-8", errors="surrogateescape") + "\nOne more line.\n")
        cache = ResultCache(cache_dir)
        edit_seconds = _timed(lambda: scan_repo(root, config, registry, jobs=args.jobs, cache=cache))
        rechecked = cache.stats.stored + cache.stats.not_stored + cache.stats.not_cacheable
        _git(root, "commit", "-q", "-am", "one edit")
        edited_result = _comparable(scan())

        clone = Path(work) / "clone"
        _git(Path(work), "clone", "-q", os.fspath(root), clone.name)  # what a CI job checks out
        cloned = ResultCache(cache_dir)  # and the cache it restores
        counter = _ReadCounter()
        try:
            clone_result = scan_repo(clone, config, registry, jobs=1, cache=cloned)  # every read in this process
            clone_reads = counter.reads
        finally:
            counter.close()
        assert _comparable(clone_result) == edited_result, "a clone must report what the scanned tree reports"
        shutil.rmtree(clone)
        _git(Path(work), "clone", "-q", os.fspath(root), clone.name)
        cloned_again = ResultCache(cache_dir)
        clone_seconds = _timed(lambda: scan_repo(clone, config, registry, jobs=args.jobs, cache=cloned_again))

        fresh = Path(work) / "fresh"
        shutil.copytree(root, fresh, symlinks=True)  # new inodes and times, git's index stale with them
        shutil.rmtree(root)
        fresh.rename(root)
        checkout = ResultCache(cache_dir)
        checkout_seconds = _timed(lambda: scan_repo(root, config, registry, jobs=args.jobs, cache=checkout))

        skills = len(skill_dirs)
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(
            f"{skills} skills under {args.corpus}, --jobs {args.jobs}, {args.repeat} alternating runs, "
            f"load {load:.1f}\n"
        )
        print("| run | seconds | ms per skill | skills-ref cold (best) / this |")
        print("|---|---:|---:|---:|")
        rows = [
            ("`skills-ref` validate, cold (reference, best)", reference_best),
            ("`skills-ref` validate, cold (median)", reference_median),
            ("aces-ci cold, empty cache", cold_seconds),
            ("**aces-ci warm, nothing changed (best)**", warm_best),
            ("aces-ci warm, nothing changed (median)", warm_median),
            ("aces-ci warm and its text report (median)", statistics.median(printed)),
            (f"aces-ci warm, one SKILL.md edited ({rechecked} skill re-checked)", edit_seconds),
            (
                f"aces-ci after a fresh `git clone`, cache restored ({cloned.stats.hits} replayed, "
                f"{clone_reads} files read of {len(skill_dirs)} skills)",
                clone_seconds,
            ),
            (f"aces-ci after a copy of the tree ({checkout.stats.hits} replayed, every file hashed)", checkout_seconds),
        ]
        for label, seconds in rows:
            print(f"| {label} | {seconds:.3f} | {seconds / skills * 1000:.3f} | {reference_best / seconds:.2f}× |")
        ratio, median_ratio = reference_best / warm_best, reference_median / warm_median
        verdict = "met" if median_ratio >= TARGET else "NOT met"
        print(
            f"\nwarm / skills-ref cold: best {ratio:.1f}×, median {median_ratio:.1f}× "
            f"(target ≥ {TARGET:.0f}× by median: {verdict})"
        )
        printed_ratio = reference_median / statistics.median(printed)
        print(f"warm and its text report / skills-ref cold, by median: {printed_ratio:.1f}×")
        clone_ratio = reference_median / clone_seconds
        print(f"fresh clone / skills-ref cold median: {clone_ratio:.1f}×")
        print(f"all runs of skills-ref: {', '.join(f'{s:.3f}' for s in references)}")
        print(f"all warm runs: {', '.join(f'{s:.3f}' for s in warms)}")
        print(f"all warm runs with the text report: {', '.join(f'{s:.3f}' for s in printed)}")
        if rechecked != 1:
            print(f"UNEXPECTED: one edit re-checked {rechecked} skills")
            return 1
        if args.profile:
            profiler = cProfile.Profile()
            profiler.runcall(scan)
            pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
