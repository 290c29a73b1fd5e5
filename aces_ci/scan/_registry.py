"""Rules and the registry that holds them.

A rule is a small typed unit (after yamllint's one-module-per-rule, with types): a stable id, a
family, a default severity, a one-line summary, a longer doc (the check function's docstring),
a fix hint and the score points it costs. Its ``check`` yields :class:`Hit` objects; the runner
attaches the rule's identity. Family modules build plain lists of rules with :func:`define`;
:class:`RuleRegistry` is built from those lists explicitly, never from import side effects.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._finding import Hit, Severity

if TYPE_CHECKING:
    from ._context import ScanContext

CheckFn = Callable[["ScanContext"], Iterable[Hit]]

SEVERITY_POINTS: dict[Severity, int] = {Severity.ERROR: 15, Severity.WARNING: 5, Severity.NOTE: 1}
"""Score points a finding of each severity costs by default: a rule's weight unless it sets its own, and
what a finding costs when aces.yml or the rule changed its severity (see :mod:`aces_ci.scan._score`)."""


@dataclass(frozen=True)
class Rule:
    id: str
    """Stable identifier, e.g. ``SPEC001``; used in suppressions, baselines, SARIF and JUnit."""
    name: str
    """Short kebab-case slug, e.g. ``name-format``."""
    family: str
    """``SPEC``, ``STRUCT``, ``REF``, ``SCRIPT``, ``SEC``, ``EVAL`` (or ``PARSE`` for unreadable input)."""
    severity: Severity
    summary: str
    """One line: what is wrong when this rule fires."""
    doc: str
    """Why it matters, what passes and what fails."""
    fix: str
    """How to make the finding go away for good."""
    weight: int
    """Score points one finding of this rule deducts (the structural score starts at 100)."""
    check: CheckFn

    def help_uri(self) -> str:
        return f"https://github.com/aces-ci/aces-ci/blob/main/docs/rules.md#{self.id.lower()}"


def define(
    rules: list[Rule],
    *,
    id: str,
    name: str,
    severity: Severity,
    summary: str,
    fix: str,
    weight: int | None = None,
) -> Callable[[CheckFn], CheckFn]:
    """Decorator that turns a check function into a :class:`Rule` appended to ``rules``.

    The function's docstring becomes the rule's doc, so the documentation cannot drift from the code.
    """

    def wrap(fn: CheckFn) -> CheckFn:
        doc = inspect.cleandoc(fn.__doc__ or "")
        if not doc:
            raise ValueError(f"rule {id} has no docstring")
        family = "".join(ch for ch in id if ch.isalpha())
        rules.append(
            Rule(
                id,
                name,
                family,
                severity,
                summary,
                doc,
                fix,
                SEVERITY_POINTS[severity] if weight is None else weight,
                fn,
            )
        )
        return fn

    return wrap


class UnknownRuleError(KeyError):
    """A rule id that no registered rule has."""


class RuleRegistry:
    """All rules known to one scan, by id. Built once and passed explicitly."""

    def __init__(self, rules: Iterable[Rule] = ()) -> None:
        self._rules: dict[str, Rule] = {}
        for rule in rules:
            self.add(rule)

    def add(self, rule: Rule) -> None:
        if rule.id in self._rules:
            raise ValueError(f"duplicate rule id {rule.id}")
        self._rules[rule.id] = rule

    def get(self, rule_id: str) -> Rule:
        try:
            return self._rules[rule_id.upper()]
        except KeyError:
            raise UnknownRuleError(rule_id) from None

    def __contains__(self, rule_id: object) -> bool:
        return isinstance(rule_id, str) and rule_id.upper() in self._rules

    def __iter__(self) -> Iterator[Rule]:
        return iter(sorted(self._rules.values(), key=lambda r: (r.family, r.id)))

    def __len__(self) -> int:
        return len(self._rules)

    def families(self) -> list[str]:
        return sorted({rule.family for rule in self._rules.values()})
