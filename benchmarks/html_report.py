"""The HTML report's size and render time: a 60-unit skill's SkillSV and a trial of 200+ rollouts.

Issue 19 asks that such a report stay under 2 MB and render in Chromium in under 1 s, measured as
a ratio to a blank page loaded in the same browser in the same run (the machine is shared, so
only the ratio travels). The fixture results are the tests' (tests/report/html/fixtures.py), at
their worst: one skill of 34 cases × 3 runs × 2 arms (204 rollouts) whose answers are 2,000
characters each and whose transcripts are all at every cap (fitted into the result's budget as a
trial fits them), the valuation of a 60-unit skill with its pruning curves and as much document
text as a value JSON keeps (400,000 characters), a trigger trial and a scan. Reported, median of
``--repeat``:

* the file's size, and Python's time to render it from the JSON;
* Chromium's time from navigation to the first frame after the load event, for the report and for
  a blank page, over the DevTools pipe (no request may leave either; the benchmark fails if one does),
  and the navigation's own load-event time from the page's Navigation Timing.

Usage::

    .venv/bin/python benchmarks/html_report.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.report.html.browser import Browser
from tests.report.html.fixtures import (
    scan_doc,
    trial_doc,
    trial_skill,
    trigger_doc,
    value_doc_at_the_bound,
    with_full_transcripts,
)
from tests.report.html.helpers import render

BLANK = "<!DOCTYPE html><html><head><meta charset=utf-8><title>blank</title></head><body></body></html>"
_LOAD_MS = "performance.getEntriesByType('navigation')[0].loadEventEnd"


def _documents() -> list[tuple[str, dict[str, object]]]:
    skill = trial_skill("skills/pdf-tools", "pdf-tools", "pass", 0.8, 0.4, cases=34, answer_chars=2000)
    with_full_transcripts(skill)
    return [
        ("trial.json", trial_doc([skill])),
        ("trigger.json", trigger_doc()),
        ("value.json", value_doc_at_the_bound(60)),
        ("scan.json", scan_doc()),
    ]


def _open(browser: Browser, url: str) -> tuple[float, float]:
    """Seconds from navigation to the first frame after load, and the page's own load-event time (s)."""
    start = time.perf_counter()
    log = browser.open(url)
    wall = time.perf_counter() - start
    if log.requests != [url] or log.errors():
        raise SystemExit(f"{url}: unexpected requests {log.requests} or errors {log.errors()}")
    return wall, float(browser.evaluate(_LOAD_MS)) / 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args(argv)
    documents = _documents()
    renders = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        page = render(*documents)
        renders.append(time.perf_counter() - start)
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    print(f"report: {len(page.encode('utf-8')):,} bytes; Python render median {statistics.median(renders):.3f} s")
    if executable is None:
        print("chromium not found: browser timings skipped")
        return 0
    with tempfile.TemporaryDirectory() as scratch, Browser(Path(executable)) as browser:
        report, blank = Path(scratch) / "report.html", Path(scratch) / "blank.html"
        report.write_text(page, encoding="utf-8")
        blank.write_text(BLANK, encoding="utf-8")
        _open(browser, blank.as_uri())  # warm the browser's own start-up out of the first measurement
        timings: dict[str, list[tuple[float, float]]] = {"blank": [], "report": []}
        for _ in range(args.repeat):  # interleaved, so load on the machine hits both alike
            timings["blank"].append(_open(browser, blank.as_uri()))
            timings["report"].append(_open(browser, report.as_uri()))
    medians = {k: (statistics.median(w for w, _ in v), statistics.median(n for _, n in v)) for k, v in timings.items()}
    for kind, (wall, load) in medians.items():
        print(f"{kind:>6}: navigation to first frame after load {wall:.3f} s; load event at {load:.3f} s")
    ratio = medians["report"][0] / medians["blank"][0]
    print(f"report / blank page: ×{ratio:.1f} (wall), ×{medians['report'][1] / medians['blank'][1]:.1f} (load event)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
