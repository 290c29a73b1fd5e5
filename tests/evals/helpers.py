"""Write a skill's dataset (and fixtures) into a temporary directory and load it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from aces_ci.evals import EvalSet, load_evals


def write_skill(root: Path, files: Mapping[str, str | bytes], name: str = "demo") -> Path:
    """Create ``<root>/skills/<name>/`` with a SKILL.md and ``files`` (paths relative to the skill)."""
    skill_dir = root / "skills" / name
    skill_dir.mkdir(parents=True, exist_ok=True)
    (skill_dir / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Demo. Use when testing.\n---\n# Demo\n")
    for rel, content in files.items():
        target = skill_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return skill_dir


def load(
    root: Path,
    dataset: str | bytes | object,
    filename: str = "evals.json",
    files: Mapping[str, str | bytes] | None = None,
) -> EvalSet:
    """Write ``dataset`` as ``evals/<filename>`` (other values are dumped as indented JSON), plus ``files``."""
    if not isinstance(dataset, (str, bytes)):
        dataset = json.dumps(dataset, indent=2)
    skill_dir = write_skill(root, {f"evals/{filename}": dataset, **(files or {})})
    evalset = load_evals(skill_dir, root)
    assert evalset is not None
    return evalset


def codes(evalset: EvalSet) -> list[str]:
    return [problem.code for problem in evalset.problems]
