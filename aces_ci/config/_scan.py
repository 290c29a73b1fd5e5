"""A scan's config: the scan flags laid over aces.yml ``scan:`` and ``judge:``, decided once for ``scan`` and ``ci``.

Light on purpose: ``aces-ci scan`` imports this and nothing of the live tier.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from ..models import ModelSettings
from ..scan import Profile, ScanConfig, Shard
from ._file import AcesConfig
from ._given import NOT_GIVEN, Given, given_or

JudgeWish = Literal["insist", "off", "when-configured"]
"""``--judge`` (fail when it cannot run), ``--no-judge``, or neither: run it when aces.yml configures it and it can."""


@dataclass(frozen=True)
class ScanFlags:
    """What a caller gave a scan (``aces-ci scan``'s flags, or ``ci``'s scan flags)."""

    path: Path = Path(".")
    profile: Given[Profile] = NOT_GIVEN
    min_score: Given[int] = NOT_GIVEN
    baseline: Given[Path] = NOT_GIVEN
    write_baseline: Path | None = None
    """The scan accepts its findings into this file; a configured baseline not yet written is then not applied."""
    judge: JudgeWish = "when-configured"
    jobs: int | None = None
    """Worker processes; None: one per CPU."""
    shard: Shard | None = None
    cache_dir: Given[Path | None] = NOT_GIVEN
    """None given: no result cache (``--no-cache``); not given: the default place for the scanned root."""


@dataclass(frozen=True)
class ScanRunConfig:
    """Everything one scan runs with: aces.yml's ``scan:`` with the flags applied, the judge, the workers, the cache."""

    path: Path
    settings: ScanConfig
    judge: ModelSettings
    """aces.yml ``judge:`` as written; :attr:`judge_wish` and the environment decide whether it runs."""
    judge_wish: JudgeWish
    jobs: int | None
    shard: Shard | None
    cache_dir: Given[Path | None]


def resolve_scan(config: AcesConfig, flags: ScanFlags) -> ScanRunConfig:
    """``flags`` over aces.yml ``scan:`` over the scan's defaults."""
    scan = config.scan
    scan = replace(
        scan,
        profile=given_or(flags.profile, scan.profile),
        min_score=given_or(flags.min_score, scan.min_score),
        baseline=given_or(flags.baseline, scan.baseline),
    )
    if flags.write_baseline is not None and scan.baseline is not None and not scan.baseline.exists():
        # First run of a configured baseline: there is nothing to apply yet, only a file to create.
        scan = replace(scan, baseline=None)
    return ScanRunConfig(
        path=flags.path,
        settings=scan,
        judge=config.judge,
        judge_wish=flags.judge,
        jobs=flags.jobs,
        shard=flags.shard,
        cache_dir=flags.cache_dir,
    )
