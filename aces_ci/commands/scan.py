"""``aces-ci scan``: the static tier on every push: rules, score, gate, reports.

Exit codes follow DESIGN.md: 0 the gate passed, 1 it failed, 2 the input or configuration is
unusable, 3 something outside the skill failed (the judge's model API, say). Writing a baseline
(``--write-baseline``) accepts the current findings, so that run exits 0.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path

from ..config import AcesConfig, load_config
from ..errors import EXIT_PASS, InputError
from ..gate import exit_code
from ..report import render_junit, render_markdown, render_text, write_json, write_sarif
from ..scan import RuleRegistry, ScanResult
from ..scan._baseline import accepted_by_new_baseline, count_stale, load_baseline, write_baseline
from ..scan._runner import scan_repo
from ..scan.rules import default_registry


def _min_score(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"must be between 0 and 100, got {value}")
    return value


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
    parser.add_argument("--config", type=Path, metavar="FILE", help="aces.yml to use (default: PATH/aces.yml)")
    parser.add_argument("--profile", choices=("strict", "lenient"), help="frontmatter profile (overrides aces.yml)")
    parser.add_argument("--min-score", type=_min_score, metavar="N", help="gate's minimum structural score, 0-100")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the result as JSON")
    parser.add_argument("--junit", type=Path, metavar="FILE", help="write a JUnit XML report")
    parser.add_argument("--sarif", type=Path, metavar="FILE", help="write a SARIF 2.1.0 log")
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="write a Markdown report (PR comment)")
    parser.add_argument("--baseline", type=Path, metavar="FILE", help="suppress the findings accepted in FILE")
    parser.add_argument(
        "--write-baseline", type=Path, metavar="FILE", help="accept every current finding into FILE and exit 0"
    )
    parser.add_argument("--judge", action="store_true", help="also score each skill with the LLM-judge rubric")
    volume = parser.add_mutually_exclusive_group()
    volume.add_argument("-v", "--verbose", action="store_true", help="show evidence, deductions, suppressed findings")
    volume.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    parser.set_defaults(run=run)


def _configure(args: argparse.Namespace) -> AcesConfig:
    """aces.yml with the command-line flags applied on top."""
    start_dir = args.path.parent if args.path.is_file() else args.path
    config = load_config(args.config, start_dir)
    scan = config.scan
    if args.profile is not None:
        scan = replace(scan, profile=args.profile)
    if args.min_score is not None:
        scan = replace(scan, min_score=args.min_score)
    if args.baseline is not None:
        scan = replace(scan, baseline=args.baseline)
    if args.write_baseline is not None and scan.baseline is not None and not scan.baseline.exists():
        # First run of a configured baseline: there is nothing to apply yet, only a file to create.
        scan = replace(scan, baseline=None)
    return replace(config, scan=scan)


def _write_text(path: Path, text: str, what: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", errors="backslashreplace")
    except OSError as exc:
        raise InputError(f"cannot write the {what} report: {exc.strerror or exc}", path=str(path)) from None


def _write_reports(result: ScanResult, registry: RuleRegistry, args: argparse.Namespace) -> None:
    if args.json is not None:
        write_json(result, args.json)
    if args.sarif is not None:
        write_sarif(result, registry, args.sarif)
    if args.junit is not None:
        _write_text(args.junit, render_junit(result, registry), "JUnit")
    if args.markdown is not None:
        _write_text(args.markdown, render_markdown(result, registry), "Markdown")


def _stale_note(result: ScanResult, baseline_path: Path) -> str | None:
    findings = [finding for skill in result.skills for finding in skill.findings]
    stale = count_stale(load_baseline(baseline_path), findings)
    if stale == 0:
        return None
    entries = "entry matches" if stale == 1 else "entries match"
    return (
        f"Baseline {baseline_path}: {stale} {entries} no current finding (fixed since); "
        f"refresh it with --write-baseline {baseline_path}"
    )


def run(args: argparse.Namespace) -> int:
    config = _configure(args)
    registry = default_registry()
    result = scan_repo(args.path, config, registry, judge=args.judge)
    _write_reports(result, registry, args)
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
        if config.scan.baseline is not None:
            note = _stale_note(result, config.scan.baseline)
            if note:
                print(note)
    return exit_code(result)
