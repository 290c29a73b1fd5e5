"""The built-in rules: one module per family, each exposing ``RULES``, gathered into one registry.

The registry is assembled here explicitly, never by import side effects, so the set of rules a
scan runs is visible in one place and a family cannot register itself twice.

=========  =====================================================================
family     what it checks
=========  =====================================================================
PARSE      what the skill parser could not read (encoding, frontmatter YAML)
SPEC       the agentskills.io frontmatter fields (``name``, ``description``, …)
STRUCT     the body: size, headings, progressive disclosure
REF        links and file mentions that must resolve inside the skill
SCRIPT     bundled scripts: syntax, shebangs, permissions
SEC        secrets, hidden Unicode, dangerous instructions; data flow, destruction, supply chain
EVAL       ``evals/evals.json``: can it support a lift claim?
DISC       across skills: the host's listing budget, siblings claiming the same requests
ACES       the runner's own findings: internal errors, broken suppressions
=========  =====================================================================
"""

from __future__ import annotations

from .._registry import RuleRegistry


def default_registry() -> RuleRegistry:
    """Every built-in rule, the runner's own ``ACES`` rules included.

    The families are imported here rather than at the top so that importing one family module
    (as its tests do) does not load the others.
    """
    from .._internal_rules import INTERNAL_RULES
    from . import discovery, evalset, parse, ref, script, sec, secflow, spec, struct, supply

    return RuleRegistry(
        [
            *parse.RULES,
            *spec.RULES,
            *struct.RULES,
            *ref.RULES,
            *script.RULES,
            *sec.RULES,
            *secflow.RULES,
            *supply.RULES,
            *evalset.RULES,
            *discovery.RULES,
            *INTERNAL_RULES,
        ]
    )
