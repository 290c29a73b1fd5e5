"""The application: what each verb does, from a resolved config to a result model, with no printing.

``commands/`` parses flags, resolves the config (:mod:`aces_ci.config`), calls a function here and
renders what it returns; ``ci``'s paid paths call the same functions, so a release's trial is the
one ``aces-ci trial`` runs on the same settings. Nothing here sees an ``argparse.Namespace``.

* :func:`trial`, :func:`trial_plan`, :func:`triggers` — paired trials, their design from a pilot,
  and the trigger trial (:mod:`._trial`, with :mod:`._inputs`, :mod:`._engine`, :mod:`._judge`,
  :mod:`._plan`, :mod:`._triggers`).
* :func:`value`, :func:`value_plan` — SkillSV on the live agent or a Python oracle (:mod:`._value`,
  :mod:`._value_live`).
* :func:`run_trial`, :func:`run_value`, :func:`load_skill` — the same from plain paths and the settings a caller
  gave, what :mod:`aces_ci`'s face exports; :func:`trial_request`/:func:`value_request` resolve them as the
  CLI does (:mod:`._api`).
* :func:`rollout` — one skill's cases in one or both arms, no verdict (:mod:`._rollout`);
  :func:`compile` — SkillSV's game of a skill, no model run (:mod:`._compile`).
"""

from ._api import PathLike, TrialRequest, ValueRequest, load_skill, run_trial, run_value, trial_request, value_request
from ._compile import compile
from ._inputs import SkillSources, load_cases
from ._rollout import ARMS, Arm, build_requests, rollout, rollout_cases
from ._trial import trial, trial_plan, triggers
from ._triggers import HOSTS
from ._value import MAX_EXACT_UNITS, ValuePlan, value, value_plan

__all__ = [
    "ARMS",
    "HOSTS",
    "MAX_EXACT_UNITS",
    "Arm",
    "PathLike",
    "SkillSources",
    "TrialRequest",
    "ValuePlan",
    "ValueRequest",
    "build_requests",
    "compile",
    "load_cases",
    "load_skill",
    "rollout",
    "rollout_cases",
    "run_trial",
    "run_value",
    "trial",
    "trial_plan",
    "trial_request",
    "triggers",
    "value",
    "value_plan",
    "value_request",
]
