"""What the repository rules (DISC001-003) add to a scan, cold and warm, as ratios in the same run.

The DISC rules run on every scan over every skill, even when the result cache replays all
per-skill findings: they read each SKILL.md's frontmatter again, rebuild the hosts' listings and
compare every pair of descriptions. This benchmark scans a registry-shaped corpus
(:mod:`benchmarks.corpus`) with those rules on and off, interleaved, and prints the median time of
each and their ratio: cold (no cache) and warm (every skill replayed from the cache).

    python -m benchmarks.discovery_overhead --skills 500 --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from aces_ci.scan import DEFAULT_CACHE_DIR, ResultCache, ScanConfig, scan_repo
from aces_ci.scan.rules import default_registry
from benchmarks.corpus import generate_corpus

REPOSITORY_RULES = ("DISC001", "DISC002", "DISC003")


def _timed(root: Path, settings: ScanConfig, cache: ResultCache | None) -> float:
    start = time.perf_counter()
    scan_repo(root, settings, default_registry(), cache=cache)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    on = ScanConfig()
    off = ScanConfig(severity=dict.fromkeys(REPOSITORY_RULES, "off"))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate_corpus(root, count=args.skills)
        times: dict[str, list[float]] = {"cold on": [], "cold off": [], "warm on": [], "warm off": []}
        for settings in (on, off):  # fill each setting's cache entries once
            _timed(root, settings, ResultCache(root / DEFAULT_CACHE_DIR))
        for _ in range(args.repeats):
            for label, settings in (("on", on), ("off", off)):
                times[f"cold {label}"].append(_timed(root, settings, None))
                times[f"warm {label}"].append(_timed(root, settings, ResultCache(root / DEFAULT_CACHE_DIR)))
        median = {label: statistics.median(values) for label, values in times.items()}
        print(f"{args.skills} skills, median of {args.repeats} interleaved runs")
        for kind in ("cold", "warm"):
            ratio = median[f"{kind} on"] / median[f"{kind} off"]
            print(
                f"  {kind}: {median[f'{kind} on']:.2f} s with DISC001-003, {median[f'{kind} off']:.2f} s without "
                f"(x{ratio:.2f})"
            )


if __name__ == "__main__":
    main()
