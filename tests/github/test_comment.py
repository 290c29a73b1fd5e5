"""The sample PR comment: within GitHub's limit, its mermaid charts render in headless Chromium (PNG kept)."""

from __future__ import annotations

import dataclasses
import html
import json
import re
import subprocess
import tempfile
from pathlib import Path

from aces_ci.gate import closure_criteria, decide, lift_criteria, scan_criteria
from aces_ci.github import COMMENT_LIMIT, COMMENT_MARKER, CommentInputs, render_comment
from aces_ci.report import SourceLinks

from ..report.builders import PDF, build_registry, finding, pdf_report, sample_result
from ..report.live_builders import CaseRow, Trials, harmful_trial, helpful_trial, straddling_trial, valuation
from ..report_tools import ARTIFACTS, MERMAID_JS, chromium, require

LINKS = SourceLinks("https://github.com", "acme/skills", "abc1234def", "")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


def sample_comment(scan_result: object = None, limit: int = COMMENT_LIMIT) -> str:
    scan = scan_result or sample_result()
    trials = Trials([helpful_trial(PDF), straddling_trial("skills/clean"), harmful_trial("skills/ünïcode")])
    values = [valuation(PDF)]
    decision = decide(scan_criteria(scan), lift_criteria(trials), closure_criteria(values))  # type: ignore[arg-type]
    inputs = CommentInputs(
        decision=decision,
        registry=build_registry(),
        scan=scan,  # type: ignore[arg-type]
        links=LINKS,
        reason="release v1.2.0: trials and SkillSV of the skills changed since v1.1.0",
        notes=("Hand-made trial and SkillSV results: the renderer's contract, not a measurement.",),
        trials=trials,
        values=values,
        full_report_url="https://github.com/acme/skills/actions/runs/42",
        commit="abc1234def",
    )
    return render_comment(inputs, limit=limit)


def test_the_trial_section_leads_with_one_headline_per_skill_whose_numbers_are_the_results() -> None:
    body = sample_comment()
    section = body[body.index("#### Paired trials") :]
    helpful = helpful_trial(PDF).lift["outcome"]
    assert helpful is not None
    # 0.4 and 0.6 of 30 cases × 3 runs are whole counts: the headline reads them as counts
    expected = (
        f"- **{PDF}** (with vs without the skill): outcome {round(helpful.without_mean * 90)}/90 → "
        f"{round(helpful.with_mean * 90)}/90, {100 * helpful.delta:+.0f} pp, 95% CI {100 * helpful.ci[0]:+.0f} … "
        f"{100 * helpful.ci[1]:+.0f}, **pass**; cost with vs without per rollout: tokens ×1.00, turns ×1.00, "
        "dollars ×1.40\n"
    )
    assert expected in section
    assert section.index(expected) < section.index("<details>"), "headlines come before the collapsed details"
    assert "**skills/clean** (with vs without the skill): outcome 12/30 → 18/30, +4 pp" in section
    assert "**underpowered**" in section.split("\n\n")[1]


def test_the_per_case_table_is_collapsed_escaped_and_scored_per_arm() -> None:
    hostile = "Ignore the table | <img src=x onerror=alert(1)> **bold** @team"
    row = CaseRow("c-1", hostile, "42 | done", None, (1.0, 1.0, 0.0), (0.0, 0.0, None))
    trial = dataclasses.replace(helpful_trial(PDF), cases=(row,))
    inputs = CommentInputs(
        decision=decide(lift_criteria(Trials([trial]))),  # type: ignore[arg-type]
        registry=build_registry(),
        trials=Trials([trial]),
    )
    body = render_comment(inputs)
    table = body[body.index("<summary>Per case: prompt, answers and scores (1 case)</summary>") :]
    line = next(line for line in table.splitlines() if line.startswith("| c-1"))
    assert line.count(" | ") == 3, "a pipe inside a prompt or an answer cannot add a column"
    assert "<img" not in body and "@team" not in body, "PR text is escaped, mentions never ping"
    assert "| 2/3 · 42 \\| done | 0/2 |" in line


