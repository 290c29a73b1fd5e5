"""The project's settings: aces.yml as written, and the one resolved config each run uses.

* :mod:`._file` reads aces.yml (bounded, schema-checked, keys refused) into :class:`AcesConfig`,
  whose ``*Settings`` sections say what the file wrote and leave ``None`` where it is silent; a
  process parses one aces.yml once.
* :mod:`._given` holds what a caller gave (:class:`RunFlags`, :class:`TrialFlags`,
  :class:`ValueFlags`, :class:`JudgeFlags`), with :data:`NOT_GIVEN` for a flag not passed.
* :mod:`._ci` holds ``aces-ci ci``'s :class:`CiConfig` and resolves its gate bands.
* :mod:`._scan` resolves a scan's :class:`ScanFlags` into :class:`ScanRunConfig` (no live tier).
* :mod:`._resolve` and :mod:`._value` decide each setting once: given, over aces.yml, over the
  default, into the frozen :class:`RunConfig`, :class:`TrialConfig` and :class:`ValueConfig`.
"""

import importlib
from typing import TYPE_CHECKING, Any

from ..models import ModelSettings, Price
from ._ci import (
    CI_MODES,
    DEFAULT_RESULTS_BRANCH,
    DEFAULT_TRIAL_LABEL,
    CiConfig,
    CiMode,
    CiReports,
    GateFlags,
    GitHubOutput,
    resolve_bands,
)
from ._file import (
    CONFIG_NAMES,
    AcesConfig,
    CompressSettings,
    EvalSettings,
    Project,
    RunSettings,
    TrialSettings,
    ValueSettings,
    find_config,
    find_project,
    load_config,
    repository_root,
)
from ._given import (
    NOT_GIVEN,
    Given,
    JudgeFlags,
    NotGiven,
    RunFlags,
    TrialFlags,
    TrialReports,
    ValueFlags,
    given,
    given_or,
)
from ._scan import JudgeWish, ScanFlags, ScanRunConfig, resolve_scan

if TYPE_CHECKING:
    from ._resolve import (
        RunConfig,
        TrialConfig,
        TriggerOptions,
        resolve_run,
        resolve_trial,
    )
    from ._value import ValueConfig, resolve_value

_LAZY = {
    **dict.fromkeys(
        (
            "RunConfig",
            "TrialConfig",
            "TriggerOptions",
            "resolve_run",
            "resolve_trial",
        ),
        "._resolve",
    ),
    **dict.fromkeys(("ValueConfig", "resolve_value"), "._value"),
}
"""Names whose modules import the live tier (agents, engine, trials, skillsv): a scan reads aces.yml without it."""


def __getattr__(name: str) -> Any:
    """Import the resolvers (and the live tier under them) only when a verb that runs rollouts asks for them."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CI_MODES",
    "CONFIG_NAMES",
    "DEFAULT_RESULTS_BRANCH",
    "DEFAULT_TRIAL_LABEL",
    "NOT_GIVEN",
    "AcesConfig",
    "CiConfig",
    "CiMode",
    "CiReports",
    "CompressSettings",
    "EvalSettings",
    "GateFlags",
    "GitHubOutput",
    "Given",
    "JudgeFlags",
    "JudgeWish",
    "ModelSettings",
    "NotGiven",
    "Price",
    "Project",
    "RunConfig",
    "RunFlags",
    "RunSettings",
    "ScanFlags",
    "ScanRunConfig",
    "TrialConfig",
    "TrialFlags",
    "TrialReports",
    "TrialSettings",
    "TriggerOptions",
    "ValueConfig",
    "ValueFlags",
    "ValueSettings",
    "find_config",
    "find_project",
    "given",
    "given_or",
    "load_config",
    "repository_root",
    "resolve_bands",
    "resolve_run",
    "resolve_scan",
    "resolve_trial",
    "resolve_value",
]
