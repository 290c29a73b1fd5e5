"""RolloutResult ↔ plain JSON values, losslessly, with strict checks on the way back in.

Cache files and journal lines are read back by later runs, possibly after a crash mid-write or
a hand edit; :func:`result_from_dict` therefore checks every field's type and raises
:class:`ValueError` naming the field, and the callers treat that record as absent.
"""

from __future__ import annotations

import math
from dataclasses import fields
from typing import Any, get_args

from ..agents import SKILL_EVENT_VIAS, RolloutResult, RolloutStatus, SkillEvent
from ..models import Usage

_STATUSES = frozenset(get_args(RolloutStatus))
_VIAS = frozenset(SKILL_EVENT_VIAS)


def _flat(record: Usage | SkillEvent | RolloutResult) -> dict[str, Any]:
    """A dataclass's fields by name, values as they are (no copy)."""
    return {field.name: getattr(record, field.name) for field in fields(record)}


def result_to_dict(result: RolloutResult) -> dict[str, Any]:
    """Every field of ``result`` as JSON values (the skill-event tuple becomes a list).

    The trajectory is the result's own dict, not a copy: the callers encode the value at once
    and never change it, and a deep copy of every step cost more than encoding it.
    """
    data = _flat(result)
    data["usage"] = _flat(result.usage)
    data["skill_events"] = [_flat(event) for event in result.skill_events]
    return data


def _field(data: dict[str, Any], name: str, kinds: type | tuple[type, ...], *, optional: bool = False) -> Any:
    if name not in data:
        raise ValueError(f"missing field {name!r}")
    value = data[name]
    if value is None and optional:
        return None
    # bool is an int in Python; a count or a score is never a bool.
    if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,)):
        raise ValueError(f"field {name!r} must be {kinds}, got a boolean")
    if not isinstance(value, kinds):
        raise ValueError(f"field {name!r} has type {type(value).__name__}")
    return value


def _finite(name: str, value: int | float) -> float:
    """``value`` as a finite float: an integer too large for a float, NaN or infinity is damage."""
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(f"field {name!r} is too large") from None
    if not math.isfinite(number):
        raise ValueError(f"field {name!r} is not a finite number")
    return number


def _usage(data: Any) -> Usage:
    if not isinstance(data, dict):
        raise ValueError("field 'usage' must be an object")
    ints = {
        name: _field(data, name, int)
        for name in ("prompt_tokens", "completion_tokens", "cache_read_tokens", "cache_write_tokens", "model_calls")
    }
    if any(v < 0 for v in ints.values()):
        raise ValueError("field 'usage' holds a negative count")
    cost = _finite("cost_usd", _field(data, "cost_usd", (int, float)))
    return Usage(cost_usd=cost, **ints)


def _event(data: Any) -> SkillEvent:
    if not isinstance(data, dict):
        raise ValueError("a skill event must be an object")
    via = _field(data, "via", str)
    if via not in _VIAS:
        raise ValueError(f"unknown skill event kind {via!r}")
    return SkillEvent(
        step_id=_field(data, "step_id", int),
        skill=_field(data, "skill", str),
        via=via,
        path=_field(data, "path", str, optional=True),
    )


def result_from_dict(data: Any) -> RolloutResult:
    """The :class:`RolloutResult` that :func:`result_to_dict` produced; ValueError names a bad field."""
    if not isinstance(data, dict):
        raise ValueError("a rollout result must be a JSON object")
    status = _field(data, "status", str)
    if status not in _STATUSES:
        raise ValueError(f"unknown status {status!r}")
    events = _field(data, "skill_events", list)
    score = _field(data, "score", (int, float), optional=True)
    return RolloutResult(
        key=_field(data, "key", str),
        status=status,
        end_reason=_field(data, "end_reason", str),
        final_answer=_field(data, "final_answer", str, optional=True),
        trajectory=_field(data, "trajectory", dict),
        usage=_usage(data.get("usage")),
        duration_s=_finite("duration_s", _field(data, "duration_s", (int, float))),
        skill_events=tuple(_event(e) for e in events),
        error=_field(data, "error", str, optional=True),
        score=None if score is None else _finite("score", score),
    )
