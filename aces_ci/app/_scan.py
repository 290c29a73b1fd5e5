"""``app.scan``: the static tier on one path, from a resolved :class:`~aces_ci.config.ScanRunConfig`.

What ``aces-ci scan`` and ``aces-ci ci`` both run: which root the scan reports from (the directory
of an aces.yml above the path, so its patterns and every reported path read from one root), where
the result cache lives (never inside a lone skill, whose files it would become), whether the LLM
judge may run here, and the worker count. Nothing printed: the notes come back with the result.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ..config import Project, ScanFlags, ScanRunConfig, find_project, resolve_scan
from ..models import ModelSettings
from ..scan import (
    DEFAULT_CACHE_DIR,
    ResultCache,
    RuleRegistry,
    ScanResult,
    judge_unavailable,
    scan_repo,
    user_cache_dir,
)
from ..skill import LOWERCASE_SKILL_FILE, SKILL_FILE


@dataclass(frozen=True)
class ScanOutcome:
    """A scan's result, the root its paths are relative to, the cache it used, and what the caller should be told."""

    result: ScanResult
    root: Path
    cache: ResultCache | None
    """Its ``stats`` say how many skills were reused, scanned, or could not be stored."""
    notes: tuple[str, ...]
    """Why the LLM judge was skipped, when it was."""


def available_cpus() -> int:
    """CPUs this process may run on (a container's limit, not the host's count)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _scan_root(path: Path, project: Project) -> Path:
    """The root whose paths the scan reports: the directory of an aces.yml above PATH, else PATH itself."""
    target = (path.parent if path.is_file() else path).resolve()
    if project.config_dir is not None and target != project.config_dir and target.is_relative_to(project.config_dir):
        return project.config_dir
    return target


def _result_cache(config: ScanRunConfig, scan_root: Path) -> ResultCache | None:
    if config.cache_dir is None:
        return None
    if isinstance(config.cache_dir, Path):
        return ResultCache(config.cache_dir)
    if (scan_root / SKILL_FILE).exists() or (scan_root / LOWERCASE_SKILL_FILE).exists():
        # A lone skill: a cache inside it would become one of its files (and be staged into rollouts).
        return ResultCache(user_cache_dir())
    return ResultCache(scan_root / DEFAULT_CACHE_DIR)


def _judge_settings(config: ScanRunConfig) -> tuple[ModelSettings | None, str | None]:
    """The judge's model when it is to run (when asked, or when aces.yml configures it and it can run here), else
    why not.

    Never in a GitHub Actions step whose checkout is not trusted (``pull_request_target``, a fork's code:
    :func:`aces_ci.github.actions_trust`): the judge's ``base_url`` is the checked-out aces.yml's to choose.
    """
    if config.judge_wish == "off" or (config.judge_wish == "when-configured" and not config.judge.provider):
        return None, None
    from ..github import actions_trust  # only when a judge would run: the GitHub room brings httpx

    trust = actions_trust(os.environ, config.path)
    if not trust.trusted:
        return None, f"LLM judge skipped: {trust.reason}"
    if config.judge_wish == "insist":
        return config.judge, None
    reason = judge_unavailable(config.judge)
    if reason is not None:
        return None, f"LLM judge skipped: {reason}"
    return config.judge, None


def scan(config: ScanRunConfig, registry: RuleRegistry, project: Project) -> ScanOutcome:
    """The scan ``config`` asks for in ``project``: the result, its root, the cache and the notes."""
    path = config.path
    scan_root = _scan_root(path, project) if path.exists() else path
    cache = _result_cache(config, scan_root)
    judge, note = _judge_settings(config)
    result = scan_repo(
        scan_root,
        config.settings,
        registry,
        judge=judge,
        jobs=config.jobs if config.jobs is not None else available_cpus(),
        cache=cache,
        within=None if scan_root == path else path,
        shard=config.shard,
    )
    return ScanOutcome(result, scan_root, cache, () if note is None else (note,))


class ScanRequest(NamedTuple):
    """A scan ready to run: its project and the one resolved config."""

    project: Project
    config: ScanRunConfig


def scan_request(settings: ScanFlags, config_file: str | os.PathLike[str] | None = None) -> ScanRequest:
    """The project of ``settings.path`` (its aces.yml, or ``config_file``) and the scan config resolved from it."""
    project = find_project(settings.path, None if config_file is None else Path(config_file))
    return ScanRequest(project, resolve_scan(project.config, settings))
