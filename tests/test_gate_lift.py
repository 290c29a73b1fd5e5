"""The cross-tier gate: lift bands on the interval, SkillSV closure, criteria as JUnit testcases."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema
from hypothesis import given, settings
from hypothesis import strategies as st

from aces_ci.errors import ConfigError
from aces_ci.gate import (
    MAX_INFRA_SHARE,
    InfraLoss,
    LiftBands,
    LiftSummary,
    closure_criteria,
    decide,
    lift_criteria,
    lift_verdict,
    scan_criteria,
)
from aces_ci.report import append_gate_suite, render_junit
from aces_ci.stats import Bands, paired_lift, paired_scores, verdict

from .report.builders import build_registry, sample_result
from .report.live_builders import Trial, Trials, Value, harmful_trial, helpful_trial, straddling_trial, valuation

BANDS = LiftBands()
XSD = xmlschema.XMLSchema(Path(__file__).parent / "report" / "junit.xsd")


def _summary(delta: float, low: float, high: float, n: int = 20) -> LiftSummary:
    return LiftSummary("composite", delta, low, high, n, 3)


@pytest.mark.parametrize(
    ("delta", "low", "high", "verdict"),
    [
        (0.20, 0.06, 0.34, "pass"),
        (0.20, 0.05, 0.35, "pass"),  # on the pass band counts
        (-0.30, -0.42, -0.18, "fail"),
        (-0.20, -0.30, -0.10, "fail"),  # upper bound on the fail band fails
        (0.00, -0.05, 0.04, "neutral"),
        (0.04, -0.06, 0.14, "underpowered"),  # straddles the pass band
        (-0.09, -0.20, 0.02, "underpowered"),  # straddles the fail band
        (-0.5, -1.0, 0.5, "underpowered"),  # the point is harmful, the interval cannot tell
    ],
)
def test_bands_apply_to_the_interval_not_the_point(delta: float, low: float, high: float, verdict: str) -> None:
    assert lift_verdict(_summary(delta, low, high), BANDS).verdict == verdict


def test_underpowered_says_how_many_cases_might_settle_it() -> None:
    decision = lift_verdict(_summary(0.15, 0.02, 0.28, n=10), BANDS)
    # The t-interval's half-width 0.13 at 9 df gives a case SD of 0.182; 80% power to clear +0.05 from +0.15.
    assert decision.settle is not None and decision.cases_needed == 28
    assert decision.settle.advice.startswith("28 cases in all (18 more) at the same runs per arm (towards pass")
    on_band = lift_verdict(_summary(0.05, -0.1, 0.2), BANDS)
    assert on_band.cases_needed is None and on_band.settle is not None
    assert "no affordable design settles it" in on_band.settle.advice


@settings(max_examples=200, deadline=None)
@given(
    rows=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=2, max_size=25),
    pass_band=st.floats(0.0, 0.3),
    fail_band=st.floats(-0.3, -0.01),
)
def test_gate_and_trial_read_one_verdict_and_one_settle_plan(
    rows: list[tuple[int, int]], pass_band: float, fail_band: float
) -> None:
    """For random trials and bands, the gate over the saved interval says what the trial's own verdict says."""
    w = [[1.0] * a + [0.0] * (3 - a) for a, _ in rows]
    c = [[1.0] * b + [0.0] * (3 - b) for _, b in rows]
    lift = paired_lift(paired_scores(w, c))
    assert lift.delta is not None and lift.ci is not None
    trial = verdict(lift, Bands(pass_band, fail_band))
    summary = LiftSummary(
        "outcome", lift.delta, *lift.ci, lift.n_cases, lift.runs_per_arm, se=lift.se, distribution_free=lift.se is None
    )
    gate = lift_verdict(summary, LiftBands(pass_band, fail_band))
    assert gate.verdict == trial.label
    if trial.settle is not None:
        assert gate.settle is not None and gate.cases_needed == trial.settle.cases_needed


def test_bands_are_configurable_and_checked() -> None:
    strict = LiftBands(pass_band=0.2, fail_band=0.0)
    assert lift_verdict(_summary(0.15, 0.06, 0.24), strict).verdict == "underpowered"
    with pytest.raises(ConfigError, match="below the pass band"):
        LiftBands(pass_band=-0.2, fail_band=0.1)


