"""RolloutResult ↔ plain JSON values, losslessly, with strict checks on the way back in.

Cache files and journal lines are read back by later runs, possibly after a crash mid-write or
a hand edit; :func:`result_from_dict` therefore checks every field's type and raises
:class:`ValueError` naming the field, and the callers treat that record as absent.

Workspace artifacts are bytes: a file that is valid UTF-8 is stored as ``text``, any other as
``base64``, so a cached rollout hands a later grader exactly the bytes the agent wrote.
"""

from __future__ import annotations

import base64
import binascii
import math
from dataclasses import fields
from typing import Any, get_args

from ..agents import (
    OMISSIONS,
    SKILL_EVENT_VIAS,
    Artifact,
    ArtifactLimits,
    EndReason,
    RolloutResult,
    RolloutStatus,
    SkillEvent,
    WorkspaceArtifacts,
)
from ..models import Usage

_STATUSES = frozenset(get_args(RolloutStatus))
_END_REASONS = frozenset(get_args(EndReason))
_VIAS = frozenset(SKILL_EVENT_VIAS)
_OMISSIONS = frozenset(OMISSIONS)


def _flat(record: Usage | SkillEvent | RolloutResult | ArtifactLimits) -> dict[str, Any]:
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
    data["artifacts"] = _artifacts_to_dict(result.artifacts)
    return data


def _artifacts_to_dict(artifacts: WorkspaceArtifacts) -> dict[str, Any]:
    files = []
    for artifact in artifacts.files:
        entry: dict[str, Any] = {"path": artifact.path, "size": artifact.size}
        if artifact.omitted is not None:
            entry["omitted"] = artifact.omitted
        if artifact.redacted:
            entry["redacted"] = True
        if artifact.content is not None:
            text = artifact.text
            if text is not None:
                entry["text"] = text
            else:
                entry["base64"] = base64.b64encode(artifact.content).decode("ascii")
        files.append(entry)
    return {
        "files": files,
        "deleted": list(artifacts.deleted),
        "truncated": artifacts.truncated,
        "limits": _flat(artifacts.limits),
    }


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
    end_reason = _field(data, "end_reason", str)
    if end_reason not in _END_REASONS:
        raise ValueError(f"unknown end reason {end_reason!r}")
    events = _field(data, "skill_events", list)
    return RolloutResult(
        key=_field(data, "key", str),
        status=status,
        end_reason=end_reason,
        final_answer=_field(data, "final_answer", str, optional=True),
        trajectory=_field(data, "trajectory", dict),
        usage=_usage(data.get("usage")),
        duration_s=_finite("duration_s", _field(data, "duration_s", (int, float))),
        skill_events=tuple(_event(e) for e in events),
        error=_field(data, "error", str, optional=True),
        artifacts=_artifacts(data.get("artifacts")),
    )


def _count(data: dict[str, Any], name: str) -> int:
    value = _field(data, name, int)
    if value < 0:
        raise ValueError(f"field {name!r} is negative")
    return int(value)


def _artifact(data: Any) -> Artifact:
    if not isinstance(data, dict):
        raise ValueError("an artifact must be an object")
    path = _field(data, "path", str)
    omitted = data.get("omitted")
    if omitted is not None and omitted not in _OMISSIONS:
        raise ValueError(f"artifact {path!r}: unknown omission {omitted!r}")
    redacted = data.get("redacted", False)
    if not isinstance(redacted, bool):
        raise ValueError(f"artifact {path!r}: field 'redacted' must be a boolean")
    content: bytes | None = None
    if "text" in data:
        content = _field(data, "text", str).encode("utf-8")
    elif "base64" in data:
        try:
            content = base64.b64decode(_field(data, "base64", str), validate=True)
        except binascii.Error as exc:
            raise ValueError(f"artifact {path!r}: damaged base64 ({exc})") from None
    if (content is None) == (omitted is None):
        raise ValueError(f"artifact {path!r}: needs either content or the reason it was omitted")
    return Artifact(path=path, size=_count(data, "size"), content=content, omitted=omitted, redacted=redacted)


def _artifacts(data: Any) -> WorkspaceArtifacts:
    if not isinstance(data, dict):
        raise ValueError("field 'artifacts' must be an object")
    limits = _field(data, "limits", dict)
    bounds = ArtifactLimits(
        **{name: _count(limits, name) for name in ("max_file_bytes", "max_total_bytes", "max_files")}
    )
    deleted = _field(data, "deleted", list)
    if not all(isinstance(path, str) for path in deleted):
        raise ValueError("field 'artifacts.deleted' must hold paths")
    return WorkspaceArtifacts(
        files=tuple(_artifact(entry) for entry in _field(data, "files", list)),
        deleted=tuple(deleted),
        truncated=_field(data, "truncated", bool),
        limits=bounds,
    )
