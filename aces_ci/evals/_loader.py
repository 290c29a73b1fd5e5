"""Find a skill's evaluation dataset and load it: read safely, parse, check the schema, canonicalise.

The dataset lives in the skill's ``evals/`` directory as ``evals.json`` (agentskills.io,
skill-creator, SkillEvaluator), or, as SkillEvaluator also reads, ``evals.jsonl`` (one case per
line), ``evals.yaml`` or ``evals.yml``. When several exist the first in that order is read and
the others are reported, never merged. Loading never raises on bad content: every problem
becomes a :class:`~aces_ci.skill.ParseProblem` on the returned :class:`EvalSet`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from ..skill import MAX_TEXT_BYTES, ParseProblem, TextFile, is_within, read_text
from ._canonical import canonicalise
from ._document import Document
from ._fixtures import EVALS_DIR
from ._json_source import parse_json, parse_jsonl
from ._model import EvalSet
from ._schema import schema_problems
from ._strict import unknown_key_problems
from ._yaml_source import parse_yaml

DATASET_NAMES = ("evals.json", "evals.jsonl", "evals.yaml", "evals.yml")
"""Dataset file names inside ``evals/``, in the order of precedence."""

_PARSERS: dict[str, Callable[[str], Document]] = {
    ".json": parse_json,
    ".jsonl": parse_jsonl,
    ".yaml": parse_yaml,
    ".yml": parse_yaml,
}


def find_datasets(skill_dir: Path) -> list[Path]:
    """Dataset files present in ``skill_dir/evals`` (dangling links included), in order of precedence."""
    return [skill_dir / EVALS_DIR / name for name in DATASET_NAMES if os.path.lexists(skill_dir / EVALS_DIR / name)]


def _repo_rel(path: Path, repo_root: Path) -> str:
    try:
        return path.relative_to(repo_root).as_posix()
    except ValueError:
        return path.as_posix()


def _read_problems(text_file: TextFile) -> list[ParseProblem]:
    """The reader's problems as they matter for a dataset.

    A byte-order mark is dropped silently (JSON and YAML readers commonly accept it), and an
    oversized file is reported as not parsed at all: half a JSON document is not a dataset.
    """
    problems = [p for p in text_file.problems if p.code not in ("bom", "too-large")]
    if text_file.truncated:
        message = f"the file is {text_file.size:,} bytes, above the {MAX_TEXT_BYTES:,}-byte limit: not parsed"
        problems.append(ParseProblem("too-large", message, 1))
    return problems


def load_evals(skill_dir: Path, repo_root: Path, dataset: Path | None = None) -> EvalSet | None:
    """The skill's evaluation dataset, or None when it has none.

    ``dataset`` names the file to read instead of the skill's own ``evals/`` (``trial --evals``);
    it may live anywhere, and its fixture paths still resolve inside the skill's ``evals/``.
    """
    skill_dir = skill_dir.resolve()
    repo_root = repo_root.resolve()
    found = [dataset.absolute()] if dataset is not None else find_datasets(skill_dir)
    if not found:
        return None
    path = found[0]
    rel = _repo_rel(path, repo_root)
    problems = [
        ParseProblem(
            "ignored-dataset",
            f"{EVALS_DIR}/{other.name} is not read: {EVALS_DIR}/{path.name} takes precedence",
            path=_repo_rel(other, repo_root),
        )
        for other in found[1:]
    ]

    def unusable(extra: list[ParseProblem]) -> EvalSet:
        return EvalSet(path, rel, "unknown", None, problems=(*problems, *extra), parsed=False)

    if dataset is None and not is_within(path, skill_dir):
        return unusable([ParseProblem("dataset-escapes", "the dataset is a link leading outside the skill: not read")])
    text_file = read_text(path, rel)
    problems.extend(_read_problems(text_file))
    if text_file.text is None or text_file.truncated:
        return unusable([])
    parser = _PARSERS.get(path.suffix)
    if parser is None:
        return unusable([ParseProblem("dataset-type", f"{path.name}: a dataset is .json, .jsonl, .yaml or .yml", 1)])
    document = parser(text_file.text)
    problems.extend(document.problems)
    if not document.parsed:
        return unusable([])
    problems.extend(schema_problems(document))
    problems.extend(unknown_key_problems(document))
    canonical = canonicalise(document, skill_dir, rel)
    problems.extend(canonical.problems)
    return EvalSet(
        path=path,
        rel=rel,
        dialect=canonical.dialect,
        skill_name=canonical.skill_name,
        cases=canonical.cases,
        problems=tuple(problems),
        skill_name_line=canonical.skill_name_line,
        cases_line=canonical.cases_line,
        tasks=canonical.tasks,
        grader=canonical.grader,
    )
