"""The HTML report rendered from fixture results: every section there, the numbers the JSON's, nothing invented."""

from __future__ import annotations

import pytest

from aces_ci.report.html._value_document import heat_class
from aces_ci.safe_text import printable
from tests.report.html.dom import Node
from tests.report.html.fixtures import (
    HOSTILE,
    compress_doc,
    rerun_doc,
    scan_doc,
    trial_doc,
    trial_skill,
    trigger_doc,
    value_doc,
)
from tests.report.html.helpers import dom, page_data, render

SECTION_IDS = ["verdict", "lift", "cases", "triggers", "skillsv", "compress", "cost", "scan"]


@pytest.mark.parametrize(
    ("given", "missing"),
    [
        (("scan",), {"verdict", "lift", "cases", "triggers", "skillsv", "compress", "cost"}),
        (("trial",), {"triggers", "skillsv", "compress", "scan"}),
        (("value",), {"verdict", "lift", "cases", "triggers", "compress", "scan"}),
        (("trigger",), {"verdict", "lift", "cases", "skillsv", "compress", "cost", "scan"}),
        (("compress",), {"verdict", "lift", "cases", "triggers", "skillsv", "cost", "scan"}),
        (("scan", "trial", "trigger", "value", "compress", "rerun"), set()),
    ],
)
def test_every_section_is_on_the_page_and_says_when_its_results_were_not_given(
    given: tuple[str, ...], missing: set[str]
) -> None:
    make = {
        "scan": scan_doc,
        "trial": trial_doc,
        "value": value_doc,
        "trigger": trigger_doc,
        "compress": compress_doc,
        "rerun": lambda: rerun_doc("2026-10-01T00:00:00Z", "m", 0.3),
    }
    root = dom(*((f"{kind}.json", make[kind]()) for kind in given))
    sections = root.find_all("section")
    assert [s.attrs["id"] for s in sections] == SECTION_IDS
    for s in sections:
        said = [p.text() for p in s.find_all("p", class_="missing") if p.text().startswith(("No ", "Cost: no"))]
        assert bool(said) == (s.attrs["id"] in missing), (s.attrs["id"], said)


def test_the_verdict_headline_of_each_skill_is_the_json_s_numbers() -> None:
    data = trial_doc()
    root = dom(("trial.json", data))
    rows = root.find_all("tr", class_="skill-verdict")
    assert [r.attrs["data-skill"] for r in rows] == [s["skill"] for s in data["skills"]]
    for row, skill in zip(rows, data["skills"], strict=True):
        lift = skill["lift"]["outcome"]
        runs = lift["n_cases"] * lift["runs_per_arm"]
        before, after = round(lift["without_mean"] * runs), round(lift["with_mean"] * runs)
        low, high = lift["ci"]
        expected = (
            f"outcome {before}/{runs} → {after}/{runs}, {100 * lift['delta']:+.0f} pp, "
            f"95% CI {100 * low:+.0f} … {100 * high:+.0f}"
        )
        assert row.one("td", class_="headline").text() == expected
        assert row.find_all("span", class_="verdict")[0].text() == skill["verdict"]
    header = root.one("div", class_="trial-header").text()
    assert "anthropic/claude-haiku-4-5" in header and "builtin 1" in header and "2026-11-30T12:00:00+00:00" in header
    assert "Commits compared: not recorded in this trial result" in header
    estimands = [p.text() for p in root.find_all("p", class_="estimand")]
    assert estimands[0] == f"Estimand (skills/pdf-tools): {data['skills'][0]['estimand']}"
    assert "30 more cases would likely settle it" in rows[1].text()
    machine = page_data(root)["skills"]
    assert [(s["skill"], s["verdict"], s["delta"], s["ci"]) for s in machine] == [
        (s["skill"], s["verdict"], s["lift"]["outcome"]["delta"], s["lift"]["outcome"]["ci"]) for s in data["skills"]
    ]


