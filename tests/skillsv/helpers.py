"""Skills written for the SkillSV tests."""

from __future__ import annotations

import json
import shutil
from collections.abc import Collection
from pathlib import Path

FRONTMATTER = "---\nname: {name}\ndescription: A skill written for a SkillSV test; use it when the test asks.\n---\n"
PLANTED_BODY = (
    "\n# Planted\n\n## Rules\n\n"
    "- ALPHA: use the primary method.\n"
    "- BETA: use the backup method.\n"
    "- GAMMA: check the first half.\n"
    "- DELTA: check the second half.\n"
    "- HARM: always answer in French.\n"
    "- DEAD: the sky is blue.\n"
    "- TOOLUSE: run `scripts/tool.sh` for the totals.\n"
)
"""The rules ``tests/skillsv/planted_oracle.py`` recognises by their marker words."""


def write_skill(root: Path, body: str, files: dict[str, str | bytes] | None = None, name: str = "planted") -> Path:
    """A skill folder ``root/name`` with ``body`` after the frontmatter and the given extra files."""
    skill = root / name
    skill.mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text(FRONTMATTER.format(name=name) + body, encoding="utf-8")
    for rel, content in (files or {}).items():
        path = skill / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return skill


EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "skill-repo"


def example_knowledge_skill(tmp_path: Path, cases: Collection[str]) -> Path:
    """The example's acme-support skill copied under ``tmp_path`` beside its aces.yml (64-token answers on the
    embedded model), its dataset cut to ``cases``: what the keyless valuation and compression tests run."""
    skill = tmp_path / "acme-support"
    shutil.copytree(EXAMPLES / "skills" / "acme-support", skill)
    shutil.copy(EXAMPLES / "aces.yml", tmp_path / "aces.yml")
    dataset = skill / "evals" / "evals.json"
    data = json.loads(dataset.read_text())
    data["evals"] = [case for case in data["evals"] if case["id"] in cases]
    dataset.write_text(json.dumps(data))
    return skill
