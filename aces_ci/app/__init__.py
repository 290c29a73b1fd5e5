"""The application: what each verb does, from a resolved config to a result model, with no printing.

``commands/`` parses flags, resolves the config (:mod:`aces_ci.config`), calls a function here and
renders what it returns; ``ci``'s paid paths call the same functions, so a release's trial is the
one ``aces-ci trial`` runs on the same settings. Nothing here sees an ``argparse.Namespace``.

* :func:`trial`, :func:`trial_plan`, :func:`triggers` — paired trials, their design from a pilot,
  and the trigger trial (:mod:`._trial`, with :mod:`._inputs`, :mod:`._engine`, :mod:`._judge`,
  :mod:`._plan`, :mod:`._triggers`).
* :func:`value`, :func:`value_plan` — SkillSV on the live agent or a Python oracle (:mod:`._value`,
  :mod:`._value_live`).
* :func:`rollout` — one skill's cases in one or both arms, no verdict (:mod:`._rollout`);
  :func:`compile` — SkillSV's game of a skill, no model run (:mod:`._compile`).
"""

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
    "SkillSources",
    "ValuePlan",
    "build_requests",
    "compile",
    "load_cases",
    "rollout",
    "rollout_cases",
    "trial",
    "trial_plan",
    "triggers",
    "value",
    "value_plan",
]
