"""The cross-tier gate: lift bands on the interval, SkillSV closure, criteria as JUnit testcases."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema

from aces_ci.errors import ConfigError
from aces_ci.gate import (
    LiftBands,
    LiftSummary,
    cases_to_settle,
    closure_criteria,
    decide,
    lift_criteria,
    lift_verdict,
    scan_criteria,
)
from aces_ci.report import append_gate_suite, render_junit

from .report.builders import build_registry, sample_result
from .report.live_builders import Trials, Value, harmful_trial, helpful_trial, straddling_trial, valuation

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
    # half-width 0.13, distance to the pass band 0.10: 10 * (0.13 / 0.10)^2 = 16.9 -> 17 cases
    assert decision.cases_needed == 17
    assert "about 17 cases at 3 runs per arm (now 10)" in decision.reason
    assert cases_to_settle(_summary(0.05, -0.1, 0.2), BANDS) is None  # the estimate sits on a band


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