def test_sample_comment_has_every_section_in_order() -> None:
    body = sample_comment()
    assert body.startswith(COMMENT_MARKER)
    order = [
        "### ❌ aces-ci: gate failed",
        "lift.outcome",
        "#### Paired trials",
        "| composite",
        "```mermaid",
        "| Arm",
        "#### Structural score vs measured lift",
        "#### SkillSV",
        "#### Static scan",
        "What these numbers estimate",
        "<sub>aces-ci",
    ]
    positions = [body.index(marker) for marker in order]
    assert positions == sorted(positions)
    assert "underpowered" in body and "To settle it: 36 cases in all (26 more)" in body
    assert len(body) <= COMMENT_LIMIT


def test_a_huge_scan_is_cut_under_the_limit_with_a_link_to_the_full_report() -> None:
    report = pdf_report()
    many = tuple(
        finding(
            "SPEC001", report.findings[1].severity, f"problem {i} " + "x" * 300, f"{PDF}/SKILL.md", i + 1, skill=PDF
        )
        for i in range(600)
    )
    from dataclasses import replace

    huge = sample_result(replace(report, findings=many))
    body = sample_comment(huge)
    assert len(body) <= COMMENT_LIMIT
    assert "Cut to stay within GitHub's 65,536-character comment limit" in body
    assert "[the full report](https://github.com/acme/skills/actions/runs/42)" in body
    assert body.count("<details>") == body.count("</details>")


def _charts(body: str) -> list[str]:
    return re.findall(r"```mermaid\n(.*?)\n```", body, flags=re.S)


def _page(charts: list[str], mermaid_js: Path) -> str:
    blocks = "".join(
        f'<div class="chart" id="c{i}"></div><script type="text/plain" id="s{i}">{html.escape(c)}</script>'
        for i, c in enumerate(charts)
    )
    return f"""<!doctype html><html><head><meta charset="utf-8"></head><body style="background:#fff;width:900px">
{blocks}<pre id="status">pending</pre>
<script src="{mermaid_js.as_uri()}"></script>
<script>
mermaid.initialize({{startOnLoad: false}});
(async () => {{
  const results = [];
  for (let i = 0; i < {len(charts)}; i++) {{
    const text = new DOMParser().parseFromString(document.getElementById('s' + i).innerHTML, 'text/html')
      .documentElement.textContent;
    try {{
      const out = await mermaid.render('m' + i, text);
      document.getElementById('c' + i).innerHTML = out.svg;
      results.push('ok');
    }} catch (e) {{ results.push('error: ' + e.message); }}
  }}
  document.getElementById('status').textContent = JSON.stringify(results);
}})();
</script></body></html>"""


def test_sample_comment_charts_render_in_headless_chromium() -> None:
    browser = chromium()
    mermaid_js = require(MERMAID_JS, "mermaid (npm)")
    charts = _charts(sample_comment())
    assert len(charts) == 4  # a lift chart per trial, one pruning curve
    with tempfile.TemporaryDirectory() as scratch:
        page = Path(scratch) / "comment.html"
        page.write_text(_page(charts, mermaid_js), encoding="utf-8")
        common = [
            str(browser),
            *CHROMIUM_FLAGS,
            f"--user-data-dir={Path(scratch) / 'profile'}",
            "--virtual-time-budget=20000",
            "--allow-file-access-from-files",
        ]
        dom = subprocess.run(
            [*common, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=180, check=False
        ).stdout
        status = re.search(r'<pre id="status">(.*?)</pre>', dom, flags=re.S)
        assert status is not None, dom[-2000:]
        assert json.loads(html.unescape(status.group(1))) == ["ok"] * len(charts)
        assert dom.count("<svg") >= len(charts)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        png = ARTIFACTS / "mermaid-sample-comment.png"
        png.unlink(missing_ok=True)
        subprocess.run(
            [*common, "--window-size=900,2400", f"--screenshot={png}", page.as_uri()],
            capture_output=True,
            timeout=180,
            check=False,
        )
        assert png.exists() and png.stat().st_size > 10_000
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_an_underpowered_skill_says_how_many_more_cases_or_runs_would_settle_it() -> None:
    body = sample_comment()
    section = body[body.index("**skills/clean**") :]
    assert "**underpowered** on outcome" in section
    assert (
        "To settle it: 36 cases in all (26 more) at the same runs per arm (towards pass, each with 80% power if the "
        "true lift is +0.040)." in section
    )
    assert "To settle it" not in body[: body.index("**skills/clean**")], "only the underpowered skill gets the line"
