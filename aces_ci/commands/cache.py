"""``aces-ci cache``: carry the rollout cache between machines (a matrix job's runner, the next release's).

``aces-ci cache export --cache-dir DIR [--journal FILE] --out FILE`` writes every completed rollout
of the cache (and of a journal: what a killed run finished) into one gzip'd JSON Lines archive;
``aces-ci cache import FILE… --cache-dir DIR`` adds the ones the cache lacks. Rollouts are
content-addressed, so importing several archives is their union and a rerun pays only for what
none of them holds. Exit 0, or 2 for an archive that cannot be read (a damaged line is skipped with
a warning, never imported).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .. import app
from ..errors import EXIT_PASS

DEFAULT_CACHE_DIR = Path(".aces-cache")
"""The rollout cache ``trial``, ``rollout`` and ``value`` use when neither a flag nor aces.yml names one."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "cache",
        help="export the rollout cache (and a journal) to one file, or import such files into a cache",
        description="Carry finished rollouts between machines: a matrix shard's cache travels to its rerun or the "
        "next release, so only what is new is paid for. Importing is a union (rollouts are content-addressed).",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    export = actions.add_parser("export", help="write the cache's completed rollouts to one archive")
    export.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE_DIR, metavar="DIR", help="rollout cache")
    export.add_argument("--journal", type=Path, metavar="FILE", help="also the completed rollouts of this journal")
    export.add_argument("--out", type=Path, required=True, metavar="FILE", help="the archive to write (.jsonl.gz)")
    export.set_defaults(run=run_export)
    load = actions.add_parser("import", help="add the rollouts of archives that the cache lacks")
    load.add_argument("archives", nargs="+", type=Path, metavar="FILE", help="archives written by `cache export`")
    load.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE_DIR, metavar="DIR", help="rollout cache")
    load.set_defaults(run=run_import)


def run_export(args: argparse.Namespace) -> int:
    written = app.export_cache(args.cache_dir, args.journal, args.out)
    print(f"Exported {written} rollout(s) to {args.out}.")
    return EXIT_PASS


def run_import(args: argparse.Namespace) -> int:
    for archive in args.archives:
        done = app.import_cache(archive, args.cache_dir)
        print(
            f"Imported {archive}: {done.added} rollout(s) added, {done.present} already cached"
            + (f", {done.skipped} unreadable line(s) skipped" if done.skipped else "")
            + f" (cache: {args.cache_dir})."
        )
    return EXIT_PASS
