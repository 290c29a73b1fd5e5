"""aces-ci: a CI gate for agent skills, and the same functions for Python callers.

The static tier (:mod:`aces_ci.scan`) checks every skill on every push; the live tier
(:mod:`aces_ci.agents`, :mod:`aces_ci.engine`) runs the same tasks with and without a skill.

The names below are the ones ``aces-ci``'s verbs call (:mod:`aces_ci.app`): a notebook, a pytest plugin
or another CI system gets the CLI's results as typed, frozen models without shelling out::

    from aces_ci import RunFlags, TrialFlags, trial

    result = trial("skills/report-writer", settings=TrialFlags(run=RunFlags(model="claude-sonnet-4-5", runs=3)))
    for skill in result.skills:
        print(skill.skill, skill.verdict, skill.lift["outcome"])

``scan_skills`` is the static tier (``aces-ci scan``); it is not called ``scan`` because
``aces_ci.scan`` is the package of rules, and a submodule's name on a package wins over the face's.
Settings left unset come from aces.yml (found above the skill), then the defaults, as on the command line.
The face is lazy (PEP 562): ``import aces_ci`` — which every ``aces_ci.*`` import runs first — loads
nothing until a name is used, so ``aces-ci scan`` still starts without numpy or httpx.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .app import PathLike, load_skill
    from .app import compile as compile_skill
    from .app import run_scan as scan_skills
    from .app import run_trial as trial
    from .app import run_value as value
    from .config import NOT_GIVEN, JudgeFlags, RunFlags, ScanFlags, TrialFlags, ValueFlags
    from .errors import AcesError, ConfigError, InfraError, InputError
    from .scan import ScanResult
    from .skill import Skill
    from .skillsv import CompiledSkill, ValueReport
    from .trials import SkillTrialResult, TrialResult

_FACE: dict[str, tuple[str, str]] = {
    "scan_skills": ("app", "run_scan"),
    "trial": ("app", "run_trial"),
    "value": ("app", "run_value"),
    "compile_skill": ("app", "compile"),
    "load_skill": ("app", "load_skill"),
    "PathLike": ("app", "PathLike"),
    "ScanFlags": ("config", "ScanFlags"),
    "TrialFlags": ("config", "TrialFlags"),
    "ValueFlags": ("config", "ValueFlags"),
    "RunFlags": ("config", "RunFlags"),
    "JudgeFlags": ("config", "JudgeFlags"),
    "NOT_GIVEN": ("config", "NOT_GIVEN"),
    "ScanResult": ("scan", "ScanResult"),
    "TrialResult": ("trials", "TrialResult"),
    "SkillTrialResult": ("trials", "SkillTrialResult"),
    "ValueReport": ("skillsv", "ValueReport"),
    "CompiledSkill": ("skillsv", "CompiledSkill"),
    "Skill": ("skill", "Skill"),
    "AcesError": ("errors", "AcesError"),
    "InputError": ("errors", "InputError"),
    "ConfigError": ("errors", "ConfigError"),
    "InfraError": ("errors", "InfraError"),
}
"""Each public name → (the room that holds it, its name there); imported on first use."""


def __getattr__(name: str) -> Any:
    """Import a public name's room only when the name is used (PEP 562)."""
    if name in _FACE:
        room, attribute = _FACE[name]
        value = getattr(importlib.import_module(f"{__name__}.{room}"), attribute)
        globals()[name] = value  # the next lookup is a plain attribute
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_FACE})


__all__ = [
    "NOT_GIVEN",
    "AcesError",
    "CompiledSkill",
    "ConfigError",
    "InfraError",
    "InputError",
    "JudgeFlags",
    "PathLike",
    "RunFlags",
    "ScanFlags",
    "ScanResult",
    "Skill",
    "SkillTrialResult",
    "TrialFlags",
    "TrialResult",
    "ValueFlags",
    "ValueReport",
    "__version__",
    "compile_skill",
    "load_skill",
    "scan_skills",
    "trial",
    "value",
]
