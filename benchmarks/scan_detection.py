"""Security detection of the static tier: recall on labelled malicious skills, findings on real skills, speed.

Two implementations are compared in one run, each in fresh child interpreters on the same inputs:
this one (``--after``, default ``HEAD``), and the one before (``--before REV``, extracted with ``git archive`` as
benchmarks/reference.py does; default ``0a3cc78``, main before issue 20's security rules).

* **Recall**: the labelled malicious skills of benchmarks/detection_cases.py (written to a
  temporary folder; built from public attack write-ups and our own cases, not from other scanners'
  test suites). A case is caught when the scan reports an active SEC finding of warning or error
  severity on it. Per class and overall.
* **Real skills** (``--benign DIR ...``: trees of real skills checked out locally, e.g. public
  collections; nothing of them is committed): how many skills carry an active SEC warning or error
  before and after, and every SEC finding that is new, listed for a reviewer's verdict. The
  repository's own examples/ are scanned the same way.
* **Speed**: a cold scan (no result cache, one process) of the real skills in CPU time of the
  child (``time.process_time``: on a shared machine wall time is mostly other people's load), best
  of ``--repeat`` inside each child, children alternating before/after ``--rounds`` times; ms per
  skill and the ratio after/before, measured under the same load.

Both revisions are extracted with ``git archive`` (``--after`` defaults to ``HEAD``), so edits made
while it runs do not leak into the figures.

Usage::

    .venv/bin/python benchmarks/scan_detection.py --benign DIR [DIR ...] [--before 0a3cc78] [--after HEAD]
        [--repeat 3] [--rounds 3] [--list-new]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

# the sibling modules: a script's own directory is on sys.path
from detection_cases import CASES, HEADER
from reference import extract

REPO = Path(__file__).resolve().parents[1]

_SCAN = """
import json, sys, time
from pathlib import Path
import aces_ci
assert Path(aces_ci.__file__).resolve().is_relative_to(Path(sys.argv[1]).resolve()), aces_ci.__file__
from aces_ci.scan import ScanConfig, scan_repo
from aces_ci.scan.rules import default_registry
registry = default_registry()
best = float("inf")
for _ in range(int(sys.argv[3])):
    start = time.process_time()
    result = scan_repo(Path(sys.argv[2]), ScanConfig(), registry)
    best = min(best, time.process_time() - start)
