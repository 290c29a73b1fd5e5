"""A finding: one problem one rule saw at one place."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from enum import StrEnum


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


@dataclass(frozen=True)
class Suppression:
    """Why a finding does not count: an inline comment, the config ignore list or the baseline."""

    kind: str
    """``inline``, ``config`` or ``baseline``."""
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

    def suppress(self, kind: str, reason: str) -> Finding:
        return replace(self, suppressed=Suppression(kind, reason))