def test_the_forest_plot_draws_metrics_that_varied_with_the_aa_floor_and_lists_the_rest() -> None:
    data = trial_doc()
    root = dom(("trial.json", data))
    first, second = root.find_all("div", class_="skill-lift")[:2]
    svg = first.one("svg", class_="forest")
    labels = [g.find_all("text")[0].text() for g in svg.find_all("g", class_="row")]
    assert labels == ["outcome 0.30→0.90 n=10×3", "composite 0.30→0.60 n=10×3", "A/A noise floor n=10×3"]
    assert len(svg.find_all("rect", class_="band-pass")) == 1 and len(svg.find_all("rect", class_="band-fail")) == 1
    assert len(svg.find_all("circle", class_="pt-aa")) == 1
    unplotted = [li.text() for li in first.one("ul", class_="unplotted").find_all("li")]
    assert "accuracy: no variation (every run scored 1.00 in both arms)" in unplotted
    assert "security: no security checks in the evals" in unplotted
    deltas = {r.attrs["data-metric"]: r.one("td", class_="delta").text() for r in first.find_all("tr")[1:]}
    assert deltas["outcome"] == f"{data['skills'][0]['lift']['outcome']['delta']:+.3f}"
    assert "A/A noise floor: not measured" in second.text()


def test_each_case_row_holds_its_runs_its_discordance_and_both_answers_folded() -> None:
    data = trial_doc()
    root = dom(("trial.json", data))
    table = root.find_all("table", class_="cases")[0]
    rows = table.find_all("tr")[1:]
    cases = data["skills"][0]["cases"]
    assert [r.attrs["data-case"] for r in rows] == [c["case"] for c in cases]
    for row, case in zip(rows, cases, strict=True):
        gain = sum(case["with_scores"]) - sum(case["control_scores"])
        assert row.find_all("td")[3].text() == ("gain" if gain > 0 else "regression" if gain < 0 else "tie")
        pair = row.one("div", class_="pair").text()
        assert case["with_answer"] in pair and case["control_answer"] in pair
    long_answer = root.find_all("table", class_="cases")[1].find_all("tr")[1]
    assert "more characters" in long_answer.one("div", class_="pair").text()  # folded past 600 characters
    head = [th.text() for th in table.find_all("th")]
    assert head == [
        "Case",
        "With: outcome (runs)",
        "Control: outcome (runs)",
        "Discordance",
        "Trigger (with-runs that loaded the skill)",
    ]


def test_each_case_says_how_many_of_its_with_runs_loaded_the_skill() -> None:
    data = trial_doc()
    root = dom(("trial.json", data))
    rows = root.find_all("table", class_="cases")[0].find_all("tr")[1:]
    for row, case in zip(rows, data["skills"][0]["cases"], strict=True):
        cell = row.one("td", class_="trigger")
        known = [flag for flag in case["with_triggered"] if flag is not None]
        marks = " ".join("·" if f is None else "✓" if f else "✗" for f in case["with_triggered"])
        assert cell.text() == f"{sum(known)}/{len(known)} loaded{marks}"
        assert float(cell.attrs["data-v"]) == pytest.approx(sum(known) / len(known), abs=5e-5)
    assert rows[0].one("td", class_="trigger").text().endswith("·")  # the run with no answer is unknown, not "no"
    older = trial_doc()
    for case in older["skills"][0]["cases"]:
        del case["with_triggered"]
    older["skills"][1]["cases"][0]["with_triggered"] = None
    root = dom(("trial.json", older))
    assert {c.text() for c in root.find_all("table", class_="cases")[0].find_all("td", class_="trigger")} == {
        "not recorded"
    }
    assert root.find_all("table", class_="cases")[1].find_all("td", class_="trigger")[0].text() == "no skill to load"


def _lines(block: Node) -> list[tuple[int, str]]:
    """A block's numbered lines as (number, text), folded ones included."""
    out = []
    for pre in block.one("div", class_="src").find_all("pre"):
        number = None
        for child in pre.children:
            if isinstance(child, Node):
                number = int(child.text())
            elif number is not None:
                out.append((number, child.removesuffix("\n")))
                number = None
    return out


