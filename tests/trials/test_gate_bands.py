"""One rule for a lift's verdict: the trial (``stats.verdict_label``) and the gate read intervals alike.

Both take their bands from aces.yml's ``gate:`` section.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from aces_ci.config import load_config
from aces_ci.gate import LiftBands, LiftSummary, lift_criterion, lift_verdict
from aces_ci.stats import Bands, verdict_label

bound = st.floats(min_value=-1.0, max_value=1.0, allow_nan=False)


@given(bound, bound, st.floats(min_value=-0.5, max_value=0.0), st.floats(min_value=0.01, max_value=0.5))
def test_the_gate_and_the_trial_give_every_interval_the_same_verdict(
    a: float, b: float, fail: float, gap: float
) -> None:
    lo, hi = min(a, b), max(a, b)
    bands = LiftBands(pass_band=fail + gap, fail_band=fail)
    summary = LiftSummary("composite", (lo + hi) / 2, lo, hi, 10, 3)
    assert lift_verdict(summary, bands).verdict == verdict_label((lo, hi), Bands(bands.pass_band, bands.fail_band))


def test_aces_yml_gate_section_sets_the_gates_bands(tmp_path: Path) -> None:
    (tmp_path / "aces.yml").write_text(
        "gate:\n  metric: accuracy\n  pass_band: 0.1\n  fail_band: -0.2\n  underpowered: fail\n"
    )
    bands = LiftBands.of(load_config(None, tmp_path).gate)
    assert bands == LiftBands(0.1, -0.2, "accuracy", underpowered_fails=True)
    summary = LiftSummary("accuracy", 0.1, -0.1, 0.3, 5, 1)
    assert lift_criterion("skills/x", "skills/x/SKILL.md", summary, bands).status == "fail"
    assert lift_criterion("skills/x", "skills/x/SKILL.md", summary, LiftBands()).status == "warn"
