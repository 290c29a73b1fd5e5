"""Findings kept as rows until something reads them: what a warm scan replays without building objects.

A warm scan of a registry replays tens of thousands of findings from cache entries, and building a
:class:`~aces_ci.scan._finding.Finding` (and its location) for each was the largest part of it. The
score and the verdict need far less: how many active findings each rule has at each severity, and
the active errors. So a cache entry's rows are checked once, in bulk (:func:`valid_rows`: exactly
the rows :func:`~aces_ci.scan._finding.finding_from_row` decodes), and held in a
:class:`FindingRows`; a skill's report holds :class:`ReportFindings`, its parts in report order.
Either builds its findings the first time it is read as a sequence (a report that lists them), and
equals the tuple of those findings: what a scan reports is the same, only when the objects are made
differs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from operator import itemgetter
from typing import Any, TypeGuard, overload

from ._finding import Finding, Location, Severity, Suppression

_NONE = type(None)
_ROW_TYPES = frozenset(
    (str, str, str, str, line, column, evidence, clause, fix, kind, str)
    for line in (int, _NONE)
    for column in (int, _NONE)
    for evidence in (str, _NONE)
    for clause in (str, _NONE)
    for fix in (str, _NONE)
    for kind in (str, _NONE)
)
"""The type of each field of a row (:data:`~aces_ci.scan._finding.FindingRow`) as JSON decodes it;
exact types, so a ``true`` is not taken for a line number."""
_SEVERITIES = {severity.value: severity for severity in Severity}

Row = Sequence[Any]
"""A row that passed :func:`valid_rows`: its fields have the types a FindingRow names."""
RuleFixes = Mapping[str, str | None]
"""Each rule's fix by rule id: cache entries leave a finding's fix out, it is put back when it is built."""
ActiveCounts = Counter[tuple[str, str]]
"""Active findings by (rule id, severity): all the structural score reads of a skill's findings."""


def valid_rows(rows: object, kinds: frozenset[str | None]) -> TypeGuard[list[Row]]:
    """Whether ``rows`` (as JSON decodes a cache entry) is a list of rows each of which
    :func:`~aces_ci.scan._finding.finding_from_row` decodes, with a suppression kind in ``kinds``.

    Checked through the tuple of each row's field types and in passes over the whole list: about a
    quarter of what building the findings cost (0.025 s against 0.088 s for the 41,836 rows of a
    2,922-skill registry, measured alone).
    """
    if not isinstance(rows, list):
        return False
    if not all(type(row) is list and tuple(map(type, row)) in _ROW_TYPES for row in rows):
        return False
    if not ({row[1] for row in rows} <= _SEVERITIES.keys() and {row[9] for row in rows} <= kinds):
        return False
    return all((row[4] is None or row[4] > 0) and (row[5] is None or row[5] > 0) for row in rows)


def finding_of(row: Row, skill: str, fixes: RuleFixes) -> Finding:
    """The finding of a row :func:`valid_rows` accepted; a fix the entry left out is its rule's."""
    rule_id, severity, message, path, line, column, evidence, clause, fix, kind, reason = row
    return Finding(
        rule_id,
        _SEVERITIES[severity],
        message,
        Location(path, line, column),
        skill,
        evidence,
        clause,
        fixes.get(rule_id) if fix is None else fix,
        None if kind is None else Suppression(kind, reason),
    )


def report_order(finding: Finding) -> tuple[str, int, int, str, str]:
    """The order of a skill's findings in every report: by file, line, column, rule and message."""
    loc = finding.location
    return (loc.path, loc.line or 0, loc.column or 0, finding.rule_id, finding.message)