def test_skillsv_shows_the_skill_s_lines_with_each_unit_s_heat_margin_and_decision() -> None:
    data = value_doc(60)
    root = dom(("value.json", data))
    by_id = {u["id"]: u for u in data["units"]}
    margin = data["settings"]["margin"]
    units = root.find_all("div", class_="unit")
    assert sorted(u.attrs["data-unit"] for u in units) == sorted(by_id)  # every unit annotated exactly once
    for unit in units:
        raw = by_id[unit.attrs["data-unit"]]
        if raw["kind"] == "trigger":
            assert unit.one("span", class_="verdict").text() == "trigger"
            continue
        assert float(unit.attrs["data-effect"]) == raw["net_effect"]
        assert unit.one("span", class_="verdict").text() == raw["decision"]
    skill_md = root.one("details", class_="document", **{"data-file": "SKILL.md"})
    shown: dict[int, str] = {}
    for block in skill_md.find_all("div", class_="blk"):
        owner = block.attrs.get("data-owner")
        heat = block.one("div", class_="heat").attrs["class"].split()
        lines = _lines(block)
        for number, line in lines:
            shown[number] = line
            unit = next(
                (u for u in data["units"] if u["file"] == "SKILL.md" and u["lines"][0] <= number <= u["lines"][1]), None
            )
            assert owner == (None if unit is None else unit["id"]), number
        if owner is None:
            assert heat == ["heat"]
            continue
        raw = by_id[owner]
        effect = data["trigger_value"]["value"] if raw["kind"] == "trigger" else raw["net_effect"]
        assert heat[1] == heat_class(effect, margin)
        beside = block.find_all("div", class_="unit")
        assert [u.attrs["data-unit"] for u in beside] == [owner]  # the decision sits beside the unit's first line
    document = next(d for d in data["documents"] if d["file"] == "SKILL.md")
    expected = [printable(line) for line in document["text"].splitlines()]  # bidi controls written visibly
    assert [shown[n] for n in sorted(shown)] == expected  # every line, in order, as text
    assert sorted(shown) == list(range(1, document["lines"] + 1))
    assert printable(HOSTILE) in shown.values()  # the planted line is text, not markup
    forms = root.one("details", class_="document", **{"data-file": "references/forms.md"})
    assert "open" not in forms.attrs and "68 more lines" in forms.find_all("details")[1].text()  # a long resource folds
    logo = root.one("details", class_="document", **{"data-file": "assets/logo.png"})
    assert "binary, 2,048 bytes, not embedded" in logo.text()
    assert "references/forms.md:1–80" in forms.one("div", class_="unit", **{"data-unit": "u58"}).text()
    points = root.one("svg", class_="value-map").find_all("circle")
    assert len(points) == 59
    pruning = root.one("svg", class_="pruning")
    assert [p.attrs["class"] for p in pruning.find_all("polyline")] == ["c-skillsv", "c-closure_loo", "c-random"]
    aucs = [li.text() for li in root.one("ul", class_="aucs").find_all("li")]
    assert aucs == [f"{c['method']}: AUC {c['auc']:.3f}" for c in data["held_out"]["curves"]]
    groups = root.one("table", class_="groups").find_all("tr")[1:]
    assert [len(g.find_all("td")) for g in groups] == [5, 5] and "no interval" in groups[1].text()
    assert data["decisions"]["summary"] in root.one("section", id="verdict").text()


def test_a_cut_document_says_where_and_lists_the_units_past_the_cut() -> None:
    data = value_doc(60)
    skill_md = data["documents"][0]
    kept = skill_md["text"].splitlines(keepends=True)[:50]
    skill_md.update(text="".join(kept), shown_lines=50, truncated=True)
    root = dom(("value.json", data))
    section = root.one("section", id="skillsv")
    assert f"Cut at line 50 of {skill_md['lines']}" in section.one("p", class_="cut").text()
    past = [u["id"] for u in data["units"] if u["file"] == "SKILL.md" and u["lines"][0] > 50]
    listed = [u.attrs["data-unit"] for u in section.find_all("div", class_="unit") if u.find_all("pre")]
    assert past and set(past) <= set(listed)
    assert len(section.find_all("div", class_="unit")) == len(data["units"])


def test_a_schema_2_value_result_without_documents_still_renders_each_unit_s_preview() -> None:
    data = value_doc(60)
    del data["documents"]
    data["schema_version"] = 2
    root = dom(("value.json", data))
    section = root.one("section", id="skillsv")
    assert "keeps no document text" in section.text()
    assert len(section.find_all("div", class_="unit")) == 60
    assert printable(HOSTILE) in [pre.text() for pre in section.find_all("pre")]


