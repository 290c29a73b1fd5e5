"""One verdict: a lift is judged once, and every report prints that judgement's numbers.

For random bands and random per-case scores, the skill's verdict and its "to settle it" plan are
what :func:`aces_ci.stats.verdict` returns for the gated lift — one function, both answers — and
the CLI text, the Markdown report, the PR comment, the trial's JUnit, the gate's JUnit and the
step outputs each print that verdict, that interval and those settle numbers (read back out of
what each renderer wrote, not out of the model).
"""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET

from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from aces_ci.app._ci_outcome import gated_lifts, headline_contrast, headline_lift
from aces_ci.gate import decide
from aces_ci.github import CommentInputs, outputs, render_comment
from aces_ci.report import (
    append_gate_suite,
    render_trial_junit,
    render_trial_markdown,
    render_trial_text,
)
from aces_ci.stats import Bands, SequentialSettings, paired_lift, paired_scores, sequential_decision, verdict
from aces_ci.trials import SequentialLook, Spent, TrialDesign, TrialResult

from .report.builders import build_registry
from .trials.test_analysis import trial

SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Per-case accuracy scores: coarse enough for ties and zero-spread lifts, fine enough for any interval."""
EFFECTS = (-0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75)


@st.composite
def paired_rows(draw: st.DrawFn) -> list[tuple[float, float]]:
    """Per case (with, without): a shared effect plus a little per-case jitter, so all four verdicts and
    both kinds of settle advice (a case count, or no affordable design) come up among the examples."""
    n = draw(st.integers(2, 30))
    effect = draw(st.sampled_from(EFFECTS))
    controls = draw(st.lists(st.sampled_from(SCORES), min_size=n, max_size=n))
    jitter = draw(st.lists(st.sampled_from((0.0, 0.0, 0.0, 0.25, -0.25)), min_size=n, max_size=n))
    return [(min(max(c + effect + j, 0.0), 1.0), c) for c, j in zip(controls, jitter, strict=True)]


SETTLE_CASES = re.compile(r"(\d+) cases in all \((\d+) more")
SETTLE_RUNS = re.compile(r"(\d+) runs per case and arm \((\d+) more\)")
INTERVAL = re.compile(r"interval \[([+-]\d\.\d{3}), ([+-]\d\.\d{3})\]")


def _result(rows: list[tuple[float, float]], bands: Bands) -> TrialResult:
    outcomes = {"with": [{"accuracy": w} for w, _ in rows], "without": [{"accuracy": c} for _, c in rows]}
    skill = trial(TrialDesign(runs=1), outcomes, len(rows), bands=bands)
    return TrialResult(
        skills=(skill,),
        bands=bands,
        provider="openai",
        model="m",
        harness="builtin",
        disclosure="",
        runs=1,
        seed=0,
        coupling="independent",
        mode="isolation",
        sequential=False,
        spent=Spent(0, 0, 0, 0, None),
        tool_version="test",
        generated_at="2026-01-31T09:30:00Z",
    )


def _settle_numbers(text: str) -> set[tuple[str, int, int]]:
    return {("cases", int(a), int(b)) for a, b in SETTLE_CASES.findall(text)} | {
        ("runs", int(a), int(b)) for a, b in SETTLE_RUNS.findall(text)
    }


def _junit_case(xml: str) -> tuple[dict[str, str], str]:
    case = ET.fromstring(xml).find(".//testcase[@name='lift.accuracy']")
    assert case is not None
    properties = {p.get("name", ""): p.get("value", "") for p in case.findall("properties/property")}
    # a failure's full message is its text; a passing or warning criterion's is its system-out
    said = [node.text or "" for node in case if node.tag in ("failure", "error", "system-out")]
    assert len(said) == 1
    return properties, said[0]


@example(rows=[(0.5, 0.5)] * 29 + [(0.75, 0.5)], fail_band=-0.2, gap=0.4, underpowered_fails=False)  # neutral
@example(rows=[(1.0, 0.5), (0.5, 0.5), (0.75, 0.5), (0.25, 0.5)] * 3, fail_band=-0.1, gap=0.15, underpowered_fails=True)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=paired_rows(),
    fail_band=st.floats(-0.4, -0.01),
    gap=st.floats(0.02, 0.4),
    underpowered_fails=st.booleans(),
)
def test_the_verdict_and_settle_plan_come_from_one_function_and_every_renderer_prints_them(
    rows: list[tuple[float, float]], fail_band: float, gap: float, underpowered_fails: bool
) -> None:
    bands = Bands(fail_band + gap, fail_band, metric="accuracy", underpowered_fails=underpowered_fails)
    result = _result(rows, bands)
    [skill] = result.skills
    event(f"verdict {skill.verdict}")

    # the one function: the same paired scores through stats.verdict give the label and the plan the result holds
    one = verdict(
        paired_lift(paired_scores([[w] for w, _ in rows], [[c] for _, c in rows]), bands.alpha),
        bands,
        available_cases=len(rows),
    )
    assert (skill.verdict, skill.verdict_reason) == (one.label, one.reason)
    expected: set[tuple[str, int, int]] = set()
    if one.settle is not None:
        assert skill.settle is not None and skill.settle.advice == one.settle.advice
        s = one.settle
        if s.cases_needed is not None and s.extra_cases is not None:
            expected.add(("cases", s.cases_needed, s.extra_cases))
        if s.runs_needed is not None and s.extra_runs is not None:
            expected.add(("runs", s.runs_needed, s.extra_runs))
    else:
        assert skill.settle is None

    lift = skill.lift["accuracy"]
    assert lift is not None
    interval = (f"{lift.ci[0]:+.3f}", f"{lift.ci[1]:+.3f}")
    decision = decide(gated_lifts(result))
    text = render_trial_text(result)
    markdown = render_trial_markdown(result)
    comment = render_comment(
        CommentInputs(
            decision=decision,
            registry=build_registry(),
            trials=result,
            lift=headline_lift(result),
            lift_contrast=headline_contrast(result) or "",
        )
    )
    trial_junit, trial_message = _junit_case(render_trial_junit(result))
    gate_junit, gate_message = _junit_case(append_gate_suite(None, decision.criteria, generated_at="2026-01-31"))
    step = outputs(decision, work="trial", lift=headline_lift(result), lift_contrast=headline_contrast(result))

    # the verdict, as each renderer words it
    assert f"— {one.label.upper()}" in text
    assert re.findall(r"^### .*: \S+ (\w+)$", markdown, flags=re.MULTILINE) == [one.label]
    assert f"**{one.label}** on accuracy" in comment
    assert trial_junit["verdict"] == gate_junit["verdict"] == one.label
    assert step["verdict"] == bands.status(one.label) == result.verdict == decision.verdict

    # the interval the verdict was read off, and the numbers of the plan that would settle it
    for rendered in (text, markdown, comment, trial_message, gate_message):
        plain = rendered.replace("\\", "")  # Markdown escapes brackets: the numbers are what is compared
        assert {match.groups() for match in INTERVAL.finditer(plain)} == {interval}, plain
        assert _settle_numbers(plain) == expected, plain
    for props in (trial_junit, gate_junit):
        assert props.get("cases_needed") == (None if one.settle is None else _optional(one.settle.cases_needed))
    assert (step["lift"], step["lift-ci-low"], step["lift-ci-high"]) == (
        gate_junit["delta"],
        gate_junit["ci_low"],
        gate_junit["ci_high"],
    )
    assert (trial_junit["delta"], trial_junit["ci_low"], trial_junit["ci_high"]) == (
        gate_junit["delta"],
        gate_junit["ci_low"],
        gate_junit["ci_high"],
    )


def _optional(number: int | None) -> str | None:
    return None if number is None else str(number)


LEVELLED = re.compile(r"(\d+(?:\.\d+)?)% (?:interval|CI) \[?([+-]\d+(?:\.\d+)?)(?:,| …) ([+-]\d+(?:\.\d+)?)")


def test_a_sequential_verdict_is_read_and_labelled_at_its_looks_level() -> None:
    """A sequential trial spends α over its looks: its verdict and settle plan are those of the last look's interval,
    and every report that prints an interval labels it with the level it was computed at — the look's beside the
    verdict, the fixed design's 95% on the headline — never the look's bounds under "95%"."""
    bands = Bands(0.05, -0.10, metric="accuracy")
    rows = [(1.0, 0.5), (0.5, 0.5), (0.75, 0.5), (0.25, 0.5)] * 4  # +0.125, wide: underpowered at both levels
    rule = SequentialSettings(alpha=bands.alpha, bands=bands, case_looks=(8, 16))
    decision = sequential_decision(paired_scores([[w] for w, _ in rows], [[c] for _, c in rows]), rule)
    assert decision.state == "decided" and decision.alpha_look < bands.alpha
    look = SequentialLook(
        decision.look,
        decision.max_looks,
        decision.alpha_look,
        decision.lift.ci,
        decision.verdict.label,
        True,
        decision.reason,
    )
    outcomes = {"with": [{"accuracy": w} for w, _ in rows], "without": [{"accuracy": c} for _, c in rows]}
    skill = trial(TrialDesign(runs=1), outcomes, len(rows), bands=bands, sequential=[look])
    result = dataclasses.replace(_result(rows, bands), skills=(skill,), sequential=True)

    assert (skill.verdict, skill.settle is not None) == (decision.verdict.label, decision.verdict.settle is not None)
    assert decision.verdict.settle is not None and skill.settle is not None
    planned = (decision.verdict.settle.cases_needed, decision.verdict.settle.extra_cases)
    assert (skill.settle.cases_needed, skill.settle.extra_cases) == planned, "the look's plan, at the look's level"
    look_level = f"{100 * (1 - decision.alpha_look):.3g}"
    assert skill.verdict_reason.startswith(f"sequential trial, look 2 of 2: the {look_level}% interval [")
    lift = skill.lift["accuracy"]
    assert lift is not None and decision.lift.ci is not None
    fixed = {f"{x:+.3f}" for x in lift.ci} | {f"{100 * x:+.0f}" for x in lift.ci}
    seen = {f"{x:+.3f}" for x in decision.lift.ci}
    comment = render_comment(
        CommentInputs(decision=decide(gated_lifts(result)), registry=build_registry(), trials=result)
    )
    for rendered in (render_trial_text(result), render_trial_markdown(result), comment):
        plain = rendered.replace("\\", "")
        labels = {(level, low, high) for level, low, high in LEVELLED.findall(plain)}
        assert (look_level, *sorted(seen, key=float)) in labels, plain
        for level, low, high in labels:
            if {low, high} <= seen:
                assert level == look_level, f"the look's interval under {level}%: {plain}"
            elif {low, high} <= fixed:
                assert level == "95", f"the fixed interval under {level}%: {plain}"
