"""What ``aces-ci scan`` of a one-skill repository costs before any skill is read: mostly imports.

A push that touches one skill pays the command line's start every time, so its fixed cost is
measured against the interpreter's own start in the same run, alternating so both meet the same
load: ``python -c pass`` (the floor any Python tool pays), ``python -c "import aces_ci.cli"``
(the command line's imports), and a whole ``aces-ci scan`` of one skill without a cache (imports,
rules, the scan and the report). The median of ``--repeat`` runs of each is reported, and each as a
multiple of the floor; ``--importtime`` prints the slowest imports of one scan (``python -X importtime``).

Bytecode is cached (in a temporary ``PYTHONPYCACHEPREFIX``, filled by a first unmeasured run), as
for an installed package; ``--compile`` measures instead an environment that sets
``PYTHONDONTWRITEBYTECODE`` (a source checkout run that way compiles every module on every start).

Usage::

    .venv/bin/python benchmarks/cli_startup.py [--repeat 15] [--importtime] [--compare OTHER_TREE]

``--compare`` runs the aces-ci commands a second time with ``PYTHONPATH`` at another checkout's
root (say an earlier commit unpacked with ``git archive``), interleaved with this one's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SKILL = "---\nname: demo\ndescription: Formats demo files. Use when the user asks to format one.\n---\n# Demo\n"
SCAN = "import sys\nfrom aces_ci.cli import main\nsys.exit(main(sys.argv[1:]))"


def _timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300, env=env)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--importtime", action="store_true", help="print the 25 slowest imports of one scan")
    parser.add_argument("--compile", action="store_true", help="no bytecode cache: every start compiles the sources")
    parser.add_argument("--compare", type=Path, help="another checkout's root, measured beside this one")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="aces-startup-") as work:
        skill_dir = Path(work) / "skills" / "demo"
        skill_dir.mkdir(parents=True)
        (skill_dir / "SKILL.md").write_text(SKILL, encoding="utf-8")
        cache = os.path.join(work, "cache")
        aces = {
            "`import aces_ci.cli`": [sys.executable, "-c", "import aces_ci.cli"],
            "`aces-ci scan` of one skill, no cache": [sys.executable, "-c", SCAN, "scan", work, "--no-cache"],
            "`aces-ci scan` of one skill, warm cache": [sys.executable, "-c", SCAN, "scan", work, "--cache-dir", cache],
        }
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        trees = {"": here, **({f" [{args.compare}]": os.fspath(args.compare.resolve())} if args.compare else {})}
        commands = {"`python -c pass` (floor)": ([sys.executable, "-c", "pass"], here)}
        for suffix, tree in trees.items():
            commands.update({label + suffix: (command, tree) for label, command in aces.items()})
        env = dict(os.environ, PYTHONPATH=here)
        if args.compile:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        else:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = os.path.join(work, "pycache")
            for command, tree in commands.values():
                _timed(command, dict(env, PYTHONPATH=tree))  # fills the bytecode cache (and the scan cache)
        times: dict[str, list[float]] = {label: [] for label in commands}
        for _ in range(args.repeat):
            for label, (command, tree) in commands.items():
                times[label].append(_timed(command, dict(env, PYTHONPATH=tree)))
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        floor = statistics.median(times["`python -c pass` (floor)"])
        bytecode = "compiled on every start" if args.compile else "bytecode cached"
        print(f"median of {args.repeat} alternating runs, {bytecode}, load {load:.1f}\n")
        print("| command | median s | best s | × floor (median) |")
        print("|---|---:|---:|---:|")
        for label, seconds in times.items():
            median = statistics.median(seconds)
            print(f"| {label} | {median:.3f} | {min(seconds):.3f} | {median / floor:.1f}× |")
        if args.importtime:
            done = subprocess.run(
                [sys.executable, "-X", "importtime", "-c", SCAN, "scan", work, "--no-cache"],
                capture_output=True,
                text=True,
                check=False,
                timeout=300,
                env=env,
            )
            rows = []
            for line in done.stderr.splitlines():
                parts = line.removeprefix("import time:").split("|")
                if len(parts) == 3 and parts[0].strip().isdigit():
                    rows.append((int(parts[0]), int(parts[1]), parts[2].rstrip()))
            print("\nslowest imports (self µs, cumulative µs, module):")
            for own, cumulative, name in sorted(rows, reverse=True)[:25]:
                print(f"{own:>8} {cumulative:>9} {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