@pytest.mark.parametrize(
    ("effect", "heat"),
    [(None, "hx"), (0.0, "h0"), (0.01, "h1"), (0.05, "h2"), (0.2, "h3"), (-0.01, "n1"), (-0.05, "n2"), (-0.2, "n3")],
)
def test_the_heat_margin_steps_in_units_of_the_decision_margin(effect: float | None, heat: str) -> None:
    assert heat_class(effect, 0.02) == heat


def test_skillsv_says_what_would_settle_each_unresolved_unit_in_rollouts_and_names_the_interactions() -> None:
    data = value_doc(12)
    data["settings"]["score"]["runs"] = 2
    waiting = [u for u in data["units"] if u.get("decision") == "unresolved"]
    waiting[0].update(scores_to_decide=900, scores_to_decide_range=[450, 2100])
    waiting[1].update(scores_to_decide=300, scores_to_decide_range=[120, None])
    data["decisions"]["resolution"] = {"half_width": 0.035, "negligible_within": 0.021}
    data["interactions"] = [
        {"units": ["u1", "u6"], "effect": 0.08, "ci": [0.03, 0.13]},
        {"units": ["u2", "u3"], "effect": -0.05, "ci": [-0.09, -0.01]},
    ]
    section = dom(("value.json", data)).one("section", id="skillsv")
    rows = section.one("table", class_="unresolved").find_all("tr")[1:]
    cells = [[td.text() for td in row.find_all("td")] for row in rows]
    assert [c[0] for c in cells] == [waiting[1]["id"], waiting[0]["id"]]  # cheapest to settle first
    assert cells[0][4] == "~600 (240–…)" and cells[1][4] == "~1,800 (900–4,200)"  # two rollouts a score
    # a unit held for what requires it has no forecast: its reason says what deleting them would do
    held = "required by u2, which carry value, but deleting it with u2 might gain 0.05 or more <b>"
    lead = next(u for u in data["units"] if u.get("decision") == "keep")
    lead.update(decision="unresolved", scores_to_decide=None, scores_to_decide_range=None, reason=held)
    again = dom(("value.json", data)).one("section", id="skillsv").one("table", class_="unresolved")
    last = [td.text() for td in again.find_all("tr")[-1].find_all("td")]
    assert last[0] == lead["id"] and last[4] == held  # escaped: the page shows the text, no tag
    assert "Precision: intervals ±0.035 typically" in section.one("p", class_="precision").text()
    pairs = [
        [td.text() for td in row.find_all("td")]
        for row in section.one("table", class_="interactions").find_all("tr")[1:]
    ]
    assert pairs[0][:3] == ["u1 × u6", "work together", "+0.080"]
    assert pairs[1][:2] == ["u2 × u3", "overlap"]
    assert "closure ratio" not in section.text()  # no truncation: Σφ/Λ is an identity, not a check
    data["settings"]["tolerance"] = 0.05
    assert "closure ratio 0.97" in dom(("value.json", data)).one("section", id="skillsv").text()


def test_a_value_result_without_holdout_says_the_curves_were_not_measured() -> None:
    data = value_doc(5)
    data["held_out"] = None
    text = dom(("value.json", data)).one("section", id="skillsv").text()
    assert "Pruning curves: not measured" in text


def test_scan_findings_carry_file_line_rule_link_and_fix() -> None:
    data = scan_doc()
    root = dom(("scan.json", data))
    evil = root.find_all("div", class_="skill-scan")[2]
    rows = evil.find_all("tr", class_="finding")
    first = rows[0]
    link = first.one("a")
    assert link.attrs["href"] == "https://github.com/aces-ci/aces-ci/blob/main/docs/rules.md#sec005"
    assert first.one("code").text() == "skills/evil/SKILL.md:3"
    assert first.find_all("td")[4].text() == "see javascript:alert(4)"
    assert rows[1].find_all("a") == [] and "XYZ999" in rows[1].text()  # an id this aces-ci does not know
    assert "Structural score 55" in evil.text() and "judge score not run" in evil.text()
    summary = root.one("div", class_="scan-result").find_all("p")[0].text()
    assert f"{data['summary']['passed']} of {data['summary']['skills']} skills pass" in summary


