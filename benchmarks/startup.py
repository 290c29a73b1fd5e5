"""Start-up: ``aces-ci scan`` of the example repository, beside ``skills-ref`` on the same skills.

On a repository of a few skills the scan's own work is milliseconds, and the command's start-up
(the interpreter, then importing what the verb needs) is most of what a CI step waits for. Each
command runs in a fresh interpreter, best wall time of ``--repeat`` runs:

* ``aces-ci scan`` of examples/skill-repo (one process, no result cache, every rule);
* the same command of the pinned previous implementation (benchmarks/reference.py), which
  imported every verb's modules (the rollout engine, harnesses, httpx) before reading a skill;
* ``skills-ref`` checking the same skill directories, its import included;
* ``python -c pass``: the interpreter alone, the floor under all three.

Usage::

    .venv/bin/python benchmarks/startup.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reference import REFERENCE_REV, REPO, extract  # the sibling module: a script's own directory is on sys.path

EXAMPLE = REPO / "examples" / "skill-repo"
_SCAN = "import sys; from aces_ci.cli import main; main(['scan', sys.argv[1], '--no-cache', '--jobs', '1'])"
_SKILLS_REF = (
    "import sys; from pathlib import Path; from skills_ref.validator import validate; "
    "[validate(Path(d)) for d in sys.argv[1:]]"
)


def _best(argv: list[str], repeat: int, env: dict[str, str], cwd: Path = REPO) -> tuple[float, float]:
    """Best wall time and best CPU time (user + system) of ``repeat`` runs of the command.

    One untimed run first writes the bytecode caches. CPU time is what the command itself costs;
    on a shared machine it moves far less with the load than wall time does. ``cwd`` matters: an
    interpreter run with ``-c`` imports from its working directory first.
    """
    subprocess.run(argv, capture_output=True, check=False, env=env, cwd=cwd)
    wall = cpu = float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=False, env=env, cwd=cwd)
        wall = min(wall, time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = min(cpu, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args(argv)
    skills = sorted(str(path.parent) for path in EXAMPLE.glob("skills/*/SKILL.md"))
    with tempfile.TemporaryDirectory(prefix="aces-bench-start-") as tmp:
        tree = extract(REFERENCE_REV, Path(tmp))
        # Installed packages start from their bytecode caches: so do both implementations here.
        env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
        old_env = {**env, "PYTHONPATH": str(tree)}
        print(
            f"{len(skills)} skills in {EXAMPLE.relative_to(REPO)}; best of {args.repeat}; "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        timings = {
            "python -c pass": _best([sys.executable, "-c", "pass"], args.repeat, env),
            "skills-ref (import + check)": _best([sys.executable, "-c", _SKILLS_REF, *skills], args.repeat, env),
            "aces-ci scan": _best([sys.executable, "-c", _SCAN, str(EXAMPLE)], args.repeat, env),
            f"aces-ci scan at {REFERENCE_REV}": _best(
                [sys.executable, "-c", _SCAN, str(EXAMPLE)], args.repeat, old_env, tree
            ),
        }
    _, cpu_ref = timings["skills-ref (import + check)"]
    print(f"  {'':32} {'wall':>7}     {'CPU':>7}     CPU / skills-ref's CPU")
    for name, (wall, cpu) in timings.items():
        print(f"  {name:32} {wall * 1000:7.0f} ms  {cpu * 1000:7.0f} ms  {cpu / cpu_ref:5.2f}x")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
