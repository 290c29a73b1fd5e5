"""The runner's environment files: step outputs (``$GITHUB_OUTPUT``) and the job summary (``$GITHUB_STEP_SUMMARY``).

Outputs are appended as ``name<<delimiter`` blocks, the form ``actions/toolkit`` uses: a value may
then hold newlines or ``=`` without ending the entry early. The delimiter is random per value and
checked against it, so no value (a skill name, a report path) can forge a following output.

GitHub refuses a job summary over 1 MiB per step, and then shows none of it; the summary is
therefore cut, at a line end, to fit, with a sentence saying so and where the full report is.
Everything written is redacted first.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..errors import InfraError
from ..redact import redact_text

STEP_SUMMARY_LIMIT = 1024 * 1024
"""Bytes GitHub accepts in one step's summary."""

_OUTPUT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def _delimiter(value: str) -> str:
    while True:
        candidate = f"ghadelimiter_{secrets.token_hex(16)}"
        if candidate not in value:
            return candidate


def output_block(name: str, value: str) -> str:
    """One entry of ``$GITHUB_OUTPUT``: ``name<<delim``, the value, ``delim``."""
    if not _OUTPUT_NAME.match(name):
        raise ValueError(f"not a valid output name: {name!r}")
    delimiter = _delimiter(value)
    return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"


def write_outputs(path: Path | None, outputs: Mapping[str, str], extra_secrets: Iterable[str] = ()) -> bool:
    """Append ``outputs`` to the ``$GITHUB_OUTPUT`` file; False when there is no such file (not on a runner)."""
    if path is None:
        return False
    hidden = tuple(extra_secrets)
    text = "".join(output_block(name, redact_text(value, hidden)) for name, value in outputs.items())
    _append(path, text, "GITHUB_OUTPUT")
    return True


def fit_summary(markdown: str, note: str, limit: int = STEP_SUMMARY_LIMIT) -> str:
    """``markdown`` cut at a line end so that it and ``note`` fit in ``limit`` UTF-8 bytes; unchanged when it fits."""
    encoded = markdown.encode("utf-8", errors="backslashreplace")
    if len(encoded) <= limit:
        return markdown
    tail = f"\n\n{note}\n"
    room = limit - len(tail.encode("utf-8", errors="backslashreplace"))
    cut = encoded[: max(room, 0)].decode("utf-8", errors="ignore")
    line_end = cut.rfind("\n")
    if line_end > 0:
        cut = cut[:line_end]
    return cut + tail


def append_step_summary(
    path: Path | None, markdown: str, *, full_report: str | None = None, extra_secrets: Iterable[str] = ()
) -> bool:
    """Append ``markdown`` to the job summary, within GitHub's 1 MiB; False when there is no summary file."""
    if path is None:
        return False
    where = f" The full report: {full_report}." if full_report else " The JSON and SARIF reports hold everything."
    note = f"_This summary was cut to stay within GitHub's 1 MiB step-summary limit.{where}_"
    text = fit_summary(redact_text(markdown, tuple(extra_secrets)), note)
    _append(path, text if text.endswith("\n") else text + "\n", "GITHUB_STEP_SUMMARY")
    return True


def _append(path: Path, text: str, what: str) -> None:
    try:
        with path.open("a", encoding="utf-8", errors="backslashreplace") as handle:
            handle.write(text)
    except OSError as exc:
        raise InfraError(f"cannot append to {what} ({path}): {exc.strerror or exc}") from None
