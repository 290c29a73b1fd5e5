"""Which result a JSON file holds, checked against its schema before anything renders it.

``aces-ci report`` takes any mix of scan, trial, trigger-trial, value, compress and rerun results (a fork's artifact, a
file from last month). Each is recognised by the fields only its kind has, then validated against
its schema, so a damaged or foreign file is an input error naming the file and the first bad
field (exit 2), never a half-rendered page; validation also keeps every field to the types the
sections expect. The files are read through the bounded reader.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import InputError
from ...schemas import is_valid_fast, validator
from .._links import SourceLinks
from .._load import read_json_file

MAX_RESULT_BYTES = 64 * 1024 * 1024
"""A result larger than this is not one aces-ci wrote for a report (a 200-rollout trial is well under 1 MB)."""

KINDS = ("scan", "trial", "trigger", "value", "compress", "rerun")
"""Kinds of result, in the order the report shows them (a trial's verdict first, the scan last)."""

_SCHEMAS = {
    "scan": "scan-result",
    "trial": "trial-result",
    "trigger": "trigger-result",
    "value": "skillsv-value",
    "compress": "compress",
    "rerun": "rerun",
}


@dataclass(frozen=True)
class ResultDocument:
    """One validated result: its kind, where it came from (as the page names it), and its JSON data."""

    kind: str
    source: str
    data: dict[str, Any]
    links: SourceLinks | None = None
    """Where this result's paths open at the commit (``ci`` knows; a result read from a file alone does not): its
    prefix is where the paths start, the scanned root for a scan, the skill's folder for a value or compress
    result."""


def kind_of(data: Any) -> str | None:
    """``scan``, ``trial``, ``trigger``, ``value``, ``compress`` or ``rerun`` by the fields that kind alone has; None
    for anything else."""
    if not isinstance(data, dict):
        return None
    if "protocol" in data and "gate" in data:
        return "trial"
    if "host" in data and "model_calls" in data:
        return "trigger"
    if "units" in data and "oracle" in data:
        return "value"
    if "candidates" in data and "panel" in data:
        return "compress"
    if "run_id" in data and "measured_at" in data:
        return "rerun"
    if "rules" in data and "profile" in data:
        return "scan"
    return None


def _non_finite(data: Any) -> str | None:
    """The path of the first NaN or infinity in ``data`` (Python's JSON reader accepts them; JSON does not)."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            return path or "(document)"
        if isinstance(value, dict):
            stack += [(f"{path}.{key}" if path else str(key), item) for key, item in value.items()]
        elif isinstance(value, list):
            stack += [(f"{path}.{index}" if path else str(index), item) for index, item in enumerate(value)]
    return None


def document_from(data: Any, source: str) -> ResultDocument:
    """The validated document, or an :class:`InputError` naming ``source`` and the first invalid field."""
    bad_number = _non_finite(data)
    if bad_number is not None:
        raise InputError("not an aces-ci result: NaN or infinity is not a JSON number", path=source, field=bad_number)
    kind = kind_of(data)
    if kind is None:
        raise InputError(
            "not an aces-ci result: expected the JSON of scan, trial, trial --triggers, value, compress or a rerun "
            "record",
            path=source,
        )
    schema = _SCHEMAS[kind]
    if not is_valid_fast(schema, data):
        errors = sorted(validator(schema).iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
        if errors:
            first = errors[0]
            field = ".".join(str(part) for part in first.absolute_path) or None
            raise InputError(f"not a valid aces-ci {kind} result: {first.message[:300]}", path=source, field=field)
    return ResultDocument(kind, source, data)


def read_documents(paths: Iterable[Path]) -> list[ResultDocument]:
    """Every file read (bounded) and validated, in the order given."""
    return [document_from(read_json_file(path, "result", MAX_RESULT_BYTES), str(path)) for path in paths]
