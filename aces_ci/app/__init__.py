"""The application: what each verb does, from a resolved config to a result model, with no printing.

``commands/`` parses flags, resolves the config (:mod:`aces_ci.config`), calls a function here and
renders what it returns; ``ci``'s paid paths call the same functions, so a release's trial is the
one ``aces-ci trial`` runs on the same settings. Nothing here sees an ``argparse.Namespace``.

* :func:`ci` — one ``aces-ci ci`` workflow step from the event and a :class:`~aces_ci.config.CiConfig`
  to a :class:`CiOutcome` (:mod:`._ci`; its paid paths :mod:`._ci_paid` and :mod:`._ci_value`, the
  approved trial :mod:`._ci_approved`, the trust guard :mod:`._ci_trust`, reports and comment
  inputs :mod:`._ci_results`, a paid run over a workflow matrix :mod:`._ci_shard`).
* :func:`scan` — the static tier on one path, with its root, result cache and judge decided
  (:mod:`._scan`).
* :func:`trial`, :func:`trial_plan`, :func:`triggers` — paired trials, their design from a pilot,
  and the trigger trial (:mod:`._trial`, with :mod:`._inputs`, :mod:`._engine`, :mod:`._judge`,
  :mod:`._plan`, :mod:`._triggers`); :func:`trial_part` one shard of a trial over a workflow matrix
  (:mod:`._trial_part`), :func:`merge_trial` the trial replayed over every shard's part (:mod:`._merge_trial`).
* :func:`value`, :func:`value_plan` — SkillSV on the live agent or a Python oracle (:mod:`._value`,
  :mod:`._value_live`); :func:`value_shard` — one shard's share of its scores (:mod:`._value_shard`),
  :func:`merge_value` — the shards' parts replayed into the valuation (:mod:`._merge_value`).
* :func:`run_trial`, :func:`run_value`, :func:`load_skill` — the same from plain paths and the settings a caller
  gave, what :mod:`aces_ci`'s face exports; :func:`trial_request`/:func:`value_request` resolve them as the
  CLI does (:mod:`._api`).
* :func:`rollout` — one skill's cases in one or both arms, no verdict (:mod:`._rollout`);
  :func:`compile` — SkillSV's game of a skill, no model run (:mod:`._compile`).
* :func:`compress` — a shorter skill from SkillSV's decisions, verified on held-out cases
  (:mod:`._compress`; :func:`compress_request` resolves it, :func:`write_proposal` writes the accepted one).

Names load on first use (PEP 562): a scan imports :mod:`._scan` and none of the live tier.
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._api import (
        PathLike,
        TrialRequest,
        ValueRequest,
        load_skill,
        run_trial,
        run_value,
        trial_request,
        value_request,
    )
    from ._ci import CiOutcome, ci
    from ._compile import compile
    from ._compress import (
        CompressConfig,
        CompressFlags,
        EditorFlags,
        check_out,
        compress,
        compress_request,
        write_proposal,
    )
    from ._inputs import SkillSources, load_cases
    from ._merge_trial import merge_trial, read_part
    from ._merge_value import merge_value
    from ._rollout import ARMS, Arm, build_requests, rollout, rollout_cases
    from ._rollout_cache import export_cache, import_cache
    from ._scan import ScanOutcome, ScanRequest, available_cpus, scan, scan_request
    from ._trial import trial, trial_plan, triggers
    from ._trial_part import shard_ending, trial_part
    from ._triggers import HOSTS
    from ._value import MAX_EXACT_UNITS, ValuePlan, value, value_plan
    from ._value_shard import value_shard

_MODULES = {
    **dict.fromkeys(
        (
            "PathLike",
            "TrialRequest",
            "ValueRequest",
            "load_skill",
            "run_scan",
            "run_scan",
            "run_trial",
            "run_value",
            "trial_request",
            "value_request",
        ),
        "._api",
    ),
    **dict.fromkeys(("CiOutcome", "ci"), "._ci"),
    "compile": "._compile",
    **dict.fromkeys(
        (
            "CompressConfig",
            "CompressFlags",
            "EditorFlags",
            "check_out",
            "compress",
            "compress_request",
            "write_proposal",
        ),
        "._compress",
    ),
    **dict.fromkeys(("SkillSources", "load_cases"), "._inputs"),
    **dict.fromkeys(("export_cache", "import_cache"), "._rollout_cache"),
    **dict.fromkeys(("ARMS", "Arm", "build_requests", "rollout", "rollout_cases"), "._rollout"),
    **dict.fromkeys(("ScanOutcome", "ScanRequest", "available_cpus", "scan", "scan_request"), "._scan"),
    **dict.fromkeys(("trial", "trial_plan", "triggers"), "._trial"),
    "trial_part": "._trial_part",
    "shard_ending": "._trial_part",
    **dict.fromkeys(("merge_trial", "read_part"), "._merge_trial"),
    "HOSTS": "._triggers",
    **dict.fromkeys(("MAX_EXACT_UNITS", "ValuePlan", "value", "value_plan"), "._value"),
    "value_shard": "._value_shard",
    "merge_value": "._merge_value",
}
"""Where each public name lives, imported when first asked for."""


def __getattr__(name: str) -> Any:
    """Import the module holding ``name`` (and only it) when a caller first asks for it."""
    if name in _MODULES:
        return getattr(importlib.import_module(_MODULES[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ARMS",
    "HOSTS",
    "MAX_EXACT_UNITS",
    "Arm",
    "CiOutcome",
    "CompressConfig",
    "CompressFlags",
    "EditorFlags",
    "PathLike",
    "ScanOutcome",
    "ScanRequest",
    "SkillSources",
    "TrialRequest",
    "ValuePlan",
    "ValueRequest",
    "available_cpus",
    "build_requests",
    "check_out",
    "ci",
    "compile",
    "compress",
    "compress_request",
    "export_cache",
    "import_cache",
    "load_cases",
    "load_skill",
    "merge_trial",
    "merge_value",
    "read_part",
    "rollout",
    "rollout_cases",
    "run_trial",
    "run_value",
    "scan",
    "scan_request",
    "shard_ending",
    "trial",
    "trial_part",
    "trial_plan",
    "trial_request",
    "triggers",
    "value",
    "value_plan",
    "value_request",
    "value_shard",
    "write_proposal",
]
