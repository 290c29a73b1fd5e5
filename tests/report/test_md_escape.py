"""Each context of the comment has its escaping: a hostile string stays text in every one of them."""

from __future__ import annotations

import io
import re

from aces_ci.redact import RedactingStream
from aces_ci.report import markdown_cell, markdown_code, markdown_html_text, markdown_link_url
from aces_ci.report._md_escape import mermaid_label

HOSTILE = "a</summary>\n\n# HIJACK\n![x](http://e.example/p.png)\n```\n@org/team <img src=x> `tick` | pipe"


def test_a_table_cell_is_one_line_with_no_markup() -> None:
    cell = markdown_cell(HOSTILE, 500)
    assert "\n" not in cell and "<img" not in cell and "</summary>" not in cell
    assert "!\\[x\\](" in cell and "\\|" in cell and "\\`\\`\\`" in cell
    assert "@\u200borg/team" in cell


def test_a_summary_title_is_one_line_of_entities() -> None:
    title = markdown_html_text(HOSTILE, 500)
    assert "\n" not in title and "<" not in title and ">" not in title
    assert "&lt;/summary&gt;" in title and "@\u200borg/team" in title and "[" not in title


def test_a_code_span_outlasts_the_backticks_inside_it() -> None:
    assert markdown_code("a ``` b `c`", 100) == "```` a ``` b `c` ````"
    assert markdown_code("@org/team", 100) == "`@org/team`"  # no mention fires inside a code span
    assert "\n" not in markdown_code("x\ny", 10)


def test_a_link_destination_is_http_only_and_cannot_end_early() -> None:
    assert markdown_link_url("javascript:alert(1)") is None
    assert markdown_link_url(None) is None
    assert markdown_link_url("https://x.example/a) ![i](http://e") == "https://x.example/a%29%20![i]%28http://e"


def test_a_mermaid_label_has_no_quote_bracket_or_line_break() -> None:
    label = mermaid_label('t"itle]\n```', 40)
    assert not re.search(r'["\[\]`\n]', label)


def test_standard_error_never_carries_a_workflow_command() -> None:
    target = io.StringIO()
    stream = RedactingStream(target, workflow_commands=False)
    stream.write("aces-ci: skills/x\n::stop-commands::tok\n  ::warning::pwned\n##[error]legacy\nfine :: here\n")
    stream.flush()
    lines = target.getvalue().splitlines()
    assert not any(line.lstrip().startswith(("::", "##[")) for line in lines)
    assert lines[1] == "» ::stop-commands::tok" and lines[-1] == "fine :: here"
