"""A SkillSV shard's part file, written and read back (``schemas/skillsv-value-part.schema.json``).

Written as every JSON document we store is (secrets redacted, atomically); read through the bounded
reader and checked against the schema first, so a damaged or foreign file is an input error naming
the file and the field (exit 2), never a crash half-way through a merge.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..atomic import write_output
from ..errors import InputError
from ..schemas import validator
from ..skillsv import PART_KIND, ValuePart, part_from_json, part_json
from ._load import MAX_RESULT_BYTES, read_json_file
from ._write import json_bytes


def write_value_part(part: ValuePart, path: Path) -> None:
    write_output(path, json_bytes(part_json(part)), "value part")


def is_value_part(data: Any) -> bool:
    """Whether a JSON document says it is a value part (its ``kind``), whatever else it holds."""
    return isinstance(data, dict) and data.get("kind") == PART_KIND


def read_value_part(path: Path) -> ValuePart:
    """The part in ``path``; an :class:`InputError` naming the file and the first invalid field."""
    data = read_json_file(path, "value part", MAX_RESULT_BYTES)
    if not is_value_part(data):
        raise InputError(f"not a SkillSV value part (aces-ci value --shard I/N --json): kind is not {PART_KIND!r}",
                         path=str(path))  # fmt: skip
    errors = sorted(validator("skillsv-value-part").iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        first = errors[0]
        field = ".".join(str(part) for part in first.absolute_path) or None
        raise InputError(f"not a SkillSV value part: {first.message[:300]}", path=str(path), field=field)
    try:
        return part_from_json(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"the part's settings do not fit this aces-ci: {exc}", path=str(path)) from None
