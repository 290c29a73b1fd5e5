"""Writing a report file: atomically, as UTF-8, with a clear error naming the path when it cannot be written."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from pathlib import Path
from typing import Any

from ..errors import InputError


def json_bytes(data: Any) -> bytes:
    """``data`` as indented UTF-8 JSON.

    Text from skill files may hold lone surrogates (bytes that were not UTF-8); they are written as
    JSON ``\\uXXXX`` escapes, the text ``ensure_ascii`` would produce for them, instead of failing
    to encode. NaN and infinities are refused: they are not JSON, and no reader could load them.
    """
    text = json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    return text.encode("utf-8", errors="backslashreplace")


def write_atomic(path: Path, payload: bytes) -> None:
    """Write ``payload`` to ``path`` via a temporary sibling, so a crash never leaves half a report behind.

    Missing parent directories are created (``--json reports/scan.json`` just works); the file gets
    the usual permissions of the user's umask. A path that cannot be written is the user's input,
    so it raises :class:`InputError` naming the path.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tmp.open("xb") as handle:
            handle.write(payload)
        os.replace(tmp, path)
    except OSError as exc:
        _discard(tmp)
        raise InputError(f"cannot write the report: {exc.strerror or exc}", path=str(path)) from exc
    except BaseException:
        _discard(tmp)
        raise


def _discard(tmp: Path) -> None:
    """Remove a temporary file if it exists; its absence (or an unusable directory) is not a new error."""
    with contextlib.suppress(OSError):
        tmp.unlink()