rows = [
    [s.skill, f.rule_id, f.severity.value, f.message, f.location.path, f.location.line, f.evidence]
    for s in result.skills for f in s.findings if f.active
]
print(json.dumps({"findings": rows, "best_s": best, "skills": len(result.skills)}))
"""

Row = tuple[str, str, str, str, str, int | None, str | None]
"""(skill, rule, severity, message, path, line, evidence) of one active finding."""


def _scan(tree: Path, root: Path, repeat: int) -> tuple[list[Row], float, int]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", _SCAN, str(tree), str(root), str(repeat)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=tree,
    )
    data = json.loads(done.stdout)
    rows = [(s, r, sev, m, p, line, e) for s, r, sev, m, p, line, e in data["findings"]]
    return rows, data["best_s"], data["skills"]


def _write_cases(root: Path) -> dict[str, str]:
    """Each case as ``root/skills/<name>/``; returns the skill folder (as scans name it) → class."""
    classes = {}
    for case in CASES:
        skill_dir = root / "skills" / case.name
        skill_dir.mkdir(parents=True)
        (skill_dir / "SKILL.md").write_text(HEADER.format(name=case.name) + case.body, encoding="utf-8")
        for rel, content in case.files.items():
            target = skill_dir / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content, encoding="utf-8")
        classes[f"skills/{case.name}"] = case.kind
    return classes


def _security(rows: list[Row]) -> list[Row]:
    return [row for row in rows if row[1].startswith("SEC") and row[2] in ("error", "warning")]


def _recall(rows: list[Row], classes: dict[str, str], *, notes: bool = False) -> dict[str, tuple[int, int]]:
    """Caught cases per class: an active SEC warning or error (with ``notes``, a SEC note counts too)."""
    caught = {row[0] for row in (rows if notes else _security(rows)) if row[1].startswith("SEC")}
    per_class: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for skill, kind in classes.items():
        per_class[kind][0] += skill in caught
        per_class[kind][1] += 1
        per_class["all"][0] += skill in caught
        per_class["all"][1] += 1
    return {kind: (hit, total) for kind, (hit, total) in per_class.items()}


def _copy_corpus(benign: list[Path], into: Path) -> Path:
    """One root holding a copy of every benign tree (``.git`` left out), so one scan covers them."""
    root = into / "real"
    for index, tree in enumerate(benign):
        shutil.copytree(
            tree, root / f"{index}-{tree.resolve().name}", symlinks=True, ignore=shutil.ignore_patterns(".git")
        )
    return root


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--benign", type=Path, nargs="+", required=True, help="trees of real skills")
    parser.add_argument("--before", default="0a3cc78", help="the revision to compare with")
    parser.add_argument("--after", default="HEAD", help="the revision measured (commit your work first)")
    parser.add_argument("--repeat", type=int, default=3, help="timed scans inside each child (best is kept)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating before/after children for speed")
    parser.add_argument("--list-new", action="store_true", help="print every new SEC finding on real skills")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="aces-detection-") as scratch:
        work = Path(scratch)
        trees = {"before": extract(args.before, work / "before"), "after": extract(args.after, work / "after")}
        classes = _write_cases(work / "malicious")
        real = _copy_corpus(args.benign, work)

        print(f"## Recall on {len(CASES)} labelled malicious skills (caught: an active SEC warning or error)\n")
        print("| class | before | after | after, notes counted too |\n|---|---:|---:|---:|")
        malicious = {label: _scan(tree, work / "malicious", 1)[0] for label, tree in trees.items()}
        recalls = {label: _recall(rows, classes) for label, rows in malicious.items()}
        with_notes = _recall(malicious["after"], classes, notes=True)
        for kind in sorted(recalls["after"], key=lambda k: (k == "all", k)):
            cells = [f"{recalls[label][kind][0]}/{recalls[label][kind][1]}" for label in trees]
            print(f"| {kind} | {' | '.join(cells)} | {with_notes[kind][0]}/{with_notes[kind][1]} |")
        missed = sorted(skill for skill in classes if skill not in {row[0] for row in _security(malicious["after"])})
        print(f"\nmissed after: {', '.join(missed) or 'none'}")

        examples = {label: _security(_scan(tree, REPO / "examples", 1)[0]) for label, tree in trees.items()}
        new_on_examples = sorted(set(examples["after"]) - set(examples["before"]))
        best: dict[str, float] = {label: float("inf") for label in trees}
        findings: dict[str, list[Row]] = {}
        skills = 0
        for _ in range(args.rounds):
            for label, tree in trees.items():
                rows, seconds, skills = _scan(tree, real, args.repeat)
                best[label] = min(best[label], seconds)
                findings[label] = rows
        sec = {label: _security(rows) for label, rows in findings.items()}
        flagged = {label: len({row[0] for row in rows}) for label, rows in sec.items()}
        print(f"\n## {skills} real skills and the {len(list((REPO / 'examples').rglob('SKILL.md')))} examples\n")
        print("| | before | after |\n|---|---:|---:|")
        print(f"| real skills with an active SEC warning or error | {flagged['before']} | {flagged['after']} |")
        counts = {label: Counter(row[1] for row in rows) for label, rows in sec.items()}
        for rule in sorted(set(counts["before"]) | set(counts["after"])):
            print(f"| {rule} warnings and errors on real skills | {counts['before'][rule]} | {counts['after'][rule]} |")
        notes = {
            label: Counter(r[1] for r in rows if r[1].startswith("SEC") and r[2] == "note")
            for label, rows in findings.items()
        }
        for rule in sorted(set(notes["before"]) | set(notes["after"])):
            print(f"| {rule} notes on real skills | {notes['before'][rule]} | {notes['after'][rule]} |")
        print(f"| SEC warnings and errors on examples/ | {len(examples['before'])} | {len(examples['after'])} |")
        for row in new_on_examples:
            print(f"  NEW ON EXAMPLES {row[1]} {row[4]}:{row[5]} {row[3]}")
        ms = {label: best[label] * 1000 / max(skills, 1) for label in trees}
        timed = f"cold scan, one process, ms per skill (best of {args.rounds}×{args.repeat})"
        print(f"| {timed} | {ms['before']:.2f} | {ms['after']:.2f} |")
        print(f"\nafter/before time ratio: **{ms['after'] / ms['before']:.3f}** (below 1: faster)")
        lost = {row for row in findings["before"] if row[1].startswith("SEC")} - set(findings["after"])
        print(f"SEC findings of before missing after: {len(lost)}")
        for row in sorted(lost, key=str):
            print(f"  LOST {row[1]} {row[4]}:{row[5]} {row[3]}")
        if args.list_new:
            old = {row[:6] for row in findings["before"]}
            new = [row for row in findings["after"] if row[1].startswith("SEC") and row[:6] not in old]
            print(f"\nnew SEC findings on real skills: {len(new)}")
            for row in sorted(new, key=lambda r: (r[1], r[4], r[5] or 0)):
                print(f"  {row[1]} {row[2]} {row[4]}:{row[5]} {row[3]} | {row[6] or ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
