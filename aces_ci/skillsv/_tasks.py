"""The task panel: the cases of an evals file, each kept exactly as written, and the seeded split.

An oracle is handed the case object as the author wrote it (``--oracle python:…`` gets it as a
dict), so the cases are read from the parsed document rather than from the canonical
:class:`~aces_ci.evals.EvalCase`: the dataset reader of :mod:`aces_ci.evals` parses and bounds the
file, this module only picks the list of case objects out of it (``evals``, ``cases``, or a
top-level list) and names each case by its ``id`` (``#<position>`` when it has none).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..evals import parse_json, parse_jsonl, parse_yaml
from ..skill import read_text
from ._oracle import Task

_PARSERS = {".json": parse_json, ".jsonl": parse_jsonl, ".yaml": parse_yaml, ".yml": parse_yaml}
_STRATUM_KEYS = ("stratum", "category")


def load_tasks(path: Path) -> list[Task]:
    """Every case object of the dataset at ``path``; :class:`InputError` naming the file when there is none."""
    parse = _PARSERS.get(path.suffix.lower())
    if parse is None:
        raise InputError("an evals file must end in .json, .jsonl, .yaml or .yml", path=str(path))
    text_file = read_text(path, str(path))
    if text_file.text is None or text_file.truncated:
        reason = text_file.problems[0].message if text_file.problems else "unreadable"
        raise InputError(f"cannot read the evals file: {reason}", path=str(path))
    document = parse(text_file.text)
    if not document.parsed:
        problem = document.problems[0] if document.problems else None
        raise InputError(
            f"not a dataset: {problem.message if problem else 'unparseable'}",
            path=str(path),
            line=problem.line if problem else None,
        )
    data = document.data
    list_path: tuple[str, ...] = ()
    items = data
    if isinstance(data, dict):
        list_path = ("evals",) if "evals" in data else ("cases",)
        items = data.get(list_path[0])
    if not isinstance(items, list):
        raise InputError("no list of cases (an 'evals' or 'cases' list, or a top-level list)", path=str(path))
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    for position, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            continue
        raw_id = item.get("id")
        case_id = str(raw_id) if isinstance(raw_id, str | int) and not isinstance(raw_id, bool) else f"#{position}"
        if case_id in seen:
            raise InputError(
                f"case id {case_id!r} is used twice (cases {seen[case_id]} and {position})",
                path=str(path),
                line=document.line_of((*list_path, position - 1)),
            )
        seen[case_id] = position
        stratum = next((item[key] for key in _STRATUM_KEYS if isinstance(item.get(key), str)), "")
        tasks.append(Task(case_id, item, stratum))
    if not tasks:
        raise InputError("the dataset has no case objects", path=str(path))
    return tasks


def split_panels(tasks: Sequence[Task], holdout: float, seed: int) -> tuple[list[Task], list[Task]]:
    """(attribution panel A, held-out panel B): one seeded shuffle, disjoint by construction."""
    if not 0 < holdout < 1:
        return list(tasks), []
    order = np.random.default_rng([seed, 4242]).permutation(len(tasks))
    cut = len(tasks) - max(1, round(holdout * len(tasks)))
    if cut < 1:
        raise InputError(f"{len(tasks)} cases cannot be split into an attribution and a held-out panel")
    chosen_a = sorted(int(i) for i in order[:cut])
    chosen_b = sorted(int(i) for i in order[cut:])
    return [tasks[i] for i in chosen_a], [tasks[i] for i in chosen_b]
