"""The bytes of a JSON report; files are written by :func:`aces_ci.atomic.write_output`."""

from __future__ import annotations

from typing import Any

from ..redact import redacted_json


def json_bytes(data: Any) -> bytes:
    """``data`` as indented UTF-8 JSON.

    Text from skill files may hold lone surrogates (bytes that were not UTF-8); they are written as
    JSON ``\\uXXXX`` escapes, the text ``ensure_ascii`` would produce for them, instead of failing
    to encode. NaN and infinities are refused: they are not JSON, and no reader could load them.
    """
    text = redacted_json(data, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    return text.encode("utf-8", errors="backslashreplace")
