"""``aces-ci trial … --shard I/N --part FILE``: one matrix job's share of a trial, written as a part file.

A shard runs its (skill, case) units and writes what the merge job needs to replay the trial: the
run's identity, its units, every rollout's ungraded result (ATIF trajectory included) and grades,
and the trial's command line after ``trial`` (the merge resolves the same config from it). It
prints no verdict — one shard's cases are not the trial — and writes no report; ``aces-ci merge
part-*.json --json … --markdown …`` does. Exit 0 once the part is written, 3 when rollouts of the
shard ended as infrastructure errors or the breaker tripped (rerun the shard: its cache and
journal make it pay only those), 2 for a bad flag.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import app
from ..atomic import write_atomic
from ..config import TrialFlags
from ..errors import ConfigError
from ..redact import redacted_json
from ..trials import part_to_dict

_NOT_WITH_SHARD = ("plan", "triggers", "json", "markdown", "junit", "html")
"""Flags a shard refuses: it neither plans nor runs triggers, and the merge writes every report."""


def _invocation(args: argparse.Namespace) -> tuple[str, ...]:
    """The command line after the verb, as the user gave it: the merge job replays it."""
    argv = getattr(args, "argv", None)
    if argv is None:
        raise ConfigError("--shard is a command-line flag of `aces-ci trial`", field="--shard")
    words = list(argv)
    return tuple(words[words.index("trial") + 1 :])


def run_shard(args: argparse.Namespace, flags: TrialFlags) -> int:
    if args.shard is None or args.part is None:
        raise ConfigError("--shard I/N and --part FILE go together: a shard writes its part file", field="--shard")
    for dest in _NOT_WITH_SHARD:
        if getattr(args, dest):
            flag = f"--{dest}"
            raise ConfigError(
                f"{flag} is not for a shard: a shard writes only its part, and `aces-ci merge` writes the reports",
                field=flag,
            )
    skill_dirs, project, config = app.trial_request(args.skill_dirs, flags, args.config)
    part = app.trial_part(skill_dirs, project, config, args.shard, _invocation(args))
    write_atomic(Path(args.part), redacted_json(part_to_dict(part), ensure_ascii=False).encode("utf-8"))
    print(
        f"Shard {part.shard}: {len(part.units)} (skill, case) unit(s), {len(part.records)} rollout(s) "
        f"({part.spent.rollouts_run} run, {part.spent.rollouts_reused} reused). Part written to {args.part}; "
        "`aces-ci merge` replays the trial over every shard's part."
    )
    said, code = app.shard_ending(part)
    for line in said:
        print(f"aces-ci: {line}", file=sys.stderr)
    return code
