"""The page's compression section: from ``aces-ci report compress.json --html`` and from ``compress --html``.

The fixture (``fixtures.compress_doc``) is a compress result valid against its schema, with a hostile
skill name, unit id, file path, reason, editor answer and diff: each must be on the page as text, never
markup.
"""

from __future__ import annotations

import json
from pathlib import Path

from aces_ci.cli import main
from aces_ci.schemas import validator
from tests.report.html.dom import Node, parse
from tests.report.html.fixtures import COMPRESS_HOSTILE as HOSTILE
from tests.report.html.fixtures import compress_doc
from tests.report.html.helpers import dom
from tests.skillsv.helpers import PLANTED_BODY, write_skill


def _section(root: Node) -> Node:
    return next(s for s in root.find_all("section") if s.attrs["id"] == "compress")


def test_the_compress_section_draws_each_candidate_with_its_interval_units_and_diff_as_text() -> None:
    doc = compress_doc()
    assert [e.message for e in validator("compress").iter_errors(doc)] == []
    root = dom(("compress", doc))
    section = _section(root)
    rows = {row.attrs["data-candidate"]: row.text() for row in section.find_all("tr") if "data-candidate" in row.attrs}
    assert "accepted" in rows["pruned"] and "90% (90 of 100)" in rows["pruned"]
    assert "+0.250 [+0.050, +0.450]" in rows["pruned"]
    assert "rejected" in rows["edited"] and f"loses score {HOSTILE}" in rows["edited"]
    forest = section.find_all("svg", class_="forest")
    assert len(forest) == 1 and len(forest[0].find_all("g", class_="row")) == 2  # one forest row per candidate
    label = forest[0].text()
    assert "tolerance -0.05" in label and "fail" not in label  # not a gate's fail band
    changes = section.find_all("table", class_="compress-changes")[0].text()
    assert f"skills/acme/SKILL{HOSTILE}.md:13-14" in changes and "delete" in changes
    diffs = section.find_all("details", class_="compress-diff")
    assert len(diffs) == 2 and f"-- Caution: never quote refund periods. {HOSTILE}" in diffs[0].text()
    assert f"scripts/total.sh is gone {HOSTILE}" in section.text()
    verdict = next(s for s in root.find_all("section") if s.attrs["id"] == "verdict").text()
    assert f"Compression of acme{HOSTILE}: proposed: the pruned skill" in verdict
    # every hostile string is text: no element, attribute or handler came from it
    assert root.find_all("img") == [] and all("onerror" not in node.attrs for node in root.walk())


def test_report_renders_a_saved_compress_json_and_compress_html_renders_the_same_section(tmp_path: Path) -> None:
    saved = tmp_path / "compress.json"
    saved.write_text(json.dumps(compress_doc()))
    page = tmp_path / "page.html"
    assert main(["report", str(saved), "--html", str(page)]) == 0
    section = _section(parse(page.read_text(encoding="utf-8")))
    assert "Compression of acme" in section.text() and section.find_all("table", class_="compress")

    # the verb writes the page from its own JSON (a Python oracle: no model, bounded by cases)
    skill = write_skill(tmp_path / "repo", PLANTED_BODY, {"scripts/tool.sh": "#!/bin/sh\necho TOTALS\n"})
    evals = tmp_path / "cases.json"
    evals.write_text(json.dumps({"evals": [{"id": f"c{i}", "prompt": f"question {i}"} for i in range(40)]}))
    out, html = tmp_path / "c.json", tmp_path / "c.html"
    args = ["compress", str(skill), "--evals", str(evals), "--oracle", "python:tests.skillsv.planted_oracle:expected"]
    args += ["-K", "24", "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "out")]
    assert main([*args, "--json", str(out), "--html", str(html)]) in (0, 1)
    result = json.loads(out.read_text())
    section = _section(parse(html.read_text(encoding="utf-8")))
    rows = [row for row in section.find_all("tr") if "data-candidate" in row.attrs]
    assert [row.attrs["data-candidate"] for row in rows] == [c["kind"] for c in result["candidates"]]
    assert all(c["verdict"] in row.text() for row, c in zip(rows, result["candidates"], strict=True))
    again = tmp_path / "again.html"
    assert main(["report", str(out), "--html", str(again)]) == 0
    assert parse(again.read_text(encoding="utf-8")).text() == parse(html.read_text(encoding="utf-8")).text()
