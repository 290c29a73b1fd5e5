"""Tool-call arguments as a dict, whatever the model produced.

OpenAI-style APIs return arguments as a JSON *string* the model wrote, and small or local models often
write it wrong. Dropping it would hide what the model did, and failing the call would blame the
network; instead the raw text is kept under :data:`INVALID_ARGUMENTS_KEY`, so the harness can answer
the call with a tool error the model can read and correct.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

INVALID_ARGUMENTS_KEY = "_invalid_arguments"
"""Key holding the model's raw argument text when it is not a JSON object."""


def tool_arguments(raw: object) -> dict[str, Any]:
    """``raw`` (a dict, or JSON text of an object) as a dict; anything else wrapped under the invalid key."""
    if isinstance(raw, dict):
        return {str(key): value for key, value in raw.items()}
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        try:
            parsed = json.loads(raw)
        except (json.JSONDecodeError, RecursionError):
            return {INVALID_ARGUMENTS_KEY: raw}
        if isinstance(parsed, dict):
            return parsed
        return {INVALID_ARGUMENTS_KEY: raw}
    return {INVALID_ARGUMENTS_KEY: json.dumps(raw, default=str)}


def arguments_text(arguments: Mapping[str, Any]) -> str:
    """Arguments as the JSON text OpenAI-style APIs carry; a kept invalid text goes back exactly as written."""
    raw = arguments.get(INVALID_ARGUMENTS_KEY)
    if isinstance(raw, str) and len(arguments) == 1:
        return raw
    return json.dumps(arguments)