def test_rerun_records_make_a_history_oldest_first() -> None:
    later = rerun_doc("2026-11-01T00:00:00Z", "claude-sonnet-4-5", 0.1, note="model changed")
    earlier = rerun_doc("2026-10-01T00:00:00Z", "claude-haiku-4-5", 0.3)
    root = dom(("b.json", later), ("a.json", earlier))
    rows = root.one("table", class_="history").find_all("tr")[1:]
    assert [r.find_all("td")[0].text() for r in rows] == ["2026-10-01T00:00:00Z"] * 2 + ["2026-11-01T00:00:00Z"] * 2
    pdf = [r for r in rows if r.attrs["data-skill"] == "skills/pdf-tools"]
    assert [r.find_all("td")[4].text() for r in pdf] == ["+0.300", "+0.100"]
    assert "regression" in pdf[1].text() and "model changed" in pdf[1].text()
    other = [r for r in rows if r.attrs["data-skill"] == "skills/other"]
    assert "not comparable" in other[0].text()


def test_cost_per_arm_and_lift_per_dollar_come_from_the_result() -> None:
    data = trial_doc([trial_skill("skills/a", "a", "pass", 0.9, 0.2)])
    root = dom(("trial.json", data))
    cost = root.one("div", class_="skill-cost")
    rows = cost.find_all("tr")[1:]
    arms = data["skills"][0]["cost"]["arms"]
    assert [r.find_all("td")[0].text() for r in rows] == [a["arm"] for a in arms]
    assert rows[0].find_all("td")[2].text() == f"{arms[0]['input_tokens']:,}"
    assert "cost with vs without per rollout: tokens ×" in cost.text()
    per = data["skills"][0]["cost"]["lift_per_dollar"]["lift_per_extra_usd"]
    assert f"Lift per extra dollar: {per:.3f}" in cost.text()


def test_hostile_strings_from_skills_and_answers_render_as_text() -> None:
    page = render(("scan.json", scan_doc()), ("trial.json", trial_doc()), ("value.json", value_doc(12)))
    root = dom(("scan.json", scan_doc()), ("trial.json", trial_doc()), ("value.json", value_doc(12)))
    scripts = root.find_all("script")
    assert [s.attrs.get("type") for s in scripts] == ["application/json", None]  # ours only
    assert "alert" not in scripts[1].text()
    assert root.find_all("img") == []
    assert all(not a.attrs.get("href", "").lower().startswith(("javascript", "data")) for a in root.find_all("a"))
    assert all(not k.startswith("on") for node in root.walk() for k in node.attrs)
    assert "\u202e" not in page and "\u202c" not in page  # bidi controls written as visible escapes
    shown = HOSTILE.replace("\u202e", "\\u202e").replace("\u202c", "\\u202c")
    texts = root.one("main").text()
    assert texts.count(shown) >= 5  # skill name, finding, case id, prompt, unit preview
    assert page_data(root)["sources"] == ["scan.json", "trial.json", "value.json"]
    assert page.count("</script>") == 2


