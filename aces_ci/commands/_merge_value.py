"""``aces-ci merge`` given SkillSV value parts (``value --shard I/N --json``): one valuation's reports.

The merge itself is :func:`aces_ci.app.merge_value` (strict checks, then the valuation replayed from
the parts' records); this module reads the parts, prints the text report and writes ``--json`` and
``--html`` as ``aces-ci value`` does, and exits as ``value`` would.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import app
from ..errors import EXIT_PASS, EXIT_RUNTIME_ERROR, AcesError, ConfigError
from ..report import is_value_part, read_json_file, read_value_part, render_value_text, write_value_reports

_MAX_PEEK_BYTES = 256 * 1024 * 1024


def holds_value_part(path: Path) -> bool:
    """Whether ``path`` is a value part (by its ``kind``); anything unreadable is left to the scan merge's errors."""
    try:
        return is_value_part(read_json_file(path, "result", _MAX_PEEK_BYTES))
    except AcesError:  # the scan merge reads the file again and names what is wrong with it
        return False


def merge_value_parts(args: argparse.Namespace) -> int:
    """Merge the value parts ``args.results`` into the valuation's reports; exit as ``aces-ci value`` does."""
    for flag in ("junit", "sarif", "markdown"):
        if getattr(args, flag) is not None:
            raise ConfigError(f"a valuation writes --json and --html, not --{flag}", field=f"--{flag}")
    parts = [(path, read_value_part(path)) for path in args.results]
    report = app.merge_value(parts)
    render_value_text(report, sys.stdout)
    write_value_reports(report, args.json, args.html)
    print(f"Merged {len(parts)} value part(s) of {report.game.name}.")
    measured = report.valuation.measured
    return EXIT_RUNTIME_ERROR if report.valuation.stopped_by == "oracle_error" or not measured else EXIT_PASS
