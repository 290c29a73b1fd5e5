"""``aces-ci rules``: list every scan rule, or print one rule's full documentation.

The text printed for a rule is the rule's own docstring and fix hint, the same text SARIF and
the docs use, so what the user reads cannot drift from what the code checks. ``--markdown``
prints the reference page ``docs/rules.md``, which every finding links to (``Rule.help_uri``);
the checked-in page is that output, and a test keeps it current.
"""

from __future__ import annotations

import argparse
import difflib
import re

from tabulate import tabulate

from ..errors import EXIT_PASS, InputError
from ..scan import Rule, RuleRegistry
from ..scan.rules import default_registry


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "rules",
        help="list the scan rules, or show one rule's documentation",
        description="Without RULE: a table of every rule. With RULE (an id such as SPEC001, or a name such as "
        "name-format): its documentation, fix and default severity.",
    )
    parser.add_argument("rule", nargs="?", metavar="RULE", help="rule id or name")
    parser.add_argument(
        "--markdown",
        action="store_true",
        help="print the reference of every rule as Markdown (the page docs/rules.md is generated from)",
    )
    parser.set_defaults(run=run)


def rules_table(registry: RuleRegistry) -> str:
    rows = [(rule.id, rule.severity.value, rule.family, rule.name, rule.summary) for rule in registry]
    return tabulate(rows, headers=("id", "severity", "family", "name", "summary"), tablefmt="simple")


def find_rule(registry: RuleRegistry, wanted: str) -> Rule:
    """The rule with id or name ``wanted``; an :class:`InputError` suggesting close ids otherwise."""
    if wanted in registry:
        return registry.get(wanted)
    by_name = {rule.name: rule for rule in registry}
    if wanted.lower() in by_name:
        return by_name[wanted.lower()]
    ids = [rule.id for rule in registry]
    close = difflib.get_close_matches(wanted.upper(), ids, n=3, cutoff=0.6)
    close += [by_name[name].id for name in difflib.get_close_matches(wanted.lower(), list(by_name), n=3, cutoff=0.6)]
    suggestion = f"did you mean {', '.join(dict.fromkeys(close))}? " if close else ""
    raise InputError(f"unknown rule '{wanted}'; {suggestion}`aces-ci rules` lists every rule")


def describe_rule(rule: Rule) -> str:
    lines = [
        f"{rule.id}  {rule.name}",
        "",
        rule.summary,
        "",
        f"family:    {rule.family}",
        f"severity:  {rule.severity.value} by default (change it in aces.yml: scan.rules: {{{rule.id}: note}})",
        f"weight:    {rule.weight} score point{'' if rule.weight == 1 else 's'} per finding",
        f"docs:      {rule.help_uri()}",
        "",
        rule.doc,
        "",
        f"Fix: {rule.fix}",
    ]
    return "\n".join(lines)


REGENERATE = "aces-ci rules --markdown > docs/rules.md"


def rules_markdown(registry: RuleRegistry) -> str:
    """The reference page: a table of every rule, then each rule under a heading that is its id.

    The heading is the bare id, so its anchor is the lower-cased id that ``Rule.help_uri`` links to.
    """
    lines = [
        "# Scan rules",
        "",
        f"<!-- Generated from the rule registry by `{REGENERATE}`: edit the rules' docstrings, not this page. -->",
        "",
        f"{len(registry)} rules in {len(registry.families())} families. Every finding of `aces-ci scan` links to its "
        "rule here (the Markdown report, SARIF's `helpUri`, `aces-ci rules RULE`). The severity is the default; "
        "aces.yml changes it or turns the rule off (`scan.rules: {SPEC009: note, STRUCT002: off}`), and an "
        "inline comment `<!-- aces-ci: ignore RULE reason -->` accepts one finding.",
        "",
        "| id | severity | name | summary |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| [{rule.id}](#{rule.id.lower()}) | {rule.severity.value} | `{rule.name}` | {_cell(rule.summary)} |"
        for rule in registry
    ]
    for family in registry.families():
        lines += ["", f"## {family} rules"]
        for rule in (rule for rule in registry if rule.family == family):
            points = f"{rule.weight} score point{'' if rule.weight == 1 else 's'} per finding"
            lines += [
                "",
                f"### {rule.id}",
                "",
                f"**`{rule.name}`** · {rule.severity.value} by default · {points}",
                "",
                rule.summary,
                "",
                _markdown(rule.doc),
                "",
                f"**Fix:** {rule.fix}",
            ]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _markdown(doc: str) -> str:
    """A rule docstring as Markdown: its reST ``PASS::`` markers lose one colon (the indented block stays code)."""
    return re.sub(r"::$", ":", doc, flags=re.MULTILINE)


def run(args: argparse.Namespace) -> int:
    registry = default_registry()
    if args.markdown:
        if args.rule is not None:
            raise InputError("--markdown prints every rule; leave out RULE")
        print(rules_markdown(registry), end="")
    elif args.rule is None:
        print(rules_table(registry))
    else:
        print(describe_rule(find_rule(registry, args.rule)))
    return EXIT_PASS
