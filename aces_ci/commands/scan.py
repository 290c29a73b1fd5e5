"""``aces-ci scan``: the static tier on every push: rules, score, gate, reports.

Exit codes follow DESIGN.md: 0 the gate passed, 1 it failed, 2 the input or configuration is
unusable, 3 something outside the skill failed (the judge's model API, say). Writing a baseline
(``--write-baseline``) accepts the current findings, so that run exits 0.

Settings come from the project's aces.yml (:func:`aces_ci.config.find_project`: the nearest one
from PATH up to the repository root, as every verb finds it). When that file lies above PATH, the
repository it belongs to is scanned, restricted to PATH, so its ``exclude``/``ignore`` patterns and
every reported path read from the same root.

Skills are scanned in one worker process per CPU (``--jobs``), and each skill's findings are kept
in a result cache (``--cache-dir``, by default ``.aces-cache/scan`` at the scanned root; never inside
a skill, whose files it would then become), so the next scan only re-checks the skills whose files
changed. The cache directory carries its own ``.gitignore``; to keep it between CI runs, cache that
path (e.g. with ``actions/cache``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .. import app
from ..atomic import write_output
from ..errors import EXIT_PASS, ConfigError
from ..gate import exit_code
from ..redact import environment_secrets, redact_text
from ..report import render_junit, render_markdown, render_text, scan_result_to_dict, write_json, write_sarif
from ..scan import (
    DEFAULT_CACHE_DIR,
    ResultCache,
    RuleRegistry,
    ScanResult,
    Shard,
    accepted_by_new_baseline,
    default_registry,
    write_baseline,
)
from ._scan_options import min_score, scan_flags, worker_count


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "scan",
        help="check every skill statically and gate on findings and structural score",
        description="Run every rule on every skill under PATH, score each skill, and gate: a skill fails "
        "on any active error finding or a structural score below the minimum.",
    )
    parser.add_argument(
        "path",
        nargs="?",
        default=Path("."),
        type=Path,
        metavar="PATH",
        help="repository, skill directory or SKILL.md (default: .)",
    )
    parser.add_argument(
        "--config", type=Path, metavar="FILE", help="aces.yml to use (default: nearest up to the repository root)"
    )
    parser.add_argument("--profile", choices=("strict", "lenient"), help="frontmatter profile (overrides aces.yml)")
    parser.add_argument("--min-score", type=min_score, metavar="N", help="gate's minimum structural score, 0-100")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the result as JSON")
    parser.add_argument("--junit", type=Path, metavar="FILE", help="write a JUnit XML report")
    parser.add_argument("--sarif", type=Path, metavar="FILE", help="write a SARIF 2.1.0 log")
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="write a Markdown report (PR comment)")
    parser.add_argument("--html", type=Path, metavar="FILE", help="write a self-contained HTML report")
    parser.add_argument("--baseline", type=Path, metavar="FILE", help="suppress the findings accepted in FILE")
    parser.add_argument(
        "--write-baseline", type=Path, metavar="FILE", help="accept every current finding into FILE and exit 0"
    )
    parser.add_argument(
        "--judge",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="score each skill with the LLM-judge rubric (default: when aces.yml configures judge: and its "
        "API key is set; --judge insists, failing if it cannot run; --no-judge skips it)",
    )
    parser.add_argument(
        "--jobs",
        type=worker_count,
        default=None,
        metavar="N",
        help="scan in up to N worker processes (default: the number of CPUs; 1 scans in this process)",
    )
    parser.add_argument(
        "--shard",
        type=Shard.parse,
        metavar="I/N",
        help="scan only shard I of N (skills split round-robin in directory order); `aces-ci merge` combines them",
    )
    caching = parser.add_mutually_exclusive_group()
    caching.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help=f"keep each skill's findings in DIR and re-check only changed skills (default: PATH/{DEFAULT_CACHE_DIR})",
    )
    caching.add_argument("--no-cache", action="store_true", help="scan every skill; read and write no result cache")
    volume = parser.add_mutually_exclusive_group()
    volume.add_argument("-v", "--verbose", action="store_true", help="show evidence, deductions, suppressed findings")
    volume.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    parser.set_defaults(run=run)


def write_scan_reports(result: ScanResult, registry: RuleRegistry, args: argparse.Namespace) -> None:
    """The report files the flags ask for (shared with `aces-ci merge`, whose flags name the same five)."""
    if args.json is not None:
        write_json(result, args.json)
    if args.sarif is not None:
        write_sarif(result, registry, args.sarif)
    if args.junit is not None:
        write_output(args.junit, redact_text(render_junit(result, registry), environment_secrets()), "JUnit report")
    if args.markdown is not None:
        # The Markdown report is the PR comment and the step summary: redacted as text on the way out.
        markdown = redact_text(render_markdown(result, registry), environment_secrets())
        write_output(args.markdown, markdown, "Markdown report")
    if args.html is not None:
        # Rendered from the result's JSON, as `aces-ci report` would render the --json file.
        from ..report.html import document_from, write_html

        write_html(args.html, [document_from(scan_result_to_dict(result), str(args.json or "scan"))])


def _cache_summary(cache: ResultCache) -> str:
    stats = cache.stats
    scanned = stats.stored + stats.not_stored + stats.not_cacheable
    kept_out = (
        f" ({stats.not_cacheable} not cacheable: symlinks, special files, version-control metadata or a timeout)"
        if stats.not_cacheable
        else ""
    )
    return (
        f"Result cache {cache.directory}: {stats.hits} skill{'' if stats.hits == 1 else 's'} unchanged and reused, "
        f"{scanned} scanned{kept_out}"
    )


def run(args: argparse.Namespace) -> int:
    if args.shard is not None and args.write_baseline is not None:
        raise ConfigError("--write-baseline needs every skill's findings; run it without --shard", field="--shard")
    registry = default_registry()
    project, config = app.scan_request(scan_flags(args, write_baseline=args.write_baseline), args.config)
    scanned = app.scan(config, registry, project)
    result, cache = scanned.result, scanned.cache
    if not args.quiet:
        for note in scanned.notes:
            print(f"aces-ci: note: {note}", file=sys.stderr)
    if cache is not None and cache.stats.not_stored and not args.quiet:
        print(
            f"aces-ci: warning: {cache.stats.not_stored} result(s) could not be written to the cache "
            f"{cache.directory}; the scan is complete, the next one will re-check those skills",
            file=sys.stderr,
        )
    write_scan_reports(result, registry, args)
    if args.write_baseline is not None:
        accepted = accepted_by_new_baseline(f for skill in result.skills for f in skill.findings)
        count = write_baseline(accepted, args.write_baseline)
        if not args.quiet:
            print(
                f"Wrote {count} accepted finding{'' if count == 1 else 's'} to {args.write_baseline}. "
                f"Commit it and scan with --baseline {args.write_baseline} (or scan.baseline in aces.yml)."
            )
        return EXIT_PASS
    if not args.quiet:
        color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
        sys.stdout.write(render_text(result, registry, color=color, verbose=args.verbose))
        if args.verbose and cache is not None:
            print(_cache_summary(cache))
    return exit_code(result)
