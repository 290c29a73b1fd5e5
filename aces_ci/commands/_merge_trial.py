"""``aces-ci merge part-*.json``: a sharded trial's parts, replayed into one trial result, gated and reported.

The parts carry the trial's command line (after ``trial``); the merge resolves the same config from it,
in this checkout, and :func:`aces_ci.app.merge_trial` replays the trial over the parts. The reports are
the merge's own flags (``--json --markdown --junit --html``), written as ``aces-ci trial`` writes them,
and the exit code is the trial's: 1 when a skill fails, 3 after infrastructure errors, 2 for a missing,
duplicated, foreign or incomplete part (the message names the file).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import NoReturn

from .. import app
from ..config import TrialReports
from ..errors import ConfigError, InputError
from ..report import render_trial_text, trial_warnings, write_trial_reports
from ..trials import TrialPart
from .trial import add_parser as add_trial_parser
from .trial import exit_code, trial_flags


class _Parser(argparse.ArgumentParser):
    """The trial's parser, which reports a bad recorded command line as an input error instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise InputError(f"the recorded trial command line does not parse: {message}")


def _invocation(part: TrialPart, path: Path) -> argparse.Namespace:
    if part.invocation[:1] == ("ci",):
        raise InputError(
            "a part of `aces-ci ci --shard`: merge it with `aces-ci ci --trial-parts`, which gates, comments and "
            "stores the results as the unsharded ci run would",
            path=str(path),
        )
    parser = _Parser(prog="aces-ci", add_help=False)
    add_trial_parser(parser.add_subparsers(dest="verb", parser_class=_Parser))
    try:
        args = parser.parse_args(["trial", *part.invocation])
    except (InputError, ConfigError) as exc:
        raise InputError(str(exc), path=str(path)) from None
    if args.shard is None:
        raise InputError("the recorded command line has no --shard: not a shard's part", path=str(path))
    return args


def run_trial_merge(args: argparse.Namespace) -> int:
    if args.sarif is not None:
        raise ConfigError("--sarif reports a scan; a trial's merge writes --json, --markdown, --junit, --html")
    parts = [(path, app.read_part(path)) for path in args.results]
    trial_args = _invocation(parts[0][1], parts[0][0])
    reports = TrialReports(json=args.json, markdown=args.markdown, junit=args.junit, html=args.html)
    flags = dataclasses.replace(trial_flags(trial_args), reports=reports)
    skill_dirs, project, config = app.trial_request(trial_args.skill_dirs, flags, trial_args.config)
    result = app.merge_trial(parts, skill_dirs, project, config)
    sys.stdout.write(render_trial_text(result))
    sys.stdout.flush()
    write_trial_reports(result, config.reports)
    for warning in trial_warnings(result):
        print(f"aces-ci: {warning}", file=sys.stderr)
    print(
        f"Merged {len(parts)} part(s) of a trial over {len(result.skills)} skill(s). Verdict: {result.verdict.upper()}"
    )
    return exit_code(result)
