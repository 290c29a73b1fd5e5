"""The baseline: a committed file of accepted findings, so a gate can be adopted on an existing repo.

``aces-ci scan --write-baseline FILE`` records every finding not already suppressed inline or by
aces.yml; ``--baseline FILE`` (or ``scan.baseline``) then suppresses exactly those. Entries are
matched by :attr:`Finding.fingerprint` (rule, file, message: not the line), one entry per
finding, so a second identical problem in the same file is new and counts. Entries that match
nothing are *stale*: the problem was fixed, and rewriting the baseline drops them.

File format (``schema_version`` 1)::

    {"schema_version": 1, "tool": "aces-ci",
     "entries": [{"fingerprint": "…", "rule": "SPEC002", "path": "skills/x/SKILL.md", "message": "…"}]}
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..atomic import write_atomic
from ..errors import InputError
from ..redact import redacted_json
from ..skill import read_bounded
from ._finding import Finding

BASELINE_SCHEMA_VERSION = 1
MAX_BASELINE_BYTES = 64 * 1024 * 1024
"""A baseline larger than this is not a list of accepted findings; refuse rather than exhaust memory."""
_ENTRY_FIELDS = ("fingerprint", "rule", "path", "message")


@dataclass(frozen=True)
class BaselineEntry:
    fingerprint: str
    rule: str
    path: str
    message: str
    """Rule, path and message are kept beside the fingerprint so reviewers can read the file."""


@dataclass(frozen=True)
class Baseline:
    path: Path
    entries: tuple[BaselineEntry, ...]


def _entry(raw: Any, index: int, path: Path) -> BaselineEntry:
    where = f"entries[{index}]"
    if not isinstance(raw, dict):
        raise InputError("each baseline entry must be an object", path=str(path), field=where)
    values = []
    for name in _ENTRY_FIELDS:
        value = raw.get(name)
        if not isinstance(value, str) or not value:
            raise InputError(f"'{name}' must be a non-empty string", path=str(path), field=f"{where}.{name}")
        values.append(value)
    return BaselineEntry(*values)


def load_baseline(path: Path, *, inside: Path | None = None) -> Baseline:
    """Read and check a baseline file; any problem is an :class:`InputError` naming the file and field.

    The file goes through the bounded reader: a baseline that is a FIFO, a device (``/dev/zero``)
    or a committed link leading out of ``inside`` (the repository) is refused before it is read,
    and no more than :data:`MAX_BASELINE_BYTES` plus one byte is ever read.
    """
    if not path.exists() and not path.is_symlink():
        raise InputError("baseline file not found; create it with `aces-ci scan --write-baseline FILE`", path=str(path))
    data_bytes = read_bounded(path, what="baseline", max_bytes=MAX_BASELINE_BYTES, inside=inside)
    try:
        text = data_bytes.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"baseline is not UTF-8 text (byte {exc.start})", path=str(path)) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"baseline is not valid JSON: {exc.msg}", path=str(path), line=exc.lineno) from None
    if not isinstance(data, dict):
        raise InputError("baseline must be a JSON object", path=str(path))
    version = data.get("schema_version")
    if version != BASELINE_SCHEMA_VERSION:
        raise InputError(
            f"unsupported baseline schema_version {version!r}; this aces-ci reads version {BASELINE_SCHEMA_VERSION}",
            path=str(path),
            field="schema_version",
        )
    raw_entries = data.get("entries")
    if not isinstance(raw_entries, list):
        raise InputError("'entries' must be a list", path=str(path), field="entries")
    return Baseline(path, tuple(_entry(raw, index, path) for index, raw in enumerate(raw_entries)))


def accepted_by_new_baseline(findings: Iterable[Finding]) -> list[Finding]:
    """The findings ``--write-baseline`` records: active ones and those an older baseline accepted.

    Findings suppressed inline or by aces.yml stay out: those suppressions already explain them.
    """
    return [f for f in findings if f.suppressed is None or f.suppressed.kind == "baseline"]


def write_baseline(findings: Iterable[Finding], path: Path) -> int:
    """Write a baseline accepting ``findings``; returns the number of entries written."""
    entries = sorted(
        (
            {"fingerprint": f.fingerprint, "rule": f.rule_id, "path": f.location.path, "message": f.message}
            for f in findings
        ),
        key=lambda e: (e["path"], e["rule"], e["message"]),
    )
    document = {"schema_version": BASELINE_SCHEMA_VERSION, "tool": "aces-ci", "entries": entries}
    # A file name that is not UTF-8 reaches us as lone surrogates; "backslashreplace" writes them as
    # the JSON escapes \udcXX, which read back to the same string and so to the same fingerprint.
    payload = (redacted_json(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")
    try:
        write_atomic(path, payload)
    except OSError as exc:
        raise InputError(f"cannot write baseline: {exc.strerror or exc}", path=str(path)) from None
    return len(entries)


def apply_baseline(findings: Sequence[Finding], baseline: Baseline) -> list[Finding]:
    """Suppress (``kind="baseline"``) each active finding that an unused baseline entry accepts.

    ``findings`` should be in report order: when a file has more findings with one fingerprint
    than the baseline has entries, the first ones are the accepted ones.
    """
    available = Counter(entry.fingerprint for entry in baseline.entries)
    reason = f"accepted in baseline {baseline.path.name}"

    def accepted(finding: Finding) -> Finding:
        if not finding.active or available[finding.fingerprint] == 0:
            return finding
        available[finding.fingerprint] -= 1
        return finding.suppress("baseline", reason)

    return [accepted(finding) for finding in findings]


def count_stale(baseline: Baseline, findings: Iterable[Finding]) -> int:
    """Baseline entries that matched no finding: problems fixed since the baseline was written.

    Every baseline-suppressed finding consumed exactly one entry, so the rest are stale.
    """
    used = sum(1 for f in findings if f.suppressed is not None and f.suppressed.kind == "baseline")
    return len(baseline.entries) - used
