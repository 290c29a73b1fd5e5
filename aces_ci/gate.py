"""The gate's policy across tiers: from result models to a verdict and an exit code.

Pure functions of result models, no I/O: the same result always gives the same verdict, so a
report re-rendered from saved JSON agrees with the run that produced it. Each tier computes its
own per-skill verdict with its result (the scan's in :mod:`aces_ci.scan`); this module is where
the verdicts of the tiers meet the exit-code contract of DESIGN.md.
"""

from __future__ import annotations

from .errors import EXIT_GATE_FAILED, EXIT_PASS
from .scan import ScanResult


def exit_code(result: ScanResult) -> int:
    """0 when the gate passes, 1 when it fails (DESIGN.md's contract)."""
    return EXIT_PASS if result.verdict == "pass" else EXIT_GATE_FAILED
