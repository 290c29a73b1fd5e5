"""Every file:line the page shows opens its lines at the commit when the run knows its repository.

``ci`` gives each result its links (the scanned root for a scan, the skill's folder for a valuation or a
compression); a page rendered from files alone shows the same text unlinked. The paths are the skill's
own, so hostile ones must stay text in the label and percent-encoded in the URL.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from aces_ci.app._ci_results import document_links
from aces_ci.report import SourceLinks
from aces_ci.report.html import document_from, render_html
from tests.report.html.dom import Node, parse
from tests.report.html.fixtures import COMPRESS_HOSTILE, compress_doc, scan_doc, value_doc

SHA = "0123456789abcdef0123456789abcdef01234567"
LINKS = SourceLinks("https://github.com", "acme/skills", SHA, "catalog")
BLOB = f"https://github.com/acme/skills/blob/{SHA}/"


def _page(kind: str, data: dict[str, Any], links: SourceLinks | None) -> Node:
    doc = replace(document_from(data, f"{kind}.json"), links=links)
    return parse(render_html([doc]))


def _section(root: Node, name: str) -> Node:
    return next(s for s in root.find_all("section") if s.attrs["id"] == name)


def _hrefs(node: Node) -> list[str]:
    return [a.attrs["href"] for a in node.find_all("a", class_="src")]


def test_a_scan_finding_links_its_line_under_the_scanned_root_and_a_hostile_path_stays_inert() -> None:
    data = scan_doc()
    md = "skills/evil/SKILL.md"
    evil = next(s for s in data["skills"] if s["skill"] == "skills/evil")
    evil["findings"].append({**evil["findings"][0], "path": 'skills/evil/a"><img src=x onerror=alert(1)>.md'})
    linked = _section(_page("scan", data, LINKS), "scan")
    plain = _section(_page("scan", data, None), "scan")

    hrefs = _hrefs(linked)
    assert f"{BLOB}catalog/{md}#L3" in hrefs  # the SEC005 finding at line 3, under the scanned root's prefix
    assert f"{BLOB}catalog/{md}" in hrefs  # a finding without a line opens the file
    hostile = [h for h in hrefs if "onerror" in h]
    assert hostile == [f"{BLOB}catalog/skills/evil/a%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E.md#L3"]
    assert linked.find_all("img") == [] and all("onerror" not in n.attrs for n in linked.walk())
    assert linked.text() == plain.text(), "a link changes where the text points, never what it says"
    assert _hrefs(plain) == []


def test_a_valuation_links_its_unresolved_units_and_sections_from_the_skills_folder() -> None:
    data = value_doc()
    skill_links = replace(LINKS, prefix="catalog/skills/acme")
    section = _section(_page("value", data, skill_links), "skillsv")
    hrefs = _hrefs(section)
    waiting = [u for u in data["units"] if u.get("decision") == "unresolved"]
    assert waiting
    for unit in waiting:
        first, last = unit["lines"]
        span = f"#L{first}-L{last}" if last > first else f"#L{first}"  # one line is anchored alone
        assert f"{BLOB}catalog/skills/acme/{unit['file']}{span}" in hrefs
    assert f"{BLOB}catalog/skills/acme/SKILL.md#L6" in hrefs and f"{BLOB}catalog/skills/acme/SKILL.md#L50" in hrefs
    assert _hrefs(_section(_page("value", data, None), "skillsv")) == []


def test_a_compression_links_each_unit_it_removes_and_keeps_the_hostile_file_name_as_text() -> None:
    data = compress_doc()
    section = _section(_page("compress", data, replace(LINKS, prefix="skills/acme")), "compress")
    hrefs = _hrefs(section)
    assert f"{BLOB}skills/acme/SKILL%3Cimg%20src%3Dx%20onerror%3D%22alert%281%29%22%3E.md#L13-L14" in hrefs
    changes = section.find_all("table", class_="compress-changes")[0]
    assert f"skills/acme/SKILL{COMPRESS_HOSTILE}.md:13-14" in changes.text()
    assert section.find_all("img") == []


def test_each_result_kind_gets_the_links_for_where_its_paths_start() -> None:
    skills = {"out/value/skills-acme.json": "skills/acme", "out/compress/skill.json": "."}
    assert document_links("scan", "results.json", LINKS, skills) == LINKS
    assert document_links("value", "out/value/skills-acme.json", LINKS, skills) == replace(LINKS, prefix="skills/acme")
    assert document_links("compress", "out/compress/skill.json", LINKS, skills) == replace(LINKS, prefix="")
    assert document_links("value", "elsewhere/v.json", LINKS, skills) is None  # not this run's: no skill to place
    assert document_links("trial", "out/value/skills-acme.json", LINKS, skills) is None


def test_a_path_that_climbs_out_of_the_repository_is_shown_but_not_linked() -> None:
    data = scan_doc()
    evil = next(s for s in data["skills"] if s["skill"] == "skills/evil")
    evil["findings"] = [{**evil["findings"][0], "path": "skills/evil/../../../../other/repo/blob/main/x.md"}]
    section = _section(_page("scan", data, LINKS), "scan")
    assert "skills/evil/../../../../other/repo/blob/main/x.md:3" in section.text()
    assert not [h for h in _hrefs(section) if "other" in h]
