"""The whole test suite while other processes keep every core busy, as other jobs do on a shared CI runner.

No test's verdict may depend on the machine's speed: this runs ``pytest`` exactly as ``scripts/test.sh``
does (one worker per core unless the PYTEST-ARGS name ``--numprocesses``/``-n``) while ``--busy``
processes (default: one per core) spin at full speed, and reports the verdict, the wall time and the
load average, with pytest's slowest tests. The spinners run at normal priority,
so the suite gets about half of each core when ``--busy`` equals the core count.

Usage::

    .venv/bin/python benchmarks/suite_under_load.py [--busy N] [--json FILE] [-- PYTEST-ARGS...]

Exits with pytest's exit code.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _spin() -> None:
    while True:
        pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--busy", type=int, default=os.cpu_count() or 2, help="spinning processes (default: cores)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (after --)")
    args = parser.parse_args()

    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.busy)]
    for spinner in spinners:
        spinner.start()
    load_before = os.getloadavg()
    started = time.monotonic()
    try:
        workers = [] if any(a.startswith(("-n", "--numprocesses")) for a in args.pytest_args) else ["-n", "auto"]
        command = [sys.executable, "-m", "pytest", "-q", "--durations=15", *workers, *args.pytest_args]
        code = subprocess.run(command, cwd=ROOT, check=False).returncode
    finally:
        for spinner in spinners:
            spinner.terminate()
            spinner.join()
    wall_s = time.monotonic() - started
    load_after = os.getloadavg()
    verdict = "green" if code == 0 else f"RED (pytest exit {code})"
    print(
        f"suite under load: {verdict} in {wall_s / 60:.1f} min with {args.busy} spinning processes on "
        f"{os.cpu_count()} cores; load average before {load_before[0]:.2f}, after {load_after[0]:.2f} "
        f"(5-min {load_after[1]:.2f})"
    )
    if args.json:
        figures = {"exit_code": code, "wall_s": round(wall_s, 1), "busy": args.busy, "cores": os.cpu_count(),
                   "load_before": load_before, "load_after": load_after, "pytest_args": args.pytest_args}  # fmt: skip
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
