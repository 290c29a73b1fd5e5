"""The simulation benchmark's small mode, in CI: the statistics must keep their promises."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from aces_ci.stats import PairedLift, PairedScores, paired_lift

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("stats_validity", ROOT / "benchmarks" / "stats_validity.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["stats_validity"] = module
    spec.loader.exec_module(module)
    return module


def test_small_benchmark_passes_every_check(bench: ModuleType) -> None:
    report = bench.run(small=True, seed=20261201)
    failed = [f"{c.name} = {c.value:.4f} not in {c.bound}" for c in report.checks if not c.ok]
    assert not failed, failed
    names = {c.name for c in report.checks}
    for expected in (
        "coverage, mean over n ≥ 10",
        "clustered minus pooled coverage at ≥ 3 runs",
        "A/A false-fail rate (worst design)",
        "A/A verdict flip rate (worst design)",
        "plug-in degradation share at p = 0.5, 3 runs",
        "confidently degraded share at p = 0.5 (truth 0)",
        "power prediction error, worst design (points)",
        "rollouts saved on clear-cut skills (worst)",
        "sequential wrong-decision rate",
        "adding cases: sequential wrong-decision rate",
    ):
        assert expected in names
    assert report.seconds < 60.0 * 3  # CPU seconds; a guard against runaway sizes, not a speed test


def test_coverage_check_catches_the_pooled_interval(bench: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: report the pooled-runs interval as the lift interval and it does."""

    def pooled(scores: PairedScores, alpha: float = 0.05) -> PairedLift:
        lift = paired_lift(scores, alpha)
        return replace(lift, ci=lift.naive.ci)

    monkeypatch.setattr(bench, "paired_lift", pooled)
    report = bench.Report(small=True, seed=1)
    bench.coverage(report, np.random.default_rng(1), 300, ns=[20], runs=[5], kinds=["bernoulli"])
    assert not report.ok
    assert not next(c for c in report.checks if c.name == "clustered minus pooled coverage at ≥ 3 runs").ok
