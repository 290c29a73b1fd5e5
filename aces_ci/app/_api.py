"""The application from plain paths and the settings a caller gave: what ``aces_ci.trial()`` and the CLI share.

A Python caller (a notebook, a pytest plugin, another CI system) names skill folders and, optionally,
the settings it wants (:class:`~aces_ci.config.TrialFlags`, :class:`~aces_ci.config.ValueFlags`:
every setting left :data:`~aces_ci.config.NOT_GIVEN` falls to aces.yml, then the default) and an
aces.yml to use instead of the one found above the skill. :func:`trial_request` and
:func:`value_request` find the project and resolve the one config exactly as ``aces-ci trial`` and
``aces-ci value`` do — the commands call them too — and :func:`run_trial`/:func:`run_value` then
call :func:`~aces_ci.app.trial`/:func:`~aces_ci.app.value`, the functions ``ci`` calls.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple, TypeAlias

from ..config import (
    Project,
    ScanFlags,
    TrialConfig,
    TrialFlags,
    ValueConfig,
    ValueFlags,
    find_project,
    repository_root,
)
from ..config import resolve_trial as _resolve_trial
from ..config import resolve_value as _resolve_value
from ..errors import InputError
from ..scan import ScanResult, default_registry
from ..skill import Skill
from ..skill import load_skill as _load_skill
from ..skillsv import ValueReport
from ..trials import TrialResult
from ._scan import scan, scan_request
from ._trial import trial
from ._value import value

PathLike: TypeAlias = str | os.PathLike[str]
"""A path as a caller may give it: a string or a :class:`~pathlib.Path`."""


class TrialRequest(NamedTuple):
    """A trial ready to run: its skill folders, their project and the one resolved config."""

    skill_dirs: list[Path]
    project: Project
    config: TrialConfig


class ValueRequest(NamedTuple):
    """A valuation ready to run: its skill folder (resolved), its project and the one resolved config."""

    skill_dir: Path
    project: Project
    config: ValueConfig


def _paths(skills: PathLike | Sequence[PathLike]) -> list[Path]:
    """One path or several, as paths; at least one (InputError otherwise)."""
    if isinstance(skills, (str, os.PathLike)):
        return [Path(skills)]
    paths = [Path(skill) for skill in skills]
    if not paths:
        raise InputError("name at least one skill folder to trial")
    return paths


def trial_request(
    skills: PathLike | Sequence[PathLike], settings: TrialFlags | None = None, config_file: PathLike | None = None
) -> TrialRequest:
    """The project of the first skill (its aces.yml, or ``config_file``) and the trial config resolved from it."""
    skill_dirs = _paths(skills)
    project = find_project(skill_dirs[0].resolve(), None if config_file is None else Path(config_file))
    return TrialRequest(skill_dirs, project, _resolve_trial(project.config, settings or TrialFlags()))


def value_request(
    skill: PathLike, settings: ValueFlags | None = None, config_file: PathLike | None = None
) -> ValueRequest:
    """The skill's project (its aces.yml, or ``config_file``) and the valuation config resolved from it."""
    skill_dir = Path(skill).resolve()
    project = find_project(skill_dir, None if config_file is None else Path(config_file))
    return ValueRequest(skill_dir, project, _resolve_value(project.config, settings or ValueFlags(), skill_dir))


def run_scan(
    path: PathLike = ".", *, settings: ScanFlags | None = None, config_file: PathLike | None = None
) -> ScanResult:
    """Scan every skill under ``path`` with the static tier's rules: findings, structural score and verdict per skill.

    ``settings`` are what ``aces-ci scan``'s flags give (profile, minimum score, baseline, judge, workers,
    result cache; its ``path`` is replaced by ``path``); unset ones come from aces.yml (found above ``path``,
    or ``config_file``), then the defaults. Each skill's verdict is the one the gate reads.
    """
    request = scan_request(replace(settings or ScanFlags(), path=Path(path)), config_file)
    return scan(request.config, default_registry(), request.project).result


def run_trial(
    skills: PathLike | Sequence[PathLike], *, settings: TrialFlags | None = None, config_file: PathLike | None = None
) -> TrialResult:
    """Trial ``skills`` on a live agent: each with and without it, every metric's lift with its interval, and the
    verdict the gate's bands give it.

    ``settings`` are what ``aces-ci trial``'s flags give (the model, runs, seed, bands, …); whatever is left
    unset comes from aces.yml (found above the first skill, or ``config_file``), then the defaults. Raises
    :class:`~aces_ci.errors.InputError` or :class:`~aces_ci.errors.ConfigError` before any rollout is paid.
    """
    request = trial_request(skills, settings, config_file)
    return trial(request.skill_dirs, request.project, request.config)


def run_value(
    skill: PathLike, *, settings: ValueFlags | None = None, config_file: PathLike | None = None
) -> ValueReport:
    """Value every unit of ``skill`` with SkillSV: net effect, content value and context cost, each with its
    interval and a decision (keep, delete, negligible, compress, unresolved).

    ``settings`` are what ``aces-ci value``'s flags give (the oracle, the estimator, the run); unset ones come
    from aces.yml (or ``config_file``), then the defaults. Raises :class:`~aces_ci.errors.InputError` or
    :class:`~aces_ci.errors.ConfigError` before anything is paid.
    """
    request = value_request(skill, settings, config_file)
    return value(request.skill_dir, request.project, request.config)


def load_skill(skill: PathLike) -> Skill:
    """The skill package in folder ``skill`` as the scan reads it: SKILL.md's frontmatter and body, its resources
    and any problem of the package, its paths relative to the enclosing git work tree (else the folder)."""
    skill_dir = Path(skill).resolve()
    return _load_skill(skill_dir, repository_root(skill_dir) or skill_dir)
