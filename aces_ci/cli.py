"""The command line: parse, call, print. Each verb lives in :mod:`aces_ci.commands`.

Only the verb being run is imported: ``aces-ci scan`` never loads the rollout engine, the agent
harnesses, httpx or the model SDKs, which would otherwise be most of its start-up on a repository
of a few skills. ``aces-ci --help`` (or an unknown verb) imports every verb to list them.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import traceback
from collections.abc import Sequence

from . import __version__, commands
from .errors import EXIT_RUNTIME_ERROR, AcesError
from .redact import redact_text, redacted_stdio

VERBS = ("scan", "rules", "rollout", "trial", "ci", "merge", "cache", "compile", "value", "compress", "report", "init")
"""Every verb, in ``--help`` order; each is the module :mod:`aces_ci.commands.<verb>`."""


def build_parser(verbs: Sequence[str] = VERBS) -> argparse.ArgumentParser:
    """The parser with the sub-commands ``verbs`` (all of them by default), importing only their modules."""
    parser = argparse.ArgumentParser(
        prog="aces-ci",
        description="CI gate for agent skills: does this skill, and each part of it, help a live agent?",
    )
    parser.add_argument("--version", action="version", version=f"aces-ci {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB")
    sub.required = True
    for verb in verbs:
        importlib.import_module(f"{commands.__name__}.{verb}").add_parser(sub)
    return parser


def _requested_verb(argv: Sequence[str]) -> str | None:
    """The verb the command line names, when it names a known one before anything else."""
    first = next((arg for arg in argv if arg != "--"), None)
    return first if first in VERBS else None


def main(argv: Sequence[str] | None = None) -> int:
    """Run one verb; everything it prints, argparse's messages included, passes through the redactor."""
    with redacted_stdio():
        return _main(argv)


EXIT_INTERRUPTED = 128 + signal.SIGINT
"""Ctrl-C exits 130, as a shell reports a process stopped by SIGINT: not a runtime error (3), not a verdict."""


def _main(argv: Sequence[str] | None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    verb = _requested_verb(arguments)
    parser = build_parser((verb,) if verb is not None else VERBS)
    try:
        args = parser.parse_args(arguments)
    except SystemExit as exc:  # argparse: --help exits 0, bad usage exits 2 (the contract's input error)
        return int(exc.code or 0)
    except AcesError as exc:  # a flag's own parser refused it (`--shard 3/2`): exit 2 with its message
        print(f"aces-ci: error: {redact_text(str(exc))}", file=sys.stderr)
        return exc.exit_code
    args.argv = tuple(arguments)  # the command line as given: a trial shard records it for the merge job
    try:
        return int(args.run(args))
    except AcesError as exc:
        print(f"aces-ci: error: {redact_text(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(
            "aces-ci: interrupted; run the same command again to resume: finished rollouts are kept in the cache "
            "and journal and are not paid for twice",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`aces-ci rules | head`): stop writing, without a traceback at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_RUNTIME_ERROR
    except Exception as exc:  # the last line of defence: a bug must not read as "gate failed"
        details = redact_text("".join(traceback.format_exception(exc)))
        print(f"aces-ci: internal error (please report it):\n{details}", file=sys.stderr)
        return EXIT_RUNTIME_ERROR


if __name__ == "__main__":
    sys.exit(main())
