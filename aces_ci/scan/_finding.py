"""A finding: one problem one rule saw at one place; and its one plain-value form (a row)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Literal


class Severity(StrEnum):
    """How bad a finding is. ``error`` fails the gate on its own; the others cost score points."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "note": 1}[self.value]


@dataclass(frozen=True)
class Location:
    """Where a finding is: a repository-relative POSIX path and an optional 1-based line/column."""

    path: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        if self.line is None:
            return self.path
        return f"{self.path}:{self.line}" + (f":{self.column}" if self.column else "")


@dataclass(frozen=True)
class Hit:
    """What a rule's check yields: the facts of one problem. The runner adds the rule's identity."""

    message: str
    location: Location
    evidence: str | None = None
    """A short excerpt showing the problem; secrets are already redacted by the rule."""
    clause: str | None = None
    """The specification clause or guidance the rule enforces here, e.g. ``agentskills.io: name``."""
    severity: Severity | None = None
    """Overrides the rule's default severity for this hit (e.g. a lenient-profile note)."""
    waived: str | None = None
    """Set when the rule's own policy looked at this and did not count it: why (the finding is
    reported suppressed, kind ``policy``, e.g. a placeholder shaped like a credential)."""


SuppressionKind = Literal["inline", "config", "baseline", "policy"]
"""Who waived a finding: an inline comment, the config ignore list, the baseline, or the rule's own policy."""


@dataclass(frozen=True)
class Suppression:
    """Why a finding does not count: an inline comment, the config ignore list or the baseline."""

    kind: SuppressionKind
    """``policy``: the rule's own policy, see :attr:`Hit.waived`."""
    reason: str


@dataclass(frozen=True)
class Finding:
    """A rule's hit, with the rule's identity attached and, possibly, a suppression."""

    rule_id: str
    severity: Severity
    message: str
    location: Location
    skill: str
    """The skill's directory relative to the repo root: the grouping key of every report."""
    evidence: str | None = None
    clause: str | None = None
    fix: str | None = None
    suppressed: Suppression | None = None

    @property
    def active(self) -> bool:
        """Whether the finding counts toward score and gate."""
        return self.suppressed is None

    @property
    def fingerprint(self) -> str:
        """A stable identity that survives unrelated edits: rule, file and message, not the line.

        Baselines and SARIF ``partialFingerprints`` use it, so moving a paragraph does not
        resurrect an accepted finding.
        """
        digest = hashlib.sha256(
            f"{self.rule_id}\0{self.location.path}\0{self.message}".encode("utf-8", "surrogatepass")
        ).hexdigest()
        return digest[:32]

    def suppress(self, kind: SuppressionKind, reason: str) -> Finding:
        return replace(self, suppressed=Suppression(kind, reason))


FindingRow = tuple[str, str, str, str, int | None, int | None, str | None, str | None, str | None, str | None, str]
"""A finding as plain values: rule, severity, message, path, line, column, evidence, clause, fix,
suppression kind (None when active) and reason. Its skill is not in it: the holder of the rows knows it."""
_ROW_LENGTH = 11
_SEVERITIES = {severity.value: severity for severity in Severity}
_SUPPRESSION_KINDS: dict[object, SuppressionKind] = {
    "inline": "inline",
    "config": "config",
    "baseline": "baseline",
    "policy": "policy",
}


def finding_to_row(finding: Finding) -> FindingRow:
    """The row of ``finding``: how findings travel from worker processes and live in the result cache.

    Plain tuples, because unpickling thousands of frozen dataclasses (and their enum members) costs a
    scanning process three times more than building them from rows.
    """
    loc, why = finding.location, finding.suppressed
    kind, reason = (None, "") if why is None else (why.kind, why.reason)
    return (
        finding.rule_id,
        finding.severity.value,
        finding.message,
        loc.path,
        loc.line,
        loc.column,
        finding.evidence,
        finding.clause,
        finding.fix,
        kind,
        reason,
    )


def _optional_int(value: object) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool) and value > 0)


def finding_from_row(row: Sequence[object], skill: str) -> Finding | None:
    """The finding :func:`finding_to_row` wrote, or None when ``row`` is not such a row (a damaged file).

    Cache entries are checked in bulk by :func:`~aces_ci.scan._finding_rows.valid_rows`, which accepts
    exactly the rows this decodes (tested), and stay rows until a report reads them.
    """
    if len(row) != _ROW_LENGTH:
        return None
    rule_id, severity, message, path, line, column, evidence, clause, fix, kind, reason = row
    if not (isinstance(rule_id, str) and isinstance(message, str) and isinstance(path, str)):
        return None
    if not (isinstance(severity, str) and severity in _SEVERITIES and isinstance(reason, str)):
        return None
    if not ((line is None or _optional_int(line)) and (column is None or _optional_int(column))):
        return None
    if not (evidence is None or isinstance(evidence, str)) or not (clause is None or isinstance(clause, str)):
        return None
    if not (fix is None or isinstance(fix, str)) or not (
        kind is None or (isinstance(kind, str) and kind in _SUPPRESSION_KINDS)
    ):
        return None
    suppressed = None if kind is None else Suppression(_SUPPRESSION_KINDS[kind], reason)
    return Finding(
        rule_id,
        _SEVERITIES[severity],
        message,
        Location(path, line, column),  # type: ignore[arg-type]
        skill,
        evidence,
        clause,
        fix,
        suppressed,
    )
