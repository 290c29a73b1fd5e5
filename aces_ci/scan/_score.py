"""The structural score: 100 minus the points of each active finding, with every deduction explained.

Each finding costs its rule's ``weight`` when it has the rule's default severity; a finding whose
severity was changed (by aces.yml or by the rule for one hit, e.g. a lenient-profile note) costs
what that severity costs by default, so downgrading a rule to ``note`` really makes it cheap.

One noisy rule must not zero a skill on its own: per rule and skill, only the
:data:`MAX_COUNTED_PER_RULE` costliest findings count, and the rule takes at most
:data:`MAX_POINTS_PER_RULE` points. Reaching 0 therefore takes at least two different problems.
Suppressed findings cost nothing.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable

from ._finding import Finding, Severity
from ._finding_rows import ActiveCounts, active_counts
from ._registry import SEVERITY_POINTS, Rule, RuleRegistry
from ._result import Deduction, StructuralScore

FULL_SCORE = 100
MAX_COUNTED_PER_RULE = 3
MAX_POINTS_PER_RULE = 50
_SEVERITY_OF = {severity.value: severity for severity in Severity}
"""A severity by its value (a dictionary: ``Severity(value)`` goes through the enum machinery)."""


def finding_points(severity: Severity, rule: Rule) -> int:
    """Points one active finding of ``severity`` costs."""
    return rule.weight if severity == rule.severity else SEVERITY_POINTS[severity]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


@functools.lru_cache(maxsize=4096)
def _explain(count: int, counted: tuple[int, ...], points: int) -> str:
    """The deduction's arithmetic; memoised: a repository repeats the same few thousands of times."""
    same = len(set(counted)) == 1
    arithmetic = f"{len(counted)} × {counted[0]}" if same else " + ".join(str(c) for c in counted)
    text = f"{_plural(count, 'finding')}: {arithmetic} = {_plural(sum(counted), 'point')}"
    if count > MAX_COUNTED_PER_RULE:
        text += f" (only the {MAX_COUNTED_PER_RULE} costliest count)"
    if points < sum(counted):
        text += f", capped at {MAX_POINTS_PER_RULE} per rule"
    return text


def structural_score(findings: Iterable[Finding], registry: RuleRegistry) -> StructuralScore:
    """Score one skill from its findings (suppressed ones are skipped)."""
    return score_of_counts(active_counts(findings), registry)


def score_of_counts(counts: ActiveCounts, registry: RuleRegistry) -> StructuralScore:
    """The score of a skill whose active findings are ``counts`` (by rule and severity): all a score reads."""
    costs_by_rule: dict[str, list[int]] = defaultdict(list)
    for (rule_id, severity), count in counts.items():
        costs_by_rule[rule_id].extend([finding_points(_SEVERITY_OF[severity], registry.get(rule_id))] * count)
    deductions = []
    for rule_id, costs in costs_by_rule.items():
        costs.sort(reverse=True)
        points = min(sum(costs[:MAX_COUNTED_PER_RULE]), MAX_POINTS_PER_RULE)
        if points == 0:
            continue
        rule = registry.get(rule_id)
        why = _explain(len(costs), tuple(costs[:MAX_COUNTED_PER_RULE]), points)
        deductions.append(Deduction(rule.id, rule.name, len(costs), points, why))
    deductions.sort(key=lambda d: (-d.points, d.rule_id))
    value = max(0, FULL_SCORE - sum(d.points for d in deductions))
    return StructuralScore(value, tuple(deductions))


class ScoreMemo:
    """Scores already computed in one scan, by the skill's active counts: a registry repeats a few
    hundred patterns over thousands of skills (the score is a function of the counts alone)."""

    def __init__(self, registry: RuleRegistry) -> None:
        self._registry = registry
        self._scores: dict[frozenset[tuple[tuple[str, str], int]], StructuralScore] = {}

    def score(self, findings: Iterable[Finding]) -> StructuralScore:
        counts = active_counts(findings)
        key = frozenset(counts.items())
        score = self._scores.get(key)
        if score is None:
            score = self._scores[key] = score_of_counts(counts, self._registry)
        return score
