"""``aces-ci ci``'s config: what its flags gave, typed and frozen, and the gate's bands resolved against aces.yml.

The ci run reads aces.yml only once it knows what the event asks for (a ``workflow_run`` comment
or a skipped event needs none), so :class:`CiConfig` carries the given scan, run and gate flags,
and the run resolves them against the project it finds: the scan with :func:`resolve_scan`, the
trials and valuations with the trial and value resolvers, the bands with :func:`resolve_bands`.
Nothing below ``commands/`` sees an ``argparse.Namespace``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from ..errors import ConfigError
from ..stats import Bands
from ._file import AcesConfig
from ._given import NOT_GIVEN, Given, RunFlags, given_or
from ._scan import ScanFlags

CiMode = Literal["auto", "scan", "trial", "value", "compress", "rerun"]
"""What ``--mode`` (the Action's ``mode``) may ask for; ``auto`` leaves it to the event."""
CI_MODES: tuple[CiMode, ...] = ("auto", "scan", "trial", "value", "compress", "rerun")
DEFAULT_TRIAL_LABEL = "aces:trial"
"""The pull-request label that asks for trials."""
DEFAULT_RESULTS_BRANCH = "aces-results"
"""The branch of origin that keeps release baselines and rerun records."""


@dataclass(frozen=True)
class CiReports:
    """Where ci writes its reports: the folder (trial, trigger and value reports go in it) and each scan report's
    file (None: that report is off)."""

    folder: Path = Path("aces-reports")
    json: Path | None = Path("aces-reports/results.json")
    junit: Path | None = Path("aces-reports/junit.xml")
    sarif: Path | None = Path("aces-reports/results.sarif")
    markdown: Path | None = Path("aces-reports/comment.md")
    html: Path | None = Path("aces-reports/report.html")


@dataclass(frozen=True)
class GateFlags:
    """The gate bands a caller gave (``--pass-band``, ``--fail-band``, ``--lift-metric``) over aces.yml ``gate:``."""

    lift_metric: Given[str] = NOT_GIVEN
    pass_band: Given[float] = NOT_GIVEN
    fail_band: Given[float] = NOT_GIVEN


@dataclass(frozen=True)
class GitHubOutput:
    """Where ci publishes on GitHub besides its reports."""

    comment: bool = True
    comment_key: str | None = None
    """One sticky comment per key (a matrix job's); None: the shard's, else the one comment."""
    annotations: bool = True
    check_run: bool = False
    report_url: str | None = None
    """Where the comment's "full report" link points; None: the run's page."""


@dataclass(frozen=True)
class CiConfig:
    """One ``aces-ci ci`` run's settings, frozen: the event's work, the scan, the paid paths, the outputs."""

    path: Path = Path(".")
    mode: CiMode = "auto"
    trial_label: str = DEFAULT_TRIAL_LABEL
    config_file: Path | None = None
    """``--config``: the aces.yml to use (None: found from the path)."""
    scan: ScanFlags = field(default_factory=ScanFlags)
    reports: CiReports = field(default_factory=CiReports)
    github: GitHubOutput = field(default_factory=GitHubOutput)
    gate: GateFlags = field(default_factory=GateFlags)
    run: RunFlags = field(default_factory=RunFlags)
    """The trials' and valuations' run flags; ``cache_dir`` is the rollout cache (the scan's is in :attr:`scan`)."""
    results: Path | None = None
    """``workflow_run``: the pull request run's downloaded reports."""
    value: bool = True
    """Value a release's skills with SkillSV after their trials."""
    value_budget_usd: float | None = None
    value_holdout: float = 0.25
    results_branch: str = DEFAULT_RESULTS_BRANCH
    """Keeps release baselines and rerun records ('' turns it off)."""
    trial_parts: tuple[Path, ...] = ()
    """``--trial-parts``: the merge job of a sharded paid run (``ci --shard i/n`` wrote them); its trial is
    replayed over these parts instead of run."""

    def scan_only(self) -> CiConfig:
        """This config for a checkout it may not trust: no LLM judge, whatever aces.yml or ``--judge`` says."""
        return replace(self, scan=replace(self.scan, judge="off"))


def resolve_bands(config: AcesConfig, gate: GateFlags, *, field: str = "gate.lift") -> Bands:
    """The gate flags over aces.yml's ``gate:`` section over the defaults: the bands ``ci`` and ``trial`` read.

    Crossed bands are a ConfigError naming ``field`` (ci: ``gate.lift``; the trial verb: ``--fail-band``).
    """
    written = config.gate
    try:
        return replace(
            written,
            pass_band=given_or(gate.pass_band, written.pass_band),
            fail_band=given_or(gate.fail_band, written.fail_band),
            metric=given_or(gate.lift_metric, written.metric) or written.metric,
        )
    except ValueError as error:
        raise ConfigError(str(error), field=field) from None
