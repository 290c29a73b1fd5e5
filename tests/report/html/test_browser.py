"""The report opened in headless Chromium: it renders, runs its script without errors, and fetches nothing.

The DevTools protocol (over a pipe, :mod:`tests.report.html.browser`) records every request the
page makes; host resolution is trapped as well. A control page that does reach for the network
shows the recorder would catch it. Screenshots of the full fixture report are kept as test artifacts.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.report.html.browser import Browser
from tests.report.html.fixtures import HOSTILE, rerun_doc, scan_doc, trial_doc, trigger_doc, value_doc
from tests.report.html.helpers import render
from tests.report_tools import ARTIFACTS, chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser(chromium()) as opened:
        yield opened


@pytest.fixture(scope="module")
def full_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    page = tmp_path_factory.mktemp("html") / "report.html"
    page.write_text(
        render(
            ("trial.json", trial_doc()),
            ("trigger.json", trigger_doc()),
            ("value.json", value_doc(60)),
            ("scan.json", scan_doc()),
            ("rerun-1.json", rerun_doc("2026-10-01T00:00:00Z", "claude-haiku-4-5", 0.3)),
            ("rerun-2.json", rerun_doc("2026-11-01T00:00:00Z", "claude-sonnet-4-5", 0.1)),
        ),
        encoding="utf-8",
    )
    return page


def test_the_report_renders_every_section_with_no_error_and_no_request(browser: Browser, full_report: Path) -> None:
    log = browser.open(full_report.as_uri())
    assert log.requests == [full_report.as_uri()] and log.blocked == {}  # the page itself; nothing else tried
    assert log.errors() == [] and log.dialogs == []
    ids = browser.evaluate("Array.from(document.querySelectorAll('main > section')).map(s => s.id)")
    assert ids == ["verdict", "lift", "cases", "triggers", "skillsv", "compress", "cost", "scan"]
    assert browser.evaluate("document.querySelectorAll('#lift svg.forest g.row').length") == 7  # 3 + 2 + 2 rows
    data = json.loads(browser.evaluate("document.getElementById('aces-data').textContent"))
    trial, trigger, value = trial_doc(), trigger_doc(), value_doc(60)
    shown = [(s["skill"], s["verdict"], s["delta"], s["ci"]) for s in data["skills"] if s["kind"] == "trial"]
    assert shown == [
        (s["skill"], s["verdict"], s["lift"]["outcome"]["delta"], s["lift"]["outcome"]["ci"]) for s in trial["skills"]
    ]
    recalls = [(s["recall"], s["ci"]) for s in data["skills"] if s["kind"] == "trigger"]
    assert recalls == [(s["recall"]["value"], s["recall"]["interval"]) for s in trigger["skills"]]
    headlines = browser.evaluate("Array.from(document.querySelectorAll('td.headline')).map(td => td.innerText)")
    for headline, skill in zip(headlines, trial["skills"], strict=True):  # the numbers people read are the JSON's
        lift = skill["lift"]["outcome"]
        assert (
            f"{100 * lift['delta']:+.0f} pp, 95% CI {100 * lift['ci'][0]:+.0f} … {100 * lift['ci'][1]:+.0f}" in headline
        )
    assert browser.evaluate(
        f"document.querySelector('#verdict').innerText.includes({json.dumps(value['decisions']['summary'])})"
    )
    effects = browser.evaluate(
        "Array.from(document.querySelectorAll('#skillsv div.unit')).map(u => [u.dataset.unit, u.dataset.effect])"
    )
    by_id = {u["id"]: u.get("net_effect") for u in value["units"]}
    assert len(effects) == 60 and all(float(e) == by_id[i] for i, e in effects if i != "m")
    shown = HOSTILE.replace("\u202e", "\\u202e").replace("\u202c", "\\u202c")
    assert browser.evaluate(f"document.body.innerText.includes({json.dumps(shown)})")
    assert browser.evaluate("document.images.length") == 0
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "html-report.png"
    browser.screenshot(shot)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 50_000
    skillsv = ARTIFACTS / "html-report-skillsv.png"
    browser.screenshot(skillsv, selector="#skillsv", max_height=2400)
    assert skillsv.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and skillsv.stat().st_size > 20_000


def test_a_sortable_table_sorts_and_the_filter_hides_rows(browser: Browser, full_report: Path) -> None:
    browser.open(full_report.as_uri())
    cells = "Array.from(document.querySelectorAll('#cases-0 tbody tr')).map(r => r.cells[1].dataset.v)"
    browser.evaluate("document.querySelector('#cases-0 th:nth-child(2)').click()")
    ascending = [float(v) for v in browser.evaluate(cells)]
    assert ascending == sorted(ascending) and len(ascending) == 10
    browser.evaluate("document.querySelector('#cases-0 th:nth-child(2)').click()")
    assert [float(v) for v in browser.evaluate(cells)] == sorted(ascending, reverse=True)
    box = "document.querySelector('input[data-table=\"cases-0\"]')"
    browser.evaluate(f"{box}.value = 'case-003'; {box}.dispatchEvent(new Event('input'))")
    visible = "Array.from(document.querySelectorAll('#cases-0 tbody tr')).filter(r => !r.hidden).length"
    assert browser.evaluate(visible) == 1
    shares = "Array.from(document.querySelectorAll('#cases-0 tbody tr')).map(r => r.cells[4].dataset.v)"
    browser.evaluate("document.querySelector('#cases-0 th:nth-child(5)').click()")
    assert [float(v) for v in browser.evaluate(shares)] == sorted(float(v) for v in browser.evaluate(shares))
    names = "Array.from(document.querySelectorAll('#cases-0 tbody tr')).map(r => r.dataset.case)"
    browser.evaluate("document.querySelector('#cases-0 th:nth-child(1)').click()")
    browser.evaluate("document.querySelector('#cases-0 th:nth-child(1)').click()")
    assert browser.evaluate(names) == [f"case-{i:03d}" for i in reversed(range(10))]  # by case id, not its transcript


def test_the_recorder_would_catch_a_request_and_the_page_policy_blocks_one(browser: Browser, tmp_path: Path) -> None:
    """Control: a page reaching for the network is seen; and our own policy stops markup that would."""
    leaky = tmp_path / "leaky.html"
    leaky.write_text('<!DOCTYPE html><img src="http://example.invalid/x.png">', encoding="utf-8")
    assert "http://example.invalid/x.png" in browser.open(leaky.as_uri()).requests
    policed = tmp_path / "policed.html"
    page = render(("scan.json", scan_doc()))
    policed.write_text(page.replace("</main>", '<img src="http://example.invalid/y.png"></main>'), encoding="utf-8")
    log = browser.open(policed.as_uri())
    assert log.blocked == {"http://example.invalid/y.png": "csp"}  # stopped in the browser, before it left
    assert any("Content Security Policy" in text for _, text in log.console)


def test_dark_mode_and_print_follow_the_reader(browser: Browser, full_report: Path) -> None:
    browser.open(full_report.as_uri())
    background = "getComputedStyle(document.body).backgroundColor"
    assert browser.evaluate(background) == "rgb(255, 255, 255)"
    browser.call("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    assert browser.evaluate(background) == "rgb(13, 17, 23)"
    browser.call("Emulation.setEmulatedMedia", {"media": "print", "features": []})
    assert browser.evaluate("getComputedStyle(document.querySelector('nav')).display") == "none"
    closed = "Array.from(document.querySelectorAll('details')).filter(d => !d.open).length"
    assert browser.evaluate(closed) > 30
    browser.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    assert browser.evaluate(closed) == 0  # folded transcripts print unfolded
    browser.call("Emulation.setEmulatedMedia", {"media": "", "features": []})
    assert browser.evaluate("getComputedStyle(document.querySelector('nav')).display") == "block"
