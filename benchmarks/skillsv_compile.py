"""How long ``aces-ci compile`` takes on a large skill: a 500-line SKILL.md with 60 units and resources.

The skill is generated: sections of list items (some with indented code, tables and sub-bullets),
lead-in paragraphs, links to sections and files, scripts whose symbols the items use. The figure is
the best of ``--repeat`` compiles in this process, beside the time of parsing the same skill
(``aces_ci.skill.load_skill``, which every compile does first) as the reference measured in the same run.

Usage::

    .venv/bin/python benchmarks/skillsv_compile.py [--units 60] [--repeat 20]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aces_ci.skill import load_skill
from aces_ci.skillsv import compile_skill


def write_large_skill(root: Path, units: int) -> Path:
    skill = root / "large"
    (skill / "scripts").mkdir(parents=True)
    lines = [
        "---",
        "name: large",
        "description: A generated skill of many units, for the compile benchmark.",
        "---",
        "",
    ]
    lines += ["# Large skill", "", "Use this skill for the benchmark. It has many sections:", ""]
    section = 0
    for index in range(units):
        if index % 6 == 0:
            section += 1
            lines += ["", f"## Section number {section}", "", f"Before the steps of section {section}:", ""]
        script = f"scripts/step_{index % 5}.py"
        lines.append(f"- Step {index}: run `{script}` and keep `RESULT_{index % 5}` for later.")
        lines += ["", f"  It continues with details for step {index}, on a second line", "  and a third one."]
        if index % 3 == 0:
            lines += ["", "  ```bash", f"  python3 {script} --step {index}", "  ```"]
        if index % 4 == 0:
            lines += ["", "  | field | meaning |", "  |---|---|", f"  | s{index} | value {index} |"]
        if index % 5 == 0:
            lines += [f"  - see [section {section}](#section-number-{section}) again", "  - and Section number 1"]
    lines += [""] * max(0, 500 - len(lines))
    (skill / "SKILL.md").write_text("\n".join(lines[:500]) + "\n", encoding="utf-8")
    for number in range(5):
        (skill / "scripts" / f"step_{number}.py").write_text(
            f"RESULT_{number} = 'out_{number}.json'\n\ndef step_{number}():\n    return RESULT_{number}\n",
            encoding="utf-8",
        )
    return skill


def best_of(repeat: int, action: object) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        action()  # type: ignore[operator]
        best = min(best, time.perf_counter() - started)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--units", type=int, default=46, help="list items (46 give ~60 units)")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        skill = write_large_skill(Path(tmp), args.units)
        game = compile_skill(skill)
        lines = (skill / "SKILL.md").read_text().count("\n")
        parse = best_of(args.repeat, lambda: load_skill(skill, skill))
        full = best_of(args.repeat, lambda: compile_skill(skill))
        print(
            f"{lines} lines, {len(game.players)} units, {len(game.edges)} edges, {len(game.repairs)} repairs: "
            f"compile {full * 1000:.1f} ms (best of {args.repeat}); parsing alone {parse * 1000:.1f} ms; "
            f"compile / parse = {full / parse:.1f}×"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
