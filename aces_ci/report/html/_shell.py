"""The page around the sections: one self-contained HTML file, its CSS and its few lines of script.

The file must work from a downloaded artifact zip with no network: no CDN, no web font, no
image other than inline SVG. A Content-Security-Policy in the page itself says so to the browser
(``default-src 'none'``; the one script and the one style allowed by their hashes), so even a bug
that let markup through could not fetch anything or run another script. Colours are CSS variables
with a dark set under ``prefers-color-scheme: dark``; the print style drops the controls and opens
every folded transcript. The script only sorts and filters tables by what the DOM already holds:
no result data is ever inside it.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from typing import Any

from ._escape import json_script, text

CSS = """
:root{--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--panel:#f6f8fa;--pass:#1a7f37;--fail:#cf222e;
--warn:#9a6700;--band-pass:#dafbe1;--band-fail:#ffebe9;--accent:#0969da;--with:#0969da;--ctl:#8250df;
--h3:#1a7f37;--h2:#4ac26b;--h1:#aceebb;--h0:#eaeef2;--n1:#ffcecb;--n2:#ff8182;--n3:#cf222e}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;
--panel:#151b23;--pass:#3fb950;--fail:#f85149;--warn:#d29922;--band-pass:#12261e;--band-fail:#2d1517;
--accent:#4493f8;--with:#4493f8;--ctl:#ab7df8;--h3:#3fb950;--h2:#2ea043;--h1:#1b4721;--h0:#262c36;
--n1:#5d1f1c;--n2:#a1302b;--n3:#f85149}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);
font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}main{max-width:1200px;margin:0 auto;padding:16px}
nav{position:sticky;top:0;background:var(--bg);border-bottom:1px solid var(--line);padding:6px 16px;z-index:1}
nav a{margin-right:14px;color:var(--accent);text-decoration:none}
h1{font-size:22px;margin:8px 0}h2{font-size:18px;border-bottom:1px solid var(--line);padding-bottom:4px;margin-top:28px}
h3{font-size:15px;margin:18px 0 6px}a{color:var(--accent)}section{margin-bottom:24px}.muted,.note{color:var(--muted)}
.missing{color:var(--muted);font-style:italic}
table{border-collapse:collapse;width:100%;margin:6px 0 12px}th,td{border:1px solid var(--line);padding:4px 6px;
text-align:left;vertical-align:top}th{background:var(--panel)}table.sortable th{cursor:pointer}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.verdict{font-weight:600;padding:1px 6px;border-radius:4px;border:1px solid currentColor}
.v-pass,.v-keep{color:var(--pass)}.v-fail,.v-delete{color:var(--fail)}
.v-warn,.v-neutral,.v-underpowered,.v-compress,.v-unresolved,.v-negligible{color:var(--warn)}
.sev-error{color:var(--fail)}.sev-warning{color:var(--warn)}.sev-note{color:var(--muted)}
svg{max-width:100%;height:auto;display:block;margin:4px 0}svg text{fill:var(--fg);font:11px system-ui,sans-serif}
.axis{stroke:var(--muted);stroke-width:1}.zero{stroke:var(--fg);stroke-width:1;stroke-dasharray:3 3}
.band-pass{fill:var(--band-pass)}.band-fail{fill:var(--band-fail)}.ci{stroke:var(--fg);stroke-width:2}
.pt{fill:var(--accent)}.whisker{stroke:var(--muted);stroke-width:1}circle.v-keep{fill:var(--pass)}
circle.v-delete{fill:var(--fail)}circle.v-compress,circle.v-negligible,circle.v-unresolved{fill:var(--warn)}.pt-aa{fill:var(--muted)}.arm-with{fill:var(--with)}.arm-ctl{fill:var(--ctl)}
.c-skillsv{stroke:var(--accent);fill:none;stroke-width:2}.c-closure_loo{stroke:var(--ctl);fill:none;stroke-width:2}
.c-random{stroke:var(--muted);fill:none;stroke-width:2;stroke-dasharray:4 3}
.k-skillsv{fill:var(--accent)}.k-closure_loo{fill:var(--ctl)}.k-random{fill:var(--muted)}
.h3{fill:var(--h3);background:var(--h3)}.h2{fill:var(--h2);background:var(--h2)}.h1{fill:var(--h1);background:var(--h1)}
.h0{fill:var(--h0);background:var(--h0)}.n1{fill:var(--n1);background:var(--n1)}.n2{fill:var(--n2);background:var(--n2)}
.n3{fill:var(--n3);background:var(--n3)}.hx{fill:none;background:repeating-linear-gradient(45deg,var(--h0) 0 3px,
var(--bg) 3px 6px)}
.doc{border:1px solid var(--line);font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
.blk{display:grid;grid-template-columns:10px 1fr 210px;gap:6px;border-bottom:1px solid var(--line)}
.blk .heat{min-height:100%}.blk pre{margin:2px 0}.unit{font:12px/1.4 system-ui,sans-serif;padding:2px 0}
.ln{display:inline-block;width:3.5em;margin-right:8px;text-align:right;color:var(--muted);user-select:none}
details.document{margin:6px 0}details.document>summary{margin:4px 0}
.pair,.transcripts{display:grid;grid-template-columns:1fr 1fr;gap:8px;margin-top:6px}.pair>div,.transcripts>div{
border:1px solid var(--line);padding:6px;background:var(--panel)}.pair h4,.transcripts h4{margin:0 0 4px;font-size:12px}
ol.steps{list-style:none;padding:0;margin:4px 0}.step{border-left:3px solid var(--line);padding:2px 6px;
margin:4px 0}.step .role{font-size:11px;font-weight:600;color:var(--muted)}.s-agent{border-left-color:var(--with)}
.tool-call{border:1px dashed var(--accent);padding:2px 4px;margin:2px 0}.tool-result{border-left:2px solid
var(--muted);padding-left:4px;margin:2px 0}.skill-event{font-weight:600;color:var(--warn)}
.has-skill{border-left-color:var(--warn);background:var(--band-pass)}
pre{white-space:pre-wrap;word-break:break-word;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;margin:0}
details>summary{cursor:pointer;color:var(--accent)}input.filter{padding:4px;margin:4px 0;width:260px;
background:var(--bg);color:var(--fg);border:1px solid var(--line)}
@media print{nav,input.filter{display:none}body{font-size:11px}main{max-width:none}
section,tr,.blk,svg{break-inside:avoid}a{color:inherit}}
"""
"""The one stylesheet; allowed by its hash in the page's Content-Security-Policy."""

SCRIPT = """
document.querySelectorAll("table.sortable th").forEach(function (th) {
  th.addEventListener("click", function () {
    var body = th.closest("table").tBodies[0], i = th.cellIndex, up = th.dataset.dir !== "asc";
    th.dataset.dir = up ? "asc" : "desc";
    Array.from(body.rows).sort(function (a, b) {
      var x = a.cells[i].dataset.v || a.cells[i].textContent, y = b.cells[i].dataset.v || b.cells[i].textContent;
      var d = isNaN(parseFloat(x)) || isNaN(parseFloat(y)) ? x.localeCompare(y) : parseFloat(x) - parseFloat(y);
      return up ? d : -d;
    }).forEach(function (row) { body.appendChild(row); });
  });
});
document.querySelectorAll("input.filter").forEach(function (box) {
  box.addEventListener("input", function () {
    var q = box.value.toLowerCase(), table = document.getElementById(box.dataset.table);
    Array.from(table.tBodies[0].rows).forEach(function (row) {
      row.hidden = q !== "" && row.textContent.toLowerCase().indexOf(q) < 0;
    });
  });
});
window.addEventListener("beforeprint", function () {
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
});
"""
"""Sorting and filtering of tables by their DOM text, and unfolding for print; nothing else, no data."""


def _hash(source: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode("ascii")


CONTENT_SECURITY_POLICY = (
    f"default-src 'none'; style-src '{_hash(CSS)}'; script-src '{_hash(SCRIPT)}'; img-src data:; "
    "base-uri 'none'; form-action 'none'"
)
"""No fetch of any kind; only this page's own style and script run (each allowed by its hash)."""

SECTIONS = (
    ("verdict", "Verdict"),
    ("lift", "Lift"),
    ("cases", "Cases"),
    ("triggers", "Triggers"),
    ("skillsv", "SkillSV"),
    ("compress", "Compression"),
    ("cost", "Cost"),
    ("scan", "Scan"),
)
"""Every section's id and title, in page order; each is always present, saying so when its results are missing."""


def page(title: str, sections: Sequence[str], data: Any) -> str:
    """The whole document: head with the policy and style, the navigation, ``sections`` (already HTML), the data.

    ``data`` (the headline numbers, for tools reading the page) goes into an inert
    ``application/json`` script element, escaped so it cannot end the element.
    """
    nav = "".join(f'<a href="#{key}">{label}</a>' for key, label in SECTIONS)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="color-scheme" content="light dark">'
        f"<title>{text(title, 200)}</title><style>{CSS}</style></head>\n"
        f"<body><nav>{nav}</nav><main><h1>{text(title, 200)}</h1>\n" + "\n".join(sections) + "\n</main>\n"
        f'<script type="application/json" id="aces-data">{json_script(data)}</script>\n'
        f"<script>{SCRIPT}</script>\n</body></html>\n"
    )


def section(key: str, title: str, body: str) -> str:
    """One top-level section: ``<section id=key>`` with its heading."""
    return f'<section id="{key}"><h2>{text(title)}</h2>\n{body}\n</section>'


def missing(what: str) -> str:
    """The sentence a section shows for what the results given do not hold."""
    return f'<p class="missing">{text(what)}</p>'
