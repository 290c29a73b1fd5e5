"""The SkillSV benchmarks run (their small variants) and report what they claim to measure."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import skillsv_efficiency


def test_the_efficiency_benchmark_small_variant(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    assert skillsv_efficiency.main(["--small", "--json", str(out)]) == 0
    document = json.loads(out.read_text())
    points = document["sizes"]["8"]["points"]
    assert set(points) == {"published", "permutation", "chain", "ours"}
    for curve in points.values():
        assert [p["rollouts"] for p in curve] == sorted(p["rollouts"] for p in curve)  # more orders cost more
        assert curve[-1]["rmse_del"] < curve[0]["rmse_del"]  # and err less
    assert len(document["sizes"]["8"]["shares"]) == 2
