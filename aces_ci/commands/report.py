"""``aces-ci report``: render scan, trial, trigger-trial, value and rerun results into one self-contained HTML page,
or scan and trigger-trial results into Markdown.

The page is rendered from the JSON files alone, so a run's artifact can be turned into a report
later, anywhere, without the skills or a model. Each file is read with a size bound, recognised by
its fields and validated against its schema: a file that is not an aces-ci result, or is damaged,
stops the command with exit 2 naming the file (and the field), before anything is written.
``--markdown`` renders the results whose Markdown is made from their JSON (a scan's comment, a
trigger trial's section); a trial's or a valuation's Markdown needs the run itself, so asking for it
here is an input error naming the file, also before anything is written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..atomic import write_output
from ..errors import EXIT_PASS, InputError
from ..redact import environment_secrets, redact_text
from ..report.html import ResultDocument, read_documents, write_html

MARKDOWN_KINDS = ("scan", "trigger")
"""Results whose Markdown is rendered from their JSON alone."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "report",
        help="render scan/trial/trigger/value/rerun JSON results into one self-contained HTML report (or Markdown)",
        description="Read the --json results of scan, trial, trial --triggers and value (and rerun records), alone "
        "or together, and write one HTML page: verdicts, lift forest plots, cases, trigger recall, SkillSV, cost and "
        "scan findings. The page needs no network: open it from a downloaded artifact. --markdown writes the "
        "Markdown of scan and trigger-trial results.",
    )
    parser.add_argument("results", nargs="+", type=Path, metavar="RESULT.json", help="result files to render")
    parser.add_argument("--html", type=Path, metavar="FILE", help="write the HTML report to FILE")
    parser.add_argument(
        "--markdown", type=Path, metavar="FILE", help="write the Markdown of scan and trigger-trial results to FILE"
    )
    parser.set_defaults(run=run)


def _markdown(document: ResultDocument) -> str:
    if document.kind == "trigger":
        from ..report import trigger_markdown

        return trigger_markdown(document.data)
    from ..report import render_markdown, scan_result_from_dict
    from ..scan import default_registry

    return render_markdown(scan_result_from_dict(document.data, document.source), default_registry())


def run(args: argparse.Namespace) -> int:
    if args.html is None and args.markdown is None:
        raise InputError("nothing to write: give --html FILE, --markdown FILE or both", field="--html")
    documents = read_documents(args.results)
    if args.markdown is not None:
        for document in documents:
            if document.kind not in MARKDOWN_KINDS:
                raise InputError(
                    f"a {document.kind} result has no Markdown rendered from its JSON (scan and trigger-trial results "
                    "do); use --html for it",
                    path=document.source,
                )
        markdown = "\n".join(_markdown(document) for document in documents)
        write_output(args.markdown, redact_text(markdown, environment_secrets()), "Markdown report")
    if args.html is not None:
        write_html(args.html, documents)
    written = " and ".join(str(path) for path in (args.html, args.markdown) if path is not None)
    kinds = ", ".join(f"{d.kind} ({d.source})" for d in documents)
    print(f"Wrote {written} from {kinds}", file=sys.stderr)
    return EXIT_PASS
