"""Settings of the static tier, as read from the ``scan:`` section of aces.yml (see aces_ci.config)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..errors import ConfigSource
from ..frozen import FrozenDict, frozen
from ._finding import Severity

Profile = Literal["strict", "lenient"]

DEFAULT_MIN_SCORE = 70
"""ACES's quality check passes a skill at a structural score of 70."""


@dataclass(frozen=True)
class IgnoreEntry:
    """One entry of the config ``ignore:`` list: a rule, optionally limited to paths, with a reason."""

    rule: str
    paths: tuple[str, ...] = ()
    """Gitignore-style patterns; empty means everywhere."""
    reason: str = ""


@dataclass(frozen=True)
class ScanConfig:
    profile: Profile = "lenient"
    """``strict``: the agentskills.io spec text. ``lenient``: known harness extension keys accepted with a note."""
    min_score: int = DEFAULT_MIN_SCORE
    """The gate: a skill whose structural score is below this fails (ACES default 70)."""
    exclude: tuple[str, ...] = ()
    """Gitignore-style patterns of directories not to scan."""
    ignore: tuple[IgnoreEntry, ...] = ()
    baseline: Path | None = None
    """File of accepted findings (``aces-ci scan --write-baseline``)."""
    severity: Mapping[str, Severity | Literal["off"]] = field(default_factory=FrozenDict)
    """Per-rule severity overrides; ``off`` disables a rule. Read-only: one config serves every skill's scan."""
    max_body_lines: int = 500
    max_body_tokens: int = 5000
    min_eval_cases: int = 3
    """Fewer cases than this in evals.json cannot support any lift claim."""
    source: ConfigSource = field(default_factory=ConfigSource, compare=False)
    """Where these settings were written: errors found later (an unknown rule id) name the file and line."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "severity", frozen(self.severity))
