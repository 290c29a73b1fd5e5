"""What ``aces-ci ci`` does with a checked-out tree it may not trust (:mod:`aces_ci.github._trust`).

The static scan reads files and runs nothing from them, so it still runs and the comment still
shows it. Everything else is turned off before it could start: the plan becomes a scan (no paid
work), the LLM judge is off even when aces.yml configures it or ``--judge`` asks for it (its
``base_url`` is the tree's to choose), and the model keys leave this process's environment, so no
later step of the run — nor any process it starts — can hand one to an endpoint the tree names.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from dataclasses import replace

from ..config import CiConfig
from ..github import CodeTrust, GitHubContext, Plan, checked_out_commit, code_trust, say
from ..models import API_KEY_ENV


def withhold_model_keys(environ: MutableMapping[str, str]) -> tuple[str, ...]:
    """Remove every model API key from ``environ``; the names of those that were set."""
    removed = []
    for name in sorted(set(API_KEY_ENV.values())):
        if environ.pop(name, None) is not None:
            removed.append(name)
    return tuple(removed)


def guard_untrusted(context: GitHubContext, plan: Plan, config: CiConfig) -> tuple[Plan, CiConfig, CodeTrust]:
    """The plan and config this run may use with its checked-out tree (unchanged when the tree is trusted)."""
    trust = code_trust(context, checked_out_commit(config.path.resolve()))
    if trust.trusted:
        return plan, config, trust
    withheld = withhold_model_keys(os.environ)
    say(f"untrusted checkout: {trust.reason} Static scan only; model keys withheld: {', '.join(withheld) or 'none'}")
    reason = plan.reason if plan.work == "scan" else f"{plan.reason} — refused: static scan only"
    safe = replace(plan, work="scan", reason=reason, notes=(*plan.notes, trust.note))
    return safe, config.scan_only(), trust
