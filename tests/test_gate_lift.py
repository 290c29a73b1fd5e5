"""The cross-tier gate: lift bands on the interval, SkillSV closure, criteria as JUnit testcases."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema

from aces_ci.gate import MAX_INFRA_SHARE, InfraLoss, closure_criteria, decide, lift_criteria, scan_criteria
from aces_ci.report import append_gate_suite, render_junit
from aces_ci.scan import skill_verdict
from aces_ci.stats import Bands

from .report.builders import build_registry, sample_result
from .report.live_builders import Trial, Trials, Value, harmful_trial, helpful_trial, straddling_trial, valuation

XSD = xmlschema.XMLSchema(Path(__file__).parent / "report" / "junit.xsd")


@pytest.mark.parametrize(
    ("verdict", "status"), [("pass", "pass"), ("neutral", "pass"), ("underpowered", "warn"), ("fail", "fail")]
)
def test_the_gate_maps_the_trials_verdict_to_a_status_without_judging_again(verdict: str, status: str) -> None:
    """The gate reads the verdict the trial reached: a hand-made verdict that its interval would not give shows it."""
    trial = dataclasses.replace(helpful_trial("skills/x"), verdict=verdict, verdict_reason="the trial's own words")
    [criterion] = lift_criteria(Trials([trial]))
    assert criterion.status == status
    assert "the trial's own words" in criterion.message and ("verdict", verdict) in criterion.properties


def test_underpowered_prints_the_trials_settle_plan() -> None:
    """The criterion quotes the settle plan the trial decided with its verdict, numbers and all."""
    trial = straddling_trial()
    [criterion] = lift_criteria(Trials([trial]))
    assert trial.settle is not None
    assert criterion.message.endswith(f"; to settle it: {trial.settle.advice}")
    assert ("cases_needed", "36") in criterion.properties


def test_underpowered_fails_when_the_bands_say_so() -> None:
    strict = Trials([straddling_trial()], bands=Bands(underpowered_fails=True))
    assert [c.status for c in lift_criteria(strict)] == ["fail"]
    with pytest.raises(ValueError, match="below the pass band"):
        Bands(pass_band=-0.2, fail_band=0.1)


def test_a_harmful_release_fails_with_a_junit_failure_naming_metric_and_interval() -> None:
    trials = Trials([helpful_trial("skills/pdf-tools"), harmful_trial("skills/harmful")])
    decision = decide(scan_criteria(sample_result()), lift_criteria(trials))

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
    message = failure.get("message") or ""
    assert "outcome lift -0.250" in message and "95% interval [-0.400, -0.100]" in message
    properties = {p.get("name"): p.get("value") for p in case.findall("properties/property")}
    assert properties["ci_high"] == "-0.1" and properties["n_cases"] == "30" and properties["verdict"] == "fail"
    assert int(root.get("failures", "0")) == sum(int(s.get("failures", "0")) for s in root.findall("testsuite"))


def test_an_outage_is_an_error_never_a_pass_and_a_small_loss_still_gates() -> None:
    """The partial-outage rule: no measured pair, or more than a tenth of the design lost, is ``error`` (exit 3)
    with the lift from what ran stated; a loss within the share leaves the lift to gate as usual."""
    composite = Bands(metric="composite")  # the composite figures below are this test's fixture
    trials = Trials(
        [helpful_trial("skills/a"), helpful_trial("skills/b"), Trial("skills/c", {"composite": None})], bands=composite
    )
    first = "retries_exhausted: gave up after 6 attempts; last error: HTTP 500"
    losses = {
        "skills/a": InfraLoss(planned=40, failed=4, not_run=0, first_error=first),  # exactly a tenth: gates
        "skills/b": InfraLoss(planned=40, failed=2, not_run=3, first_error=first),  # 5 of 40 lost
        "skills/c": InfraLoss(planned=40, failed=5, not_run=35, first_error=first),  # nothing measured
    }
    assert MAX_INFRA_SHARE == 4 / 40
    criteria = {c.subject: c for c in lift_criteria(trials, losses)}
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
    decision = decide(lift_criteria(trials, losses))
    assert (decision.verdict, decision.exit_code, decision.measured) == ("fail", 1, False)
    xml = append_gate_suite(None, decision.criteria, generated_at="2026-01-31T09:30:00Z")
    XSD.validate(xml)
    root = ET.fromstring(xml)
    assert (root.get("failures"), root.get("errors")) == ("1", "1")
    error = root.find("testsuite/testcase[@classname='skills.lost']/error")
    assert error is not None and error.get("type") == "InfrastructureError"


def test_underpowered_warns_and_passes() -> None:
    decision = decide(lift_criteria(Trials([straddling_trial()])))
    assert decision.verdict == "warn" and decision.exit_code == 0


def test_a_metric_that_does_not_apply_warns_rather_than_passing_silently() -> None:
    trials = Trials([helpful_trial()], bands=Bands(metric="behavior_check"))
    criteria = lift_criteria(trials)
    assert [c.status for c in criteria] == ["warn"]


def test_closure_failure_is_a_warning() -> None:
    good = valuation()
    bad = Value("skills/x", good.units, closure_ratio=0.6, closure_ci=(0.5, 0.7))
    tiny = Value("skills/y", good.units, content_lift=0.001, closure_ratio=None, closure_ci=None)
    statuses = [c.status for c in closure_criteria([good, bad, tiny])]
    assert statuses == ["pass", "warn", "skipped"]
    assert decide(closure_criteria([bad])).exit_code == 0


def test_scan_criteria_agree_with_the_scan_verdicts() -> None:
    """The gate's scan criteria are the checks the scan's verdict was read off: a failed one's message is the
    skill's reason, word for word, and a skill fails the gate exactly when its scan verdict is fail."""
    result = sample_result()
    criteria = scan_criteria(result)
    failing = {c.subject for c in criteria if c.status == "fail"}
    assert failing == {r.skill for r in result.skills if r.verdict == "fail"}
    for report in result.skills:
        said = tuple(c.message for c in criteria if c.subject == report.skill and c.status == "fail")
        assert said == skill_verdict(report.findings, report.score, result.min_score)[1]