class _Lazy(Sequence[Finding]):
    """A sequence of findings built on first read; equal (and hashed, and pickled) as the tuple of them."""

    __slots__ = ("_built",)

    def __init__(self) -> None:
        self._built: tuple[Finding, ...] | None = None

    def _build(self) -> tuple[Finding, ...]:
        raise NotImplementedError

    def findings(self) -> tuple[Finding, ...]:
        """The findings as objects, built once."""
        if self._built is None:
            self._built = self._build()
        return self._built

    @overload
    def __getitem__(self, index: int) -> Finding: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Finding]: ...
    def __getitem__(self, index: int | slice) -> Finding | Sequence[Finding]:
        return self.findings()[index]

    def __iter__(self) -> Iterator[Finding]:
        return iter(self.findings())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _Lazy):
            return self.findings() == other.findings()
        return isinstance(other, tuple) and self.findings() == other

    def __hash__(self) -> int:
        return hash(self.findings())

    def __repr__(self) -> str:
        return repr(self.findings())

    def __reduce__(self) -> tuple[Any, ...]:
        return (tuple, (self.findings(),))


class FindingRows(_Lazy):
    """One skill's findings as a cache entry holds them (rows :func:`valid_rows` accepted), in stored order."""

    __slots__ = ("fixes", "rows", "skill")

    def __init__(self, rows: Sequence[Row], skill: str, fixes: RuleFixes) -> None:
        super().__init__()
        self.rows = rows
        self.skill = skill
        self.fixes = fixes

    def __len__(self) -> int:
        return len(self.rows)

    def _build(self) -> tuple[Finding, ...]:
        return tuple(finding_of(row, self.skill, self.fixes) for row in self.rows)


class ReportFindings(_Lazy):
    """A skill's findings as its report lists them: its parts, one after the other, in :func:`report_order`.

    The same as ``tuple(sorted([*part, ...], key=report_order))``, built when first read; its
    :func:`active_counts` and :func:`active_errors` are read off the rows of parts that are
    :class:`FindingRows`, without building their findings.
    """

    __slots__ = ("_counts", "parts")

    def __init__(self, parts: Sequence[Sequence[Finding]]) -> None:
        super().__init__()
        self.parts = tuple(parts)
        self._counts: ActiveCounts | None = None

    def counts(self) -> ActiveCounts:
        """:func:`active_counts` of these findings, counted once (the score and the verdict both ask)."""
        if self._counts is None:
            self._counts = Counter()
            for part in self.parts:
                _count_into(self._counts, part)
        return self._counts

    def __len__(self) -> int:
        return sum(len(part) for part in self.parts)

    def _build(self) -> tuple[Finding, ...]:
        return tuple(sorted((finding for part in self.parts for finding in part), key=report_order))


_RULE_SEVERITY_KIND = itemgetter(0, 1, 9)


def _count_into(counts: ActiveCounts, findings: Iterable[Finding]) -> None:
    if isinstance(findings, FindingRows):
        # Counted in C over (rule, severity, suppression kind); then the few distinct ones are sorted out.
        for (rule_id, severity, kind), count in Counter(map(_RULE_SEVERITY_KIND, findings.rows)).items():
            if kind is None:
                counts[rule_id, severity] += count
    else:
        counts.update((f.rule_id, f.severity.value) for f in findings if f.active)


def active_counts(findings: Iterable[Finding]) -> ActiveCounts:
    """How many active (unsuppressed) findings each rule has at each severity (a ReportFindings' own
    count: read it, do not change it)."""
    if isinstance(findings, ReportFindings):
        return findings.counts()
    counts: ActiveCounts = Counter()
    _count_into(counts, findings)
    return counts


def active_errors(findings: Iterable[Finding]) -> list[Finding]:
    """The active findings of severity ``error``, in :func:`report_order` (``findings`` given in that order,
    or a :class:`ReportFindings`): only those are built from rows."""
    if not isinstance(findings, ReportFindings):
        return [f for f in findings if f.active and f.severity == Severity.ERROR]
    if not any(severity == "error" for _, severity in findings.counts()):
        return []
    errors: list[Finding] = []
    for part in findings.parts:
        if isinstance(part, FindingRows):
            rows = [row for row in part.rows if row[1] == "error" and row[9] is None]
            errors.extend(finding_of(row, part.skill, part.fixes) for row in rows)
        else:
            errors.extend(f for f in part if f.active and f.severity == Severity.ERROR)
    return sorted(errors, key=report_order)
