"""Settings of the static tier, as read from the ``scan:`` section of aces.yml (see aces_ci.config)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ._finding import Severity

Profile = Literal["strict", "lenient"]


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
    min_score: int = 70
    """The gate: a skill whose structural score is below this fails (ACES default 70)."""
    exclude: tuple[str, ...] = ()
    """Gitignore-style patterns of directories not to scan."""
    ignore: tuple[IgnoreEntry, ...] = ()
    baseline: Path | None = None
    """File of accepted findings (``aces-ci scan --write-baseline``)."""
    severity: dict[str, Severity | Literal["off"]] = field(default_factory=dict)
    """Per-rule severity overrides; ``off`` disables a rule."""
    max_body_lines: int = 500
    max_body_tokens: int = 5000
    min_eval_cases: int = 3
    """Fewer cases than this in evals.json cannot support any lift claim."""
