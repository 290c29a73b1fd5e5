"""The application: what each verb does, from a resolved config to a result model, with no printing.

``commands/`` parses flags, resolves the config (:mod:`aces_ci.config`), calls a function here and
renders what it returns; ``ci``'s paid paths call the same functions, so a release's trial is the
one ``aces-ci trial`` runs on the same settings. Nothing here sees an ``argparse.Namespace``.

* :func:`ci` — one ``aces-ci ci`` workflow step from the event and a :class:`~aces_ci.config.CiConfig`
  to a :class:`CiOutcome` (:mod:`._ci`; its paid paths :mod:`._ci_paid` and :mod:`._ci_value`, the
  approved trial :mod:`._ci_approved`, the trust guard :mod:`._ci_trust`, reports and comment
  inputs :mod:`._ci_results`).
* :func:`scan` — the static tier on one path, with its root, result cache and judge decided
  (:mod:`._scan`).
* :func:`trial`, :func:`trial_plan`, :func:`triggers` — paired trials, their design from a pilot,
  and the trigger trial (:mod:`._trial`, with :mod:`._inputs`, :mod:`._engine`, :mod:`._judge`,
  :mod:`._plan`, :mod:`._triggers`).
* :func:`value`, :func:`value_plan` — SkillSV on the live agent or a Python oracle (:mod:`._value`,
  :mod:`._value_live`).

Names load on first use (PEP 562): a scan imports :mod:`._scan` and none of the live tier.
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._ci import CiOutcome, ci
    from ._inputs import SkillSources, load_cases
    from ._scan import ScanOutcome, available_cpus, scan
    from ._trial import trial, trial_plan, triggers
    from ._triggers import HOSTS
    from ._value import MAX_EXACT_UNITS, ValuePlan, value, value_plan

_MODULES = {
    **dict.fromkeys(("CiOutcome", "ci"), "._ci"),
    **dict.fromkeys(("SkillSources", "load_cases"), "._inputs"),
    **dict.fromkeys(("ScanOutcome", "available_cpus", "scan"), "._scan"),
    **dict.fromkeys(("trial", "trial_plan", "triggers"), "._trial"),
    "HOSTS": "._triggers",
    **dict.fromkeys(("MAX_EXACT_UNITS", "ValuePlan", "value", "value_plan"), "._value"),
}
"""Where each public name lives, imported when first asked for."""


def __getattr__(name: str) -> Any:
    """Import the module holding ``name`` (and only it) when a caller first asks for it."""
    if name in _MODULES:
        return getattr(importlib.import_module(_MODULES[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "HOSTS",
    "MAX_EXACT_UNITS",
    "CiOutcome",
    "ScanOutcome",
    "SkillSources",
    "ValuePlan",
    "available_cpus",
    "ci",
    "load_cases",
    "scan",
    "trial",
    "trial_plan",
    "triggers",
    "value",
    "value_plan",
]
