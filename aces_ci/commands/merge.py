"""``aces-ci merge``: put the shards of a matrix scan (or a sharded trial) back together into one report and verdict.

Each matrix job runs ``aces-ci scan --shard i/n --json shard-i.json`` (or ``ci --shard``); a final
job downloads the files and runs ``aces-ci merge shard-*.json --junit … --sarif …``. The merge is
strict, because a gate that passes on three shards of four has checked nothing about the fourth:
every shard 1..n exactly once, no skill twice, and the same aces-ci version, profile, minimum score,
rules and baseline in all of them — otherwise exit 2 naming the file. The files' kind picks the merge:
``trial --shard i/n --part FILE`` parts go to :mod:`._merge_trial`, which replays the trial over them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import InputError
from ..gate import exit_code
from ..report import read_scan_result
from ..scan import ScanResult, default_registry, overall_verdict
from ._merge_value import holds_value_part, merge_value_parts
from .scan import write_scan_reports


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "merge",
        help="combine the JSON results of sharded scans (or a sharded trial's parts) into one report and one verdict",
        description="Combine `scan --shard i/n --json` results, or `trial --shard i/n --part` parts: checks all n "
        "shards are present once, then writes the reports of the whole repository and exits with its verdict.",
    )
    parser.add_argument(
        "results", nargs="+", type=Path, metavar="RESULT.json", help="one JSON result (or trial part) per shard"
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the merged result as JSON")
    parser.add_argument("--junit", type=Path, metavar="FILE", help="write a JUnit XML report")
    parser.add_argument("--sarif", type=Path, metavar="FILE", help="write a SARIF 2.1.0 log")
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="write a Markdown report")
    parser.add_argument("--html", type=Path, metavar="FILE", help="write a self-contained HTML report")
    parser.set_defaults(run=run)


TRIAL_PART_FORMAT = b"aces-ci-trial-part"
"""The first key of every trial part (``trials.PART_FORMAT``); the full read checks the whole file."""


def _is_trial_part(path: Path) -> bool:
    """Whether ``path`` starts like a trial part: the kind of merge is picked by the files, not by a flag."""
    try:
        with path.open("rb") as handle:
            return TRIAL_PART_FORMAT in handle.read(256)
    except OSError:
        return False  # the scan's reader names the file it cannot read


_SAME = ("tool_version", "root", "profile", "min_score", "rules", "baseline")


def _check_shards(parts: list[tuple[Path, ScanResult]]) -> None:
    sharded = [(path, result) for path, result in parts if result.shard is not None]
    if not sharded:
        if len(parts) > 1:
            raise InputError(
                "none of these results is a shard (scan --shard i/n); merging whole scans would double-count",
                path=str(parts[1][0]),
            )
        return
    if len(sharded) != len(parts):
        path = next(p for p, r in parts if r.shard is None)
        raise InputError("this result is not a shard, the others are", path=str(path))
    count = sharded[0][1].shard.count if sharded[0][1].shard else 0
    seen: dict[int, Path] = {}
    for path, result in sharded:
        assert result.shard is not None
        if result.shard.count != count:
            raise InputError(f"shard {result.shard} does not belong to a split into {count}", path=str(path))
        if result.shard.index in seen:
            raise InputError(f"shard {result.shard} given twice (also {seen[result.shard.index]})", path=str(path))
        seen[result.shard.index] = path
    missing = sorted(set(range(1, count + 1)) - set(seen))
    if missing:
        raise InputError(
            f"shards missing: {', '.join(f'{i}/{count}' for i in missing)}; every shard must be merged",
            path=str(parts[0][0]),
        )


def merge_results(parts: list[tuple[Path, ScanResult]]) -> ScanResult:
    """One result of the whole repository from its shards (see the module docstring for the checks)."""
    _check_shards(parts)
    first_path, first = parts[0]
    for path, result in parts[1:]:
        for name in _SAME:
            if getattr(result, name) != getattr(first, name):
                raise InputError(
                    f"'{name}' differs from {first_path} ({getattr(result, name)!r} vs {getattr(first, name)!r}); "
                    "shards must come from one scan configuration",
                    path=str(path),
                )
    owners: dict[str, Path] = {}
    for path, result in parts:
        for report in result.skills:
            if report.skill in owners:
                raise InputError(f"skill {report.skill} is also in {owners[report.skill]}", path=str(path))
            owners[report.skill] = path
    skills = tuple(sorted((report for _, result in parts for report in result.skills), key=lambda r: r.skill))
    return ScanResult(
        tool_version=first.tool_version,
        root=first.root,
        profile=first.profile,
        min_score=first.min_score,
        skills=skills,
        verdict=overall_verdict(skills),
        rules=first.rules,
        generated_at=max(result.generated_at for _, result in parts),
        baseline=first.baseline,
        stale_baseline_entries=sum(result.stale_baseline_entries for _, result in parts),
    )


def run(args: argparse.Namespace) -> int:
    if holds_value_part(args.results[0]):  # SkillSV shards: the valuation is replayed from their scores
        return merge_value_parts(args)
    if any(_is_trial_part(path) for path in args.results):
        from ._merge_trial import run_trial_merge  # the live tier's modules load only for a trial's parts

        return run_trial_merge(args)
    parts = [(path, read_scan_result(path)) for path in args.results]
    merged = merge_results(parts)
    registry = default_registry()
    write_scan_reports(merged, registry, args)  # the same reports, written the same way as scan's
    failed = sum(1 for report in merged.skills if report.verdict == "fail")
    summary = f"{len(merged.skills)} skills, {failed} failed"
    print(f"Merged {len(parts)} result(s): {summary}. Verdict: {merged.verdict.upper()}")
    return exit_code(merged)
