"""``aces-ci report``: render scan, trial, value and rerun results into one self-contained HTML page.

The page is rendered from the JSON files alone, so a run's artifact can be turned into a report
later, anywhere, without the skills or a model. Each file is read with a size bound, recognised by
its fields and validated against its schema: a file that is not an aces-ci result, or is damaged,
stops the command with exit 2 naming the file (and the field), before anything is written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import EXIT_PASS
from ..report.html import read_documents, write_html


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "report",
        help="render scan/trial/value/rerun JSON results into one self-contained HTML report",
        description="Read the --json results of scan, trial and value (and rerun records), alone or together, "
        "and write one HTML page: verdicts, lift forest plots, cases, SkillSV, cost and scan findings. "
        "The page needs no network: open it from a downloaded artifact.",
    )
    parser.add_argument("results", nargs="+", type=Path, metavar="RESULT.json", help="result files to render")
    parser.add_argument("--html", type=Path, metavar="FILE", required=True, help="write the HTML report to FILE")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    documents = read_documents(args.results)
    write_html(args.html, documents)
    kinds = ", ".join(f"{d.kind} ({d.source})" for d in documents)
    print(f"Wrote {args.html} from {kinds}", file=sys.stderr)
    return EXIT_PASS