def test_a_harmful_release_fails_with_a_junit_failure_naming_metric_and_interval() -> None:
    trials = Trials([helpful_trial("skills/pdf-tools"), harmful_trial("skills/harmful")])
    decision = decide(scan_criteria(sample_result()), lift_criteria(trials, BANDS))

    assert decision.exit_code == 1
    xml = append_gate_suite(
        render_junit(sample_result(), build_registry()), decision.criteria, generated_at="2026-01-31T09:30:00Z"
    )
    XSD.validate(xml)
    root = ET.fromstring(xml)
    case = root.find("testsuite[@name='aces-ci gate']/testcase[@name='lift.outcome'][@classname='skills.harmful']")
    assert case is not None
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "NegativeSkillLift"
    # the default gate reads the outcome, not the composite
    assert "outcome lift -0.250, 95% interval [-0.400, -0.100]" in (failure.get("message") or "")
    properties = {p.get("name"): p.get("value") for p in case.findall("properties/property")}
    assert properties["ci_high"] == "-0.1" and properties["n_cases"] == "30" and properties["verdict"] == "fail"
    assert int(root.get("failures", "0")) == sum(int(s.get("failures", "0")) for s in root.findall("testsuite"))


def test_an_outage_is_an_error_never_a_pass_and_a_small_loss_still_gates() -> None:
    """The partial-outage rule: no measured pair, or more than a tenth of the design lost, is ``error`` (exit 3)
    with the lift from what ran stated; a loss within the share leaves the lift to gate as usual."""
    trials = Trials([helpful_trial("skills/a"), helpful_trial("skills/b"), Trial("skills/c", {"composite": None})])
    composite = LiftBands(metric="composite")  # the composite figures below are this test's fixture
    first = "retries_exhausted: gave up after 6 attempts; last error: HTTP 500"
    losses = {
        "skills/a": InfraLoss(planned=40, failed=4, not_run=0, first_error=first),  # exactly a tenth: gates
        "skills/b": InfraLoss(planned=40, failed=2, not_run=3, first_error=first),  # 5 of 40 lost
        "skills/c": InfraLoss(planned=40, failed=5, not_run=35, first_error=first),  # nothing measured
    }
    assert MAX_INFRA_SHARE == 4 / 40
    criteria = {c.subject: c for c in lift_criteria(trials, composite, losses)}
    assert criteria["skills/a"].status == "pass"
    kept = criteria["skills/b"]
    assert (kept.status, kept.failure_type) == ("error", "InfrastructureError")
    assert "5 of 40 rollouts lost (2 ended as infrastructure errors or could not be graded, 3 not run" in kept.message
    assert "composite lift +0.210, 95% interval [+0.120, +0.300]" in kept.message and "does not gate" in kept.message
    assert first in kept.message and "rerun the job" in kept.message
    assert "no composite pair was measured" in criteria["skills/c"].message
    decision = decide(criteria.values())
    assert (decision.verdict, decision.exit_code, decision.measured) == ("error", 3, False)


def test_a_measured_failure_outranks_an_outage() -> None:
    trials = Trials([harmful_trial("skills/harmful"), helpful_trial("skills/lost")])
    losses = {"skills/lost": InfraLoss(planned=10, failed=10, not_run=0)}
    decision = decide(lift_criteria(trials, BANDS, losses))
    assert (decision.verdict, decision.exit_code, decision.measured) == ("fail", 1, False)
    xml = append_gate_suite(None, decision.criteria, generated_at="2026-01-31T09:30:00Z")
    XSD.validate(xml)
    root = ET.fromstring(xml)
    assert (root.get("failures"), root.get("errors")) == ("1", "1")
    error = root.find("testsuite/testcase[@classname='skills.lost']/error")
    assert error is not None and error.get("type") == "InfrastructureError"


def test_underpowered_warns_and_passes() -> None:
    decision = decide(lift_criteria(Trials([straddling_trial()]), BANDS))
    assert decision.verdict == "warn" and decision.exit_code == 0


def test_a_metric_that_does_not_apply_warns_rather_than_passing_silently() -> None:
    trials = Trials([helpful_trial()])
    criteria = lift_criteria(trials, LiftBands(metric="behavior_check"))
    assert [c.status for c in criteria] == ["warn"]


def test_closure_failure_is_a_warning() -> None:
    good = valuation()
    bad = Value("skills/x", good.units, closure_ratio=0.6, closure_ci=(0.5, 0.7))
    tiny = Value("skills/y", good.units, content_lift=0.001, closure_ratio=None, closure_ci=None)
    statuses = [c.status for c in closure_criteria([good, bad, tiny])]
    assert statuses == ["pass", "warn", "skipped"]
    assert decide(closure_criteria([bad])).exit_code == 0


def test_scan_criteria_agree_with_the_scan_verdicts() -> None:
    result = sample_result()
    criteria = scan_criteria(result)
    failing = {c.subject for c in criteria if c.status == "fail"}
    assert failing == {r.skill for r in result.skills if r.verdict == "fail"}
