"""SkillSV's part of the CI comment: decisions first, what would settle the rest, precision, interactions."""

from __future__ import annotations

from dataclasses import replace

from aces_ci.report import SourceLinks, value_markdown

from .live_builders import Pair, Unit, valuation

LINKS = SourceLinks("https://github.com", "acme/skills", "abc123", "")


def test_the_section_leads_with_the_decisions_and_the_rollouts_that_would_settle_the_rest() -> None:
    body = value_markdown(valuation(), LINKS)
    first = body.splitlines()[0]
    assert first == (
        "**Cut 1 unit (40 tokens: 1 harmful); compress 1; keep 1; 1 unresolved (about 1,800 more rollouts would "
        "settle them, likely 900–4,100).**"
    )
    assert (
        "Precision: intervals ±0.035 typically — a unit is kept or cut from |net effect| ≈ 0.035, negligible " in body
    )
    assert body.index("Precision:") < body.index("| Unit | Decision |")  # what the run can tell, before the cuts
    assert "`aces-ci compress` scores the cut skill against the original on held-out cases" in body


def test_with_nothing_to_cut_the_section_does_not_point_to_compress() -> None:
    keep_only = [u for u in valuation().units if u.decision in ("keep", "unresolved", "compress")]
    assert "aces-ci compress" not in value_markdown(replace(valuation(), units=keep_only), LINKS)


def test_each_unresolved_unit_is_listed_folded_with_its_own_forecast_and_a_link() -> None:
    body = value_markdown(valuation(), LINKS)
    folded = body[body.index("<details>") :]
    assert "<summary>1 unresolved unit: what would settle each</summary>" in folded
    row = next(line for line in folded.splitlines() if line.startswith("| [skills/pdf-tools/scripts/run.sh:1-40]"))
    assert "| ~1,800 (900–4,100) |" in row
    assert "https://github.com/acme/skills/blob/abc123/skills/pdf-tools/scripts/run.sh#L1-L40" in row


def test_a_unit_past_the_forecasts_reach_reads_as_open_ended_and_one_without_a_forecast_says_so() -> None:
    units = [
        Unit(
            "u7",
            "skills/pdf-tools/SKILL.md",
            (3, 3),
            0.02,
            (-0.01, 0.05),
            "unresolved",
            rollouts_to_decide=5000,
            rollouts_range=(2600, None),
        ),
        Unit("u8", "skills/pdf-tools/SKILL.md", (4, 4), 0.01, (-0.05, 0.07), "unresolved"),
    ]
    body = value_markdown(replace(valuation(), units=units, interactions=()), LINKS)
    assert (
        "2 unresolved (about 5,000 more rollouts would settle 1 of them, likely 2,600 or more; 1 without a forecast)"
        in body
    )
    assert "| ~5,000 (2,600–…) |" in body and "| — |" in body


def test_a_unit_held_for_what_requires_it_says_why_where_a_forecast_would_be() -> None:
    held = Unit(
        "u1|x",
        "skills/pdf-tools/SKILL.md",
        (2, 2),
        -0.09,
        (-0.15, -0.03),
        "unresolved",
        reason="required by u2|x, which carry value, but the skill scores better without it and u2|x "
        "(together -0.057 [-0.110, -0.004]): delete them together, or rewrite u2|x not to need it",
    )
    body = value_markdown(replace(valuation(), units=[held], interactions=()), LINKS)
    assert "1 unresolved (none with a forecast: see each one's reason)" in body  # no rollouts promised
    row = next(line for line in body.splitlines() if line.startswith("| [skills/pdf-tools/SKILL.md:2]"))
    assert "the skill scores better without it and u2\\|x (together -0.057" in row
    assert row.count(" | ") == 4  # the unit id's pipe is escaped: the row keeps its five cells
    beside = Unit("u7", "skills/pdf-tools/SKILL.md", (3, 3), 0.02, (-0.01, 0.05), "unresolved", rollouts_to_decide=900)
    body = value_markdown(replace(valuation(), units=[held, beside], interactions=()), LINKS)
    assert (
        "2 unresolved (about 900 more rollouts would settle 1 of them; 1 without a forecast, see each one's reason)"
        in body
    )


def test_pairs_touching_a_unit_to_cut_come_first_and_say_so() -> None:
    pairs = (
        Pair(("u1", "r1"), 0.09, (0.03, 0.15)),
        Pair(("u3", "u1"), -0.06, (-0.10, -0.02)),
    )
    body = value_markdown(replace(valuation(), interactions=pairs), LINKS)
    lines = [line for line in body.splitlines() if line.startswith("- `")]
    assert lines[0].startswith(
        "- `u3` and `u1` overlap (either does much of the other's work): -0.060 [-0.100, -0.020]"
    )
    assert "`u3` listed above" in lines[0]
    assert lines[1] == "- `u1` and `r1` work together: +0.090 [+0.030, +0.150] when both are in"
    assert "sizes read low" in body


def test_the_closure_ratio_shows_only_where_it_can_be_off_one() -> None:
    assert "closure ratio Σφ/Λ 0.97" in value_markdown(valuation(), LINKS)
    assert "closure" not in value_markdown(replace(valuation(), closure_is_check=False), LINKS)


def test_untrusted_ids_and_previews_cannot_break_the_table_or_inject_markup() -> None:
    hostile = Unit(
        "u9`<b>",
        "skills/pdf-tools/SKILL.md",
        (8, 8),
        0.0,
        (-0.03, 0.03),
        "unresolved",
        preview="| <img src=x onerror=alert(1)> @team",
        rollouts_to_decide=400,
        rollouts_range=(200, 800),
    )
    value = replace(valuation(), units=[hostile], interactions=(Pair(("u9`<b>", "u1"), 0.05, (0.01, 0.09)),))
    body = value_markdown(value, LINKS)
    assert "<img" not in body and "&lt;img" in body
    assert "- ``u9`<b>`` and `u1` work together" in body  # an id with a backtick stays inside its code span
    row = next(line for line in body.splitlines() if "~400" in line)
    assert row.count(" | ") == 4  # five cells: the preview's pipe is escaped
