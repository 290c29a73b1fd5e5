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
from dataclasses import replace
from pathlib import Path

from ..atomic import write_output
from ..config import AcesConfig, Project, find_project
from ..errors import EXIT_PASS, ConfigError
from ..gate import exit_code
from ..models import ModelSettings
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
    judge_unavailable,
    scan_repo,
    user_cache_dir,
    write_baseline,
)
from ..skill import LOWERCASE_SKILL_FILE, SKILL_FILE


def _min_score(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"must be between 0 and 100, got {value}")
    return value


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def available_cpus() -> int:
    """CPUs this process may run on (a container's limit, not the host's count)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


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
    parser.add_argument("--min-score", type=_min_score, metavar="N", help="gate's minimum structural score, 0-100")
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
        type=_jobs,
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


def _configure(args: argparse.Namespace, config: AcesConfig) -> AcesConfig:
    """aces.yml with the command-line flags applied on top."""
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


def _scan_root(path: Path, project: Project) -> Path:
    """The root whose paths the scan reports: the directory of an aces.yml above PATH, else PATH itself."""
    target = (path.parent if path.is_file() else path).resolve()
    if project.config_dir is not None and target != project.config_dir and target.is_relative_to(project.config_dir):
        return project.config_dir
    return target


def _write_reports(result: ScanResult, registry: RuleRegistry, args: argparse.Namespace) -> None:
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
    html = getattr(args, "html", None)  # merge shares this function and has no --html
    if html is not None:
        # Rendered from the result's JSON, as `aces-ci report` would render the --json file.
        from ..report.html import document_from, write_html

        write_html(html, [document_from(scan_result_to_dict(result), str(args.json or "scan"))])


def _result_cache(args: argparse.Namespace, scan_root: Path) -> ResultCache | None:
    if args.no_cache:
        return None
    if args.cache_dir is not None:
        return ResultCache(args.cache_dir)
    if (scan_root / SKILL_FILE).exists() or (scan_root / LOWERCASE_SKILL_FILE).exists():
        # A lone skill: a cache inside it would become one of its files (and be staged into rollouts).
        return ResultCache(user_cache_dir())
    return ResultCache(scan_root / DEFAULT_CACHE_DIR)


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


def _judge_settings(args: argparse.Namespace, config: AcesConfig) -> ModelSettings | None:
    """The judge's model when it is to run: when asked, or when aces.yml configures it and it can run here.

    Never in a GitHub Actions step whose checkout is not trusted (``pull_request_target``, a fork's code:
    :func:`aces_ci.github.actions_trust`): the judge's ``base_url`` is the checked-out aces.yml's to choose.
    """
    if args.judge is False or (args.judge is None and not config.judge.provider):
        return None
    from ..github import actions_trust  # only when a judge would run: the GitHub room brings httpx

    trust = actions_trust(os.environ, args.path)
    if not trust.trusted:
        if not args.quiet:
            print(f"aces-ci: note: LLM judge skipped: {trust.reason}", file=sys.stderr)
        return None
    if args.judge:
        return config.judge
    reason = judge_unavailable(config.judge)
    if reason is not None:
        if not args.quiet:
            print(f"aces-ci: note: LLM judge skipped: {reason}", file=sys.stderr)
        return None
    return config.judge


def scan_for(
    args: argparse.Namespace, registry: RuleRegistry, project: Project
) -> tuple[ScanResult, Path, ResultCache | None]:
    """The scan the flags ask for in ``project`` (shared with ``aces-ci ci``): the result, its root and the cache."""
    config = _configure(args, project.config)
    scan_root = _scan_root(args.path, project) if args.path.exists() else args.path
    cache = _result_cache(args, scan_root)
    jobs = args.jobs if args.jobs is not None else available_cpus()
    within = None if scan_root == args.path else args.path
    result = scan_repo(
        scan_root,
        config.scan,
        registry,
        judge=_judge_settings(args, config),
        jobs=jobs,
        cache=cache,
        within=within,
        shard=args.shard,
    )
    return result, scan_root, cache


def run(args: argparse.Namespace) -> int:
    if args.shard is not None and args.write_baseline is not None:
        raise ConfigError("--write-baseline needs every skill's findings; run it without --shard", field="--shard")
    registry = default_registry()
    result, _, cache = scan_for(args, registry, find_project(args.path, args.config))
    if cache is not None and cache.stats.not_stored and not args.quiet:
        print(
            f"aces-ci: warning: {cache.stats.not_stored} result(s) could not be written to the cache "
            f"{cache.directory}; the scan is complete, the next one will re-check those skills",
            file=sys.stderr,
        )
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
        if args.verbose and cache is not None:
            print(_cache_summary(cache))
    return exit_code(result)
