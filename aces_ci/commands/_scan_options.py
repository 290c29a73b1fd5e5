"""The scan flags ``aces-ci scan`` and ``aces-ci ci`` share: their argparse types, and :class:`ScanFlags` from them."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..config import Given, JudgeWish, ScanFlags, given


def min_score(text: str) -> int:
    """``--min-score``: an integer in [0, 100]."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"must be between 0 and 100, got {value}")
    return value


def worker_count(text: str) -> int:
    """``--jobs``: a positive integer."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def scan_flags(args: argparse.Namespace, *, write_baseline: Path | None = None) -> ScanFlags:
    """The scan flags as given (``--judge``/``--no-judge`` as a wish, ``--no-cache`` as no cache directory)."""
    judge: JudgeWish = "when-configured" if args.judge is None else "insist" if args.judge else "off"
    cache_dir: Given[Path | None] = None if args.no_cache else given(args.cache_dir)
    return ScanFlags(
        path=args.path,
        profile=given(args.profile),
        min_score=given(args.min_score),
        baseline=given(args.baseline),
        write_baseline=write_baseline,
        judge=judge,
        jobs=args.jobs,
        shard=args.shard,
        cache_dir=cache_dir,
    )