def test_a_result_that_measured_little_says_what_is_missing_instead_of_inventing() -> None:
    skill = trial_skill("skills/thin", "thin", "underpowered", 0.5, 0.5)
    skill.update(discordance=None, trigger=None, settle=None, noise_floor=None)
    skill["lift"]["outcome"] = None
    skill["not_applicable"]["outcome"] = "no case was scored in both arms"
    skill["cost"]["lift_per_dollar"] = None
    for arm in skill["cost"]["arms"]:
        arm["usd"] = None
    skill["cases"][0].update(with_answer=None, control_answer=None, prompt=None, with_scores=[None, None, None])
    value = value_doc(4, hostile=False)
    value.update(decisions=None, held_out=None, content_lift=None, closure_ratio=None, trigger_value=None, groups=[])
    for unit in value["units"][1:]:
        unit.update(net_effect=None, ci=None, content_value=None, context_cost=None, decision="unresolved")
    root = dom(("trial.json", trial_doc([skill])), ("value.json", value))
    text = root.one("main").text()
    assert "no outcome lift, no case was scored in both arms" in root.one("td", class_="headline").text()
    assert "outcome: no case was scored in both arms" in text
    assert "Trigger: not measured in this trial." in text
    assert "Lift per extra dollar: not computed (no price for this model)." in text
    assert "The with arm used no more tokens per rollout" not in text
    assert "no price" in root.one("div", class_="skill-cost").find_all("tr")[1].text()
    assert "No answer kept in the result." in text
    assert "no score" in root.one("table", class_="cases").find_all("tr")[1].text()
    assert "Pruning curves: not measured" in text and "Section tree: the result holds no sections." in text
    assert "Content value vs context cost: not in this result" in text
    owned = [b for b in root.find_all("div", class_="blk") if "data-owner" in b.attrs]
    assert len({b.attrs["data-owner"] for b in owned}) == 4
    assert {b.one("div", class_="heat").attrs["class"] for b in owned} == {"heat hx"}  # hatched: not estimated


def test_without_a_price_the_lift_is_given_per_extra_1k_tokens() -> None:
    skill = trial_skill("skills/free", "free", "pass", 0.9, 0.2)
    skill["cost"]["lift_per_dollar"] = None
    arms = skill["cost"]["arms"]
    root = dom(("trial.json", trial_doc([skill])))
    extra_k = (
        sum(
            sign * (a["input_tokens"] + a["output_tokens"]) / a["rollouts"]
            for sign, a in zip((1, -1), arms, strict=True)
        )
        / 1000
    )
    delta = skill["lift"]["outcome"]["delta"]
    assert f"Lift per extra 1k tokens: {delta / extra_k:+.3f}" in root.one("div", class_="skill-cost").text()


def test_a_trigger_trial_shows_recall_and_false_triggers_with_intervals_the_verdicts_and_the_confusion() -> None:
    data = trigger_doc()
    root = dom(("trigger.json", data))
    section = root.one("section", id="triggers")
    rows = section.one("table", class_="triggers").find_all("tr")[1:]
    assert [r.attrs["data-skill"] for r in rows] == [s["skill"] for s in data["skills"]]
    first = [td.text() for td in rows[0].find_all("td")]
    assert first[1:4] == ["0.92 (11/12 queries) [0.62, 0.99]", "0.12 (1/8 queries) [0.00, 0.47]", "pass"]
    assert first[4] == "recall at the earlier ref 0.67, change +0.25 [+0.05, +0.45] over 12 queries: improvement"
    assert [td.text() for td in rows[2].find_all("td")][1] == "not measured (n = 0)"  # said, not drawn as zero
    chart = section.one("svg", class_="rates")
    drawn = [g.one("text").text() for g in chart.find_all("g", class_="row")]
    assert drawn == [
        "skills/pdf-tools recall n=12",
        "skills/pdf-tools false triggers n=8",
        "skills/evil recall n=12",
        "skills/evil false triggers n=8",
        "skills/quiet false triggers n=4",
    ]
    assert "recall ≥ 0.70" in chart.text() and "v1.0.0 (0123abcd0123)" in section.text()
    confusion = section.one("table", class_="confusion").find_all("tr")[2]
    assert confusion.find_all("td")[1].text() == printable(HOSTILE) and not root.find_all("img")
    verdicts = [li.text() for li in root.one("section", id="verdict").find_all("li", **{"data-skill": "skills/evil"})]
    assert verdicts == ["skills/evil: fail recall 0.25 (3/12 queries) [0.05, 0.57]"]
    verdict_text = root.one("section", id="verdict").text()
    assert "No paired-trial result given: no lift verdict or estimand to state." in verdict_text
    assert "no live verdict" not in verdict_text, "the trigger verdicts above are live verdicts"
    machine = [s for s in page_data(root)["skills"] if s["kind"] == "trigger"]
    assert [(s["skill"], s["verdict"], s["recall"], s["ci"]) for s in machine] == [
        (s["skill"], s["verdict"], s["recall"]["value"], s["recall"]["interval"]) for s in data["skills"]
    ]
