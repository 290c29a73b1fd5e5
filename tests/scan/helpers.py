"""Build a skill on disk from text and run one rule on it: the one-line harness of every rule test."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from aces_ci.scan import Hit, Rule, ScanConfig, ScanContext
from aces_ci.skill import Skill, load_skill


def make_skill(
    root: Path,
    skill_md: str | bytes,
    files: Mapping[str, str | bytes] | None = None,
    name: str = "demo",
    parent: str = "skills",
) -> Skill:
    """Write ``<root>/<parent>/<name>/SKILL.md`` plus ``files`` (paths relative to the skill) and load it."""
    skill_dir = root / parent / name if parent else root / name
    skill_dir.mkdir(parents=True, exist_ok=True)
    data = skill_md.encode("utf-8") if isinstance(skill_md, str) else skill_md
    (skill_dir / "SKILL.md").write_bytes(data)
    for rel, content in (files or {}).items():
        target = skill_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return load_skill(skill_dir, root)


def run_rule(rules: Iterable[Rule], rule_id: str, skill: Skill, config: ScanConfig | None = None) -> list[Hit]:
    """Run the rule ``rule_id`` from ``rules`` on ``skill`` and return its hits."""
    rule = next(r for r in rules if r.id == rule_id)
    return list(rule.check(ScanContext(skill, config or ScanConfig())))


def lines_of(hits: Iterable[Hit]) -> list[int | None]:
    return [hit.location.line for hit in hits]


def front(**fields: str) -> str:
    """A frontmatter block from keyword fields (underscores become hyphens)."""
    body = "".join(f"{key.replace('_', '-')}: {value}\n" for key, value in fields.items())
    return f"---\n{body}---\n"
