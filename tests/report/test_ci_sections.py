"""The CI comment's sections and charts, rendered from hand-made trial and SkillSV results."""

from __future__ import annotations

import re

from aces_ci.report import (
    SourceLinks,
    cost_table,
    estimand_section,
    lift_chart,
    lift_table,
    low_value_units,
    metric_lifts,
    pruning_chart,
    scan_table,
    score_vs_lift,
    spearman,
)

from .builders import PDF, build_registry, clean_report, pdf_report, sample_result
from .live_builders import Curve, Lift, Trial, helpful_trial, straddling_trial, valuation

LINKS = SourceLinks("https://github.com", "acme/skills", "abc123", "packages/agent")
REGISTRY = build_registry()


def test_links_are_pinned_to_the_commit_and_the_scanned_root() -> None:
    assert LINKS.url("skills/a b/SKILL.md", 3) == (
        "https://github.com/acme/skills/blob/abc123/packages/agent/skills/a%20b/SKILL.md#L3"
    )
    assert LINKS.url("x.md", 4, 9).endswith("x.md#L4-L9")
    assert SourceLinks("https://github.com", "o/r", "s").path("skills/x") == "skills/x"


def test_a_repository_path_is_named_from_the_scanned_root_as_the_scan_names_it() -> None:
    assert LINKS.scanned("packages/agent/skills/pdf") == "skills/pdf"
    assert LINKS.scanned(LINKS.path("skills/pdf/SKILL.md")) == "skills/pdf/SKILL.md"
    assert LINKS.scanned("packages/agent") == "."  # the scanned root is itself the skill
    assert LINKS.scanned("packages/agentic/x") == "packages/agentic/x", "a sibling is not inside the root"
    assert SourceLinks("https://github.com", "o/r", "s").scanned("skills/x") == "skills/x"


def test_scan_table_links_each_skill_and_marks_changed_ones() -> None:
    table = scan_table(sample_result(), LINKS, changed=[PDF])
    assert (
        "| [skills/pdf-tools](https://github.com/acme/skills/blob/abc123/packages/agent/skills/pdf-tools/SKILL.md) ✎"
        in table
    )
    assert "✎ changed in this change." in table
    assert table.count("\n|") >= 4


def test_lift_table_has_interval_n_runs_and_detectable_lift() -> None:
    table = lift_table(helpful_trial(), 0.95)
    row = next(line for line in table.splitlines() if line.startswith("| composite"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells == ["composite", "+0.210", "[+0.120, +0.300]", "0.600", "0.400", "30", "3", "0.080"]
    assert "Not applicable to this skill's cases: behavior check." in table
    assert "12 gains, 3 regressions, 15 ties" in table and "not a measure of harm" in table


def test_cost_table_gives_per_rollout_turns_and_wall_time() -> None:
    table = cost_table(helpful_trial().cost)
    row = next(line for line in table.splitlines() if line.startswith("| with "))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells == ["with", "90", "120,000", "30,000", "50,000", "3.0", "5.0", "$0.4200"]


def test_low_value_units_link_their_lines_lowest_first() -> None:
    table = low_value_units(valuation(), LINKS)
    rows = [line for line in table.splitlines() if line.startswith("| [")]
    assert len(rows) == 2
    assert "SKILL.md#L14-L18" in rows[0] and "delete" in rows[0]
    assert "compress" in rows[1]
    assert "\\|" in rows[0] and "&lt;paths&gt;" in rows[0]  # the preview cannot break the table
    # the decisions lead, counted from the units themselves
    assert table.startswith("Cut 1 unit (")
    assert "compress 1; keep 1; 1 unresolved" in table.splitlines()[0]


def test_estimand_is_collapsed() -> None:
    text = estimand_section([helpful_trial()])
    assert text.startswith("<details>") and "case-clustered interval" in text


def test_spearman_matches_hand_computation() -> None:
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == 1.0
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == -1.0
    assert abs((spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]) or 0) - 0.8) < 1e-12
    assert spearman([1, 2], [1, 2]) is None
    assert spearman([1, 1, 1], [1, 2, 3]) is None


def test_score_vs_lift_labels_a_correlation_over_few_skills() -> None:
    scan = sample_result()
    trials = [
        helpful_trial(PDF),
        straddling_trial("skills/clean"),
        Trial("skills/ünïcode", {"composite": Lift(0.1, (0, 0.2))}),
    ]
    text = score_vs_lift(scan, trials, "composite")
    assert "ρ = " in text and "over 3 skills" in text and "supports no general claim" in text
    two = score_vs_lift(sample_result(pdf_report(), clean_report()), trials[:2], "composite")
    assert "not defined" in two


def _series(chart: str) -> list[list[float]]:
    return [[float(v) for v in m.split(", ")] for m in re.findall(r"(?:bar|line) \[([^\]]*)\]", chart)]


def test_lift_chart_draws_each_interval_as_a_floating_bar_with_the_bands() -> None:
    lifts = metric_lifts(helpful_trial())
    chart = lift_chart(lifts, title='skills/pdf "tools"', confidence=0.95, pass_band=0.05, fail_band=-0.1)
    assert chart.startswith("```mermaid\n%%{init:")
    assert "xychart-beta" in chart and '"pdf  tools"' not in chart
    highs, tick_top, tick_bottom, lows, zero, pass_line, fail_line = _series(chart)
    assert highs == [lift.ci[1] for _, lift in lifts]
    assert lows == [lift.ci[0] for _, lift in lifts]
    assert all(lo <= b <= t <= hi for lo, b, t, hi in zip(lows, tick_bottom, tick_top, highs, strict=True))
    assert set(zero) == {0.0} and set(pass_line) == {0.05} and set(fail_line) == {-0.1}
    low, high = map(float, re.search(r'interval" (\S+) --> (\S+)', chart).groups())  # type: ignore[union-attr]
    assert low <= min(lows) and high >= max(highs)
    assert '"behavior check"' not in chart  # not applicable: not drawn


def test_pruning_chart_draws_one_line_per_method_and_never_extrapolates() -> None:
    curves = [*valuation().pruning, Curve("judge", [0, 1, 2], [0.6, 0.5, 0.4], 0.5)]
    chart, notes = pruning_chart(curves, title="pruning")
    assert len(_series(chart)) == 3
    assert "skillsv (AUC 0.611, blue)" in chart
    assert notes == ("judge covers 0–2 units removed only; not drawn",)
