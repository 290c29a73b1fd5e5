"""What the rules derive from a skill, derived once: file texts, Markdown parses, secrets, the dataset.

Many rules look at the same things: every SEC rule reads every text file of the skill, four REF
rules cut evidence from the redacted SKILL.md, ten EVAL rules stand on one schema-validated
dataset. :class:`SkillInputs` computes each of those at most once per scan of a skill. The runner
creates one per skill and hands it to every rule through :class:`~aces_ci.scan.ScanContext`; it is
dropped with the skill, so nothing read from one skill can leak into another skill's findings.

:class:`ScanMemo` is the one thing shared across the skills of a scan: results that depend only
on content bytes (``bash -n`` on a script, say), keyed by a digest of those bytes, so a helper
script copied into twenty skills is checked once.

A rule whose outcome depends on something other than the skill's files (a subprocess that timed
out, for instance) calls :meth:`SkillInputs.not_repeatable`; the runner then keeps that skill's
findings out of the result cache, so a passing accident is not replayed on the next push.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar, cast

from ..evals import EvalSet, load_evals
from ..redact import SecretMatch, SecretScan, redacted_lines, scan_text
from ..skill import MarkdownDoc, Resource, Skill, TextFile, parse_markdown, read_resource

T = TypeVar("T")

_UNSET = object()


class ScanMemo:
    """Results shared by every skill of one scan, keyed by what they depend on (content digests)."""

    def __init__(self) -> None:
        self._values: dict[Hashable, object] = {}

    def cached(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The value stored under ``key``, computing and storing it on the first call."""
        value = self._values.get(key, _UNSET)
        if value is _UNSET:
            value = self._values[key] = compute()
        return cast(T, value)


class SkillInputs:
    """Derived inputs of one skill, each computed on first use and kept for the other rules."""

    def __init__(self, skill: Skill, scan_memo: ScanMemo | None = None) -> None:
        self.skill = skill
        self.scan_memo = scan_memo if scan_memo is not None else ScanMemo()
        self._values: dict[Hashable, object] = {}
        self._unrepeatable: list[str] = []

    def cached(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The value stored under ``key`` for this skill, computing it on the first call.

        Rule families key their own derived data with their own functions, e.g.
        ``inputs.cached((_units, True), lambda: ...)``: a function object cannot collide with
        another family's key.
        """
        value = self._values.get(key, _UNSET)
        if value is _UNSET:
            value = self._values[key] = compute()
        return cast(T, value)

    def read(self, resource: Resource) -> TextFile | None:
        """The resource read under the size cap, or None for a link leading out of the repository."""
        return self.cached(("read", resource.rel), lambda: read_resource(self.skill, resource))

    def text(self, resource: Resource) -> str | None:
        """The resource's decoded text, None when it is binary, unreadable or a link out of the repository."""
        read = self.read(resource)
        return None if read is None else read.text

    def markdown(self, text: str) -> MarkdownDoc:
        """``text`` parsed as a Markdown file of its own (line 1 is its first line)."""
        return self.cached(("markdown", text), lambda: parse_markdown(text))

    def secret_scan(self, text: str) -> SecretScan:
        """The secrets of ``text`` and the look-alikes left alone (see :func:`aces_ci.redact.scan_text`)."""
        return self.cached(("secrets", text), lambda: scan_text(text))

    def secrets(self, text: str) -> tuple[SecretMatch, ...]:
        """Every secret detected in ``text``."""
        return self.secret_scan(text).secrets

    def redacted_lines(self, text: str) -> list[str]:
        """The lines of ``text`` with every secret masked, line numbers unchanged: where evidence is cut from."""

        def compute() -> list[str]:
            # Without a secret the redaction is the identity: skip the second detection pass.
            return redacted_lines(text) if self.secrets(text) else text.split("\n")

        return self.cached(("redacted", text), compute)

    def skill_md_lines(self) -> list[str]:
        """SKILL.md's redacted lines (empty when it could not be read)."""
        return self.redacted_lines(self.skill.skill_md.text or "")

    def evalset(self) -> EvalSet | None:
        """The skill's evaluation dataset, loaded and schema-checked once, or None when it has none."""
        return self.cached(("evalset",), lambda: load_evals(self.skill.dir, self.skill.repo_root))

    def not_repeatable(self, reason: str) -> None:
        """Record that a finding of this skill depends on more than its files (e.g. a timeout)."""
        self._unrepeatable.append(reason)

    @property
    def repeatable(self) -> bool:
        """Whether scanning the same files again is certain to give the same findings."""
        return not self._unrepeatable
